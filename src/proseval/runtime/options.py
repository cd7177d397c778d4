"""How a run is executed: where it is written, which samples, epochs, cache, display, retries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .progress import Display


@dataclass
class RunOptions:
    out_dir: Path = Path("runs")
    limit: int | None = None
    seed: int | None = None
    epochs: int = 1
    use_cache: bool = True
    cache_path: Path | None = None
    display: Display = "plain"
    force: bool = False
    retry_failed: bool = False
    max_attempts: int = 6
    backoff_initial: float = 1.0

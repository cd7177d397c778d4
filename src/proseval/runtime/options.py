"""How a run is executed: where it is written, which samples, epochs, cache, display, retries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .batch import BatchSettings
from .limits import EndpointLimits
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
    # A re-score's repeat number: repeats of one judge on the same answers get their own cache
    # entries and seeds, so the analysis sees the judge's variation rather than one replayed answer.
    repeat: int = 0
    # Several runs in one event loop (an evaluation set, `runtime.sets`): endpoint limits they
    # share (None: each role only has its own concurrency), the rich progress display they
    # share (None: a run shows its own), and the name a run's progress goes by (None: the task's).
    endpoint_limits: EndpointLimits | None = None
    progress: Any = None
    label: str | None = None
    # --prices / --max-cost: the meter that records the spend and holds the limit (`runtime.cost`;
    # shared by the runs of a set); None: no prices, no spend recorded.
    cost: Any = None
    # --batch ROLE (`runtime.batch`): the roles whose requests go through the provider's batch
    # API, and how batches are cut and polled.
    batch_roles: tuple[str, ...] = ()
    batch_settings: BatchSettings = BatchSettings()
    # One request per remote binding before anything is paid for (`runtime.probe`): the commands and
    # `proseval.run` ask for it (--no-probe: not); a run started from the runtime itself is not probed.
    probe: bool = False

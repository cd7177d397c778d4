"""Fixtures of the profile tests: the official data sets through ``shared_dir``."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def data_args(shared_dir: Path) -> list[str]:
    """`--data` for the three data sets of the suite, from the official copies beside the checkout."""
    data = shared_dir / "data"
    for part in ("c3ebench/english_dataset.jsonl", "meeseeks/input_data", "writingbench/benchmark_query"):
        if not (data / part).exists():
            pytest.skip(f"official data not found: {data / part}")
    return [arg for name in ("c3ebench", "meeseeks", "writingbench") for arg in ("--data", f"{name}={data / name}")]

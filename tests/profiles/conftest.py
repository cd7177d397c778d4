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


DATA_ENV = ("PROSEVAL_C3EBENCH_DIR", "PROSEVAL_MEESEEKS_DIR", "PROSEVAL_WRITINGBENCH_DIR")


@pytest.fixture
def no_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every data set points at an empty folder: only LongWeave (generated) can run."""
    empty = tmp_path / "empty"
    empty.mkdir()
    for name in DATA_ENV:
        monkeypatch.setenv(name, str(empty))
    return empty

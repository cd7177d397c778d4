"""Fixtures: the tiny hand-made data set, and the official files through ``shared_dir``."""

from __future__ import annotations

from pathlib import Path

import pytest

from c3ebench.c3e_fixtures import write_tiny


@pytest.fixture
def tiny_dir(tmp_path: Path) -> Path:
    return write_tiny(tmp_path / "c3e")


@pytest.fixture(scope="session")
def official_dir(shared_dir: Path) -> Path:
    path = shared_dir / "data" / "c3ebench"
    if not (path / "english_dataset.jsonl").is_file():
        pytest.skip(f"official C3EBench data not found at {path}")
    return path

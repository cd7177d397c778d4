"""Fixtures: the tiny hand-made data set, and the official data and vectors through ``shared_dir``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proseval.benchmarks.writingbench.data import WritingBench, load_benchmark
from writingbench.wb_fixtures import tiny_files, write_files


@pytest.fixture
def tiny_dir(tmp_path: Path) -> Path:
    return write_files(tmp_path / "benchmark_query", tiny_files())


@pytest.fixture
def tiny_bench(tiny_dir: Path) -> WritingBench:
    return load_benchmark(tiny_dir, verify=False)


@pytest.fixture(scope="session")
def official_dir(shared_dir: Path) -> Path:
    path = shared_dir / "data" / "writingbench" / "benchmark_query"
    if not path.is_dir():
        pytest.skip(f"official WritingBench data not found at {path}")
    return path


@pytest.fixture(scope="session")
def official_bench(official_dir: Path) -> WritingBench:
    return load_benchmark(official_dir)


@pytest.fixture(scope="session")
def aggregation_cases(shared_dir: Path) -> list[dict[str, Any]]:
    path = shared_dir / "vectors" / "writingbench" / "aggregation_cases.jsonl"
    if not path.is_file():
        pytest.skip(f"WritingBench aggregation vectors not found at {path}")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

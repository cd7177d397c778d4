"""Shared test fixtures."""

from __future__ import annotations

import gc
import itertools
import os
import sys
from pathlib import Path

import pytest

# What a command prints in a test never depends on the terminal pytest was started from: a console
# takes its width from COLUMNS when the process starts (pytest-xdist's workers get COLUMNS=80),
# so the variables are dropped before any proseval module makes one. A test that needs a width sets it.
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)

# Compiled bytecode is kept (Python's default) even where the environment turns it off
# (PYTHONDONTWRITEBYTECODE, set in some CI images): otherwise every worker rewrites and compiles
# every test module again on each run, and every `python -m proseval` a test starts compiles the
# package again (collection alone: 27 s without, 14 s with, on a 2-core AMD EPYC).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_configure(config: pytest.Config) -> None:
    """A test process collects its youngest generation as a run does (`YOUNG_THRESHOLD` objects
    instead of Python's 700): a worker lives as long as the suite and holds every module a test
    imported, and at the default threshold its full collections, each going over those modules'
    objects again, took about 7 CPU-s per worker (27 s of collector time for three workers on a
    2-core AMD EPYC; 9 s with this and `pytest_collection_finish`). Outcomes do not depend on it:
    a test that needs a collection calls `gc.collect()`, and tests/core/test_collector.py sets
    the thresholds it checks."""
    from proseval.runtime.collector import YOUNG_THRESHOLD

    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (modules, test functions) lives until the end: it is collected once
    and then left out of every later collection (`gc.freeze`), pytest's last ones included."""
    gc.collect()
    gc.freeze()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject.toml): one worker per CPU core and one more, at most 4. Many tests wait on a
    child process, a browser or a server, so a third worker fills the time two leave idle (the whole
    suite on a 2-core AMD EPYC: 231 s with 2 workers, 209 s with 3, 213 s with 4)."""
    return min(4, (os.cpu_count() or 1) + 1)


REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = (REPO_ROOT.parent / "shared").resolve()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only folder of official data and differential vectors beside the checkout."""
    if not SHARED_DIR.is_dir():
        pytest.skip(f"official data and vectors not found at {SHARED_DIR}")
    return SHARED_DIR


@pytest.fixture
def scripts():
    """Register scripted models by name for one test (``scripts(name, script)`` returns the spec);
    unregistered afterwards. Test modules with fixed scripts define their own `scripts`."""
    from support.scripted import registered_scripts

    with registered_scripts() as register:
        yield register


_cache_folders = itertools.count()


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own response cache, never the user's: a folder that does not exist
    yet, as on a machine proseval never ran on (what writes to it makes it). Most tests write
    nothing there, so most of these folders are never made, nor removed by a later session."""
    path = tmp_path_factory.getbasetemp() / "caches" / str(next(_cache_folders))
    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(path))
    return path


@pytest.fixture(autouse=True)
def strict_charts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every chart any test draws is checked: a legend over its data or a cut label raises
    (`plots.layout_problems`), so each benchmark's, the report's and the viewer's charts are held to it."""
    monkeypatch.setenv("PROSEVAL_STRICT_CHARTS", "1")


@pytest.fixture(autouse=True)
def unprobed() -> None:
    """Every test starts with no binding probed in this process (`runtime.probe` probes a binding
    once per process): what a test sends never depends on the tests before it."""
    from proseval.runtime import probe

    probe.forget()


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in {"", "0", "false", "no"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    """In CI every dependency and ../shared/ are present: a skipped test is a failure there."""
    outcome = yield
    report = outcome.get_result()
    if _in_ci() and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where every extra and ../shared/ must be present: {reason}"

"""The young-generation threshold is raised while runs are in flight and put back after the last."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest

from proseval.core.protocols import single_turn
from proseval.runtime.collector import YOUNG_THRESHOLD, fewer_collections
from proseval.runtime.options import RunOptions
from proseval.runtime.runner import start_run
from support.core import binding, make_task


@pytest.fixture
def default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_overlapping_runs_put_the_thresholds_back_when_the_last_leaves_in_any_order(default_thresholds):
    first, second = fewer_collections(), fewer_collections()
    first.__enter__()
    second.__enter__()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    first.__exit__(None, None, None)  # the first to start ends first
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    second.__exit__(None, None, None)
    assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_of_the_process_is_kept(default_thresholds):
    gc.set_threshold(10 * YOUNG_THRESHOLD, 5, 5)
    with fewer_collections():
        assert gc.get_threshold() == (10 * YOUNG_THRESHOLD, 5, 5)
    assert gc.get_threshold() == (10 * YOUNG_THRESHOLD, 5, 5)


async def test_runs_in_flight_collect_less_often_and_leave_the_process_as_they_found_it(
    tmp_path: Path, default_thresholds
):
    seen = []

    async def protocol(sample, ctx):
        seen.append(gc.get_threshold())
        return await single_turn(sample, ctx)

    def task(name: str):
        made = make_task(5, name=name)
        made.protocol = protocol
        return made

    options = [RunOptions(out_dir=tmp_path / name, display="none", cache_path=None) for name in ("a", "b")]
    bindings = {"candidate": binding("scripted/echo")}
    await asyncio.gather(start_run(task("a"), bindings, options[0]), start_run(task("b"), bindings, options[1]))
    assert len(seen) == 10 and set(seen) == {(YOUNG_THRESHOLD, 10, 10)}
    assert gc.get_threshold() == (700, 10, 10)

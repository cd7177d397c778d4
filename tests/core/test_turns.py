"""Records finished in one turn of the event loop are written together, and a failed write
reaches every sample that waited for it."""

from __future__ import annotations

import asyncio
import gc
import warnings
from pathlib import Path

import pytest

from proseval.runtime.options import RunOptions
from proseval.runtime.runlog import SampleWriter
from proseval.runtime.runner import start_run
from proseval.runtime.turns import EndOfTurn
from support.core import binding, make_task


async def test_items_added_in_one_turn_are_handled_together_once_it_ends():
    handled: list[list[int]] = []
    turn = EndOfTurn(handled.append)

    async def finish(item: int) -> None:
        await turn.add(item)
        assert item in handled[-1]  # handled before its caller goes on

    first = [asyncio.ensure_future(finish(i)) for i in range(5)]
    await asyncio.gather(*first)
    await asyncio.gather(finish(5), finish(6))
    assert handled == [[0, 1, 2, 3, 4], [5, 6]]


async def test_a_failed_handling_is_raised_by_every_caller_and_warns_about_none():
    def fail(items: list[int]) -> None:
        raise OSError(28, "No space left on device")

    turn = EndOfTurn(fail)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcomes = await asyncio.gather(turn.add(1), turn.add(2), return_exceptions=True)
        gc.collect()
    assert [type(outcome) for outcome in outcomes] == [OSError, OSError]
    turn.flush()  # its callers had it: not raised a second time
    assert not [w for w in caught if "never retrieved" in str(w.message)]


async def test_flush_handles_what_waits_at_once_and_raises_a_failure_no_caller_received():
    handled: list[list[str]] = []
    turn = EndOfTurn(handled.append)
    waiting = turn.add("a")
    turn.flush()  # before the turn ends (the run closing its files)
    assert handled == [["a"]] and waiting.done()
    await asyncio.sleep(0)  # the scheduled end of the turn finds nothing
    assert handled == [["a"]]

    def fail(items: list[str]) -> None:
        raise OSError(5, "Input/output error")

    failing = EndOfTurn(fail)
    failing.add("b").cancel()  # its only caller was cancelled: nobody received the error
    await asyncio.sleep(0)
    with pytest.raises(OSError, match="Input/output"):
        failing.flush()


async def test_a_run_whose_samples_file_cannot_be_written_fails_with_that_error(tmp_path: Path, monkeypatch):
    calls = []
    original = SampleWriter.append

    def full_disk(self, *records):
        calls.append(len(records))
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        return original(self, *records)

    monkeypatch.setattr(SampleWriter, "append", full_disk)
    options = RunOptions(out_dir=tmp_path, display="none", cache_path=None)
    with pytest.raises(OSError, match="No space left"):
        await start_run(make_task(40), {"candidate": binding("scripted/echo", concurrency=4)}, options)
    assert sum(calls) < 40  # no sample started after the failure was seen


async def test_samples_answered_at_once_share_their_writes(tmp_path: Path, monkeypatch):
    calls = []
    original = SampleWriter.append

    def counting(self, *records):
        calls.append(len(records))
        return original(self, *records)

    monkeypatch.setattr(SampleWriter, "append", counting)
    options = RunOptions(out_dir=tmp_path, display="none", cache_path=None)
    folder, results = await start_run(make_task(40), {"candidate": binding("scripted/echo", concurrency=8)}, options)
    assert results.counts.ok == 40 and sum(calls) == 40
    assert len(calls) < 40 and max(calls) > 1
    assert len(folder.samples_path.read_text().splitlines()) == 40

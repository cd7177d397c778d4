"""A run that had no records before finishes from what its process gathered as it wrote them, and
its results are exactly those read back from its records (a resumed run still reads them)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from proseval.models.base import RetryableError
from proseval.runtime.options import RunOptions
from proseval.runtime.results import aggregate_run
from proseval.runtime.runlog import RunFolder
from proseval.runtime.runner import start_run
from support.core import binding, make_task
from support.scripted import registered_scripts

SECRET = "sk-test-0123456789abcdefghijkl"


def answer(messages) -> str | RetryableError:
    """Every seventh sample fails after retries (its error quotes the key); the rest echo."""
    text = messages[-1]["content"]
    number = int(text.split()[-1].rstrip("."))
    if number % 7 == 3:
        return RetryableError(f"server said: bad key {SECRET}", status=500)
    return text


def read_back(task, folder: RunFolder, total: int, epochs: int) -> dict:
    """The results as aggregating the records on disk gives them."""
    results = aggregate_run(task, folder, total, folder.read_header().run_id, seed=0, epochs=epochs)
    return results.model_dump(mode="json", exclude={"finished_at"})


def without_time(results) -> dict:
    return results.model_dump(mode="json", exclude={"finished_at"})


def by_aggregate(samples) -> dict:
    """A task's own figures over the records (here: their number and ids)."""
    return {"n": len(samples), "ids": [s.id for s in samples]}


@pytest.mark.parametrize("kind", ["streamed", "task figures", "epochs"])
async def test_results_gathered_while_writing_equal_those_read_back(tmp_path: Path, monkeypatch, kind: str):
    monkeypatch.setenv("PROSEVAL_TEST_API_KEY", SECRET)
    task = make_task(30)
    if kind == "task figures":
        task = dataclasses.replace(task, aggregate=by_aggregate)
    epochs = 2 if kind == "epochs" else 1
    reads = []
    original = RunFolder.iter_scored

    def counting(self):
        reads.append(self.path)
        return original(self)

    with registered_scripts() as scripts:
        spec = scripts("gathered", answer)
        monkeypatch.setattr(RunFolder, "iter_scored", counting)
        options = RunOptions(out_dir=tmp_path, display="none", backoff_initial=0.001, max_attempts=2, epochs=epochs)
        folder, results = await start_run(task, {"candidate": binding(spec, concurrency=4)}, options)
        assert reads == []  # finished without reading its records back
        monkeypatch.setattr(RunFolder, "iter_scored", original)

    total = 30 * epochs
    assert results.counts.failed == 4 * epochs and results.counts.ok == 26 * epochs
    assert without_time(results) == read_back(task, folder, total, epochs)
    assert SECRET not in json.dumps(without_time(results))
    assert SECRET not in (folder.path / "results.json").read_text()


async def test_a_resumed_run_reads_its_earlier_records(tmp_path: Path, monkeypatch):
    """Records from an earlier process are in the folder: the results count them."""
    from proseval.runtime.resume import resume_run

    task = make_task(12)
    with registered_scripts() as scripts:
        spec = scripts("gathered-resume", answer)
        options = RunOptions(out_dir=tmp_path, display="none", backoff_initial=0.001, max_attempts=2)
        folder, first = await start_run(task, {"candidate": binding(spec, concurrency=2)}, options)
        assert first.counts.failed == 2
        again = await resume_run(folder, task, dataclasses.replace(options, retry_failed=True))
    assert again.counts.finished == 12
    assert without_time(again) == read_back(task, folder, 12, 1)

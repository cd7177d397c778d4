"""Checkpoints: a multi-step protocol interrupted mid-sample continues from its last saved step."""

from __future__ import annotations

import asyncio
import json

import pytest

from proseval.core import Sample, Score, State, Task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.resume import resume_run
from proseval.runtime.runlog import RunFolder, RunFolderError
from proseval.runtime.runner import start_run

STEPS = 5


class Killed(BaseException):
    """Stands for the process being killed: not an error the runner records."""


def make_task(log: list[tuple[str, int]], kill_at: dict[str, int]) -> Task:
    async def protocol(sample: Sample, ctx) -> State:
        saved = ctx.load_checkpoint() or {"step": 0, "text": ""}
        step, text = saved["step"], saved["text"]
        while step < STEPS:
            if kill_at.get(sample.id) == step:
                kill_at.pop(sample.id)
                raise Killed
            completion = await ctx.generate(
                "candidate", [{"role": "user", "content": f"{sample.input} {step}"}], turn=step
            )
            step, text = step + 1, text + completion.text[:1]
            log.append((sample.id, step))
            ctx.save_checkpoint({"step": step, "text": text})
        return State(output=text)

    async def steps(sample, state, ctx):
        return {"length": Score(value=float(len(state.output)))}

    return Task(
        name="episodes",
        version="1",
        dataset=lambda: [Sample(id=f"e{i}", input=f"topic {i}") for i in range(3)],
        protocol=protocol,
        scorers=[steps],
    )


BINDINGS = {"candidate": RoleBinding(spec="scripted/echo")}


def test_an_interrupted_episode_continues_from_its_last_step(tmp_path):
    log: list[tuple[str, int]] = []
    task = make_task(log, {"e1": 3})
    options = RunOptions(out_dir=tmp_path, display="none", use_cache=False)
    with pytest.raises(Killed):
        asyncio.run(start_run(task, BINDINGS, options, run_dir=tmp_path / "run"))
    folder = RunFolder(tmp_path / "run")
    assert json.loads(folder.checkpoint_path("e1", 0).read_text())["data"]["step"] == 3
    results = asyncio.run(resume_run(folder, task, options))
    assert results.counts.finished == 3 and results.counts.duplicates == 0
    assert [s for i, s in log if i == "e1"] == [1, 2, 3, 4, 5]  # steps 1-3 before the kill, 4-5 after: none twice
    assert sorted(r.id for r in folder.iter_records()) == ["e0", "e1", "e2"]
    assert results.metrics["length"].mean == STEPS
    assert not any((tmp_path / "run" / "checkpoints").glob("*.json"))  # cleared once each record was written


def test_a_corrupt_checkpoint_is_a_clear_error(tmp_path):
    folder = RunFolder(tmp_path)
    folder.write_checkpoint("e1", 0, {"step": 2})
    assert folder.read_checkpoint("e1", 0) == {"step": 2}
    folder.checkpoint_path("e1", 0).write_text("{not json")
    with pytest.raises(RunFolderError, match="unreadable checkpoint"):
        folder.read_checkpoint("e1", 0)


def test_secrets_never_reach_a_checkpoint(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_API_KEY", "sk-secret-value-123")
    folder = RunFolder(tmp_path)
    folder.write_checkpoint("e1", 0, {"echo": "the key is sk-secret-value-123"})
    assert "sk-secret-value-123" not in folder.checkpoint_path("e1", 0).read_text()

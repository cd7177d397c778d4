"""The public API and the registration contracts: run/read_run, @task, @scorer, entry points."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

import proseval
from proseval import kit, registry
from proseval.core import Sample, Score, State, Task, scorer
from proseval.core.protocols import single_turn
from proseval.runtime.options import RunOptions
from proseval.runtime.runner import start_run
from support.core import binding


def test_run_and_read_run(tmp_path):
    run = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, limit=3, out=tmp_path)
    assert run.header.task == "demo" and run.results.counts.finished == 3
    again = proseval.read_run(run.path)
    assert again.results == run.results
    assert [r.id for r in again.records()] == [r.id for r in run.records()]
    frame = again.samples_df()
    assert list(frame["id"]) == [r.id for r in run.records()] and "length" in frame.columns
    assert set(again.metrics_df()["metric"]) == {"length", "quality"}
    assert run.results.headline == "quality"  # the task's choice, for leaderboards and the viewer


def test_the_headline_leads_the_report_and_the_viewer(tmp_path):
    from proseval.report.runs import metric_names, open_runs
    from proseval.view.runs import read_info

    run = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, limit=1, out=tmp_path)
    assert list(run.results.metrics) == ["length", "quality"]  # alphabetical in results.json
    assert metric_names(open_runs([run.path])) == ["quality", "length"]
    assert read_info("demo", run.path).headline() == ("quality", run.results.metrics["quality"].mean)


def test_run_rejects_bad_counts_before_any_request(tmp_path):
    with pytest.raises(ValueError, match="limit must be at least 1"):
        proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, limit=0, out=tmp_path)
    assert not list(tmp_path.iterdir())


def test_the_public_names_are_exported():
    from proseval import api, core, errors

    expected = {
        "PromptTemplate": core.PromptTemplate,
        "ProsevalError": errors.ProsevalError,
        "Run": api.Run,
        "Sample": core.Sample,
        "Score": core.Score,
        "State": core.State,
        "Task": core.Task,
        "agreement": api.agreement,
        "read_run": api.read_run,
        "resume": api.resume,
        "run": api.run,
        "run_set": api.run_set,
        "score": api.score,
        "scorer": core.scorer,
        "task": registry.task,
    }
    assert sorted(proseval.__all__) == sorted(expected)
    assert {name: getattr(proseval, name) for name in proseval.__all__} == expected
    assert all(isinstance(expected[name], type) for name in ("Run", "Sample", "Score", "State", "Task"))
    assert issubclass(proseval.ProsevalError, Exception)
    with pytest.raises(AttributeError):
        proseval.no_such_name  # noqa: B018  # the look-up is what is tested


def test_the_kit_exports_what_it_lists_and_the_guide_documents_each_name():
    guide = (Path(__file__).resolve().parents[2] / "docs" / "writing-a-benchmark.md").read_text(encoding="utf-8")
    spaces = [("kit", kit), *((f"kit.{name}", getattr(kit, name)) for name in kit.NAMESPACES)]
    for prefix, space in spaces:
        assert len(set(space.__all__)) == len(space.__all__)
        for name in space.__all__:
            assert getattr(space, name) is not None
            assert f"{prefix}.{name}" in guide, f"docs/writing-a-benchmark.md does not mention {prefix}.{name}"


def test_benchmarks_register_through_the_entry_point_group():
    points = {p.name for p in importlib.metadata.entry_points(group=registry.ENTRY_POINT_GROUP)}
    assert {"demo", "longweave", "meeseeks", "writingbench"} <= points
    assert {"demo", "longweave", "meeseeks", "writingbench", "writingbench-criteria"} <= set(registry.tasks())
    assert {"meeseeks", "writingbench"} <= set(registry.command_groups())
    assert {"longweave", "meeseeks"} <= set(registry.generate_commands())


def test_a_task_registered_by_decorator_runs_like_a_built_in(tmp_path):
    @scorer("shout", metrics=["shout"])
    async def shout(sample: Sample, state: State, ctx) -> dict[str, Score]:
        return {"shout": Score(value=float(state.output.isupper()))}

    @registry.task("unit-plugin", summary="a task registered from a test")
    def make(params) -> Task:
        return Task(
            name="unit-plugin",
            version="1",
            dataset=lambda: [Sample(id="a", input="HELLO")],
            protocol=single_turn,
            scorers=[shout],
        )

    try:
        run = proseval.run("unit-plugin", model="scripted/echo", out=tmp_path)
        assert run.results.metrics["shout"].mean == 1.0
    finally:
        registry._TASKS.pop("unit-plugin")


async def test_a_scorer_that_returns_an_undeclared_metric_is_unscored(tmp_path):
    @scorer("declared", metrics=["declared"])
    async def sloppy(sample, state, ctx):
        return {"declard": Score(value=1.0)}

    task = Task(
        name="sloppy", version="1", dataset=lambda: [Sample(id="a", input="x")], protocol=single_turn, scorers=[sloppy]
    )
    folder, results = await start_run(
        task, {"candidate": binding("scripted/echo")}, RunOptions(out_dir=tmp_path, display="none")
    )
    record = next(folder.iter_records())
    assert record.scores["declared"].value is None and "does not declare" in record.scores["declared"].explanation


def test_a_broken_plug_in_is_reported_and_the_others_still_load(monkeypatch):
    class Point:
        name, value = "broken", "proseval_no_such_module_xyz"

    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "load_errors", [])
    monkeypatch.setattr(registry, "entry_points", lambda group: [Point()])
    registry.load_benchmarks()
    assert "broken" in registry.load_errors[0] and "demo" in registry.tasks()

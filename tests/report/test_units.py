"""Every metric a run of a built-in benchmark reports has a unit its task states (`metrics=` of its
registration: a score 1-10, a share 0-1, a %), shown beside its figures on the viewer's run page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from proseval.commandline.units import definitions, metric_units
from proseval.runtime.runlog import RunFolder
from proseval.view import create_app
from view.judged_fixtures import judged_runs

LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def every_run(runs: dict[str, list[Path]], tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A run of each judged benchmark: demo, WritingBench, C3EBench (the report's), Meeseeks, LongWeave."""
    judged = judged_runs(tmp_path_factory.mktemp("judged") / "runs")
    return [
        runs["demo"][0],
        runs["writingbench"][0],
        runs["c3ebench"][0],
        *sorted(p for p in judged.iterdir() if (p / "header.json").is_file()),
    ]


def reported(run: Path) -> tuple[str, list[str]]:
    """The run's task and every metric it reports: its results' metrics and each score of its samples."""
    folder = RunFolder(run)
    names = set(folder.read_results().metrics)
    for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        names.update(json.loads(line).get("scores") or {})
    return folder.read_header().task, sorted(names)


def test_every_metric_of_every_benchmark_has_a_stated_unit(every_run: list[Path]):
    tasks = {reported(run)[0] for run in every_run}
    assert tasks == {"demo", "writingbench", "c3ebench", "meeseeks", "longweave"}
    for run in every_run:
        task, metrics = reported(run)
        assert definitions(task), f"{task} defines no metric"
        unstated = [name for name, unit in metric_units(task, metrics).items() if not unit.stated]
        assert not unstated, f"{task}: no unit stated for {unstated}"


def test_the_scales_are_those_the_papers_give():
    said = {task: dict(definitions(task)) for task in ("demo", "writingbench", "c3ebench", "meeseeks", "longweave")}
    assert "score 1-10" in said["writingbench"]["writingbench"] and "score 1-10" in said["demo"]["quality"]
    assert "1-10" in said["c3ebench"]["c3e"] and "reference = 6" in said["c3ebench"]["c3e"]
    assert (
        "fraction 0-1" in said["meeseeks"]["meeseeks"] and "Utility Rate (fraction 0-1)" in said["meeseeks"]["utility"]
    )
    assert "0-1" in said["longweave"]["longweave"] and "x 100" in said["longweave"]["longweave"]


def test_the_viewer_shows_each_unit_on_the_run_page(every_run: list[Path]):
    for run in every_run:
        task, metrics = reported(run)
        page = TestClient(create_app(run.parent), base_url=LOCAL).get(f"/runs/{run.name}").text
        assert "unit not stated" not in page, task
        for name, unit in metric_units(task, metrics).items():
            if name in RunFolder(run).read_results().metrics:
                assert unit.said.replace("'", "&#39;") in page, (task, name)  # the metrics table: in full
            assert unit.short and f">{name} ({unit.short})</th>" in page, (task, name)  # a column: its scale


def test_the_report_heads_each_figure_with_its_unit(runs: dict[str, list[Path]], monkeypatch: pytest.MonkeyPatch):
    """The leaderboard's columns, the slice tables and the bar charts' value axis name the unit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from proseval.report import figures
    from proseval.report.runs import open_runs
    from proseval.report.sections import leaderboard, slice_tables

    opened = open_runs(runs["demo"][:2])
    assert "quality (1-10)" in leaderboard("demo", opened).columns
    tables = slice_tables("demo", opened)
    assert {table.title for table in tables} == {"By genre: quality (1-10)", "By genre: length (0-1)"}
    axes_labels = []

    def drawn(draw, size):  # the chart's own drawing, on an axes of ours: its value axis's label
        _, axes = plt.subplots()
        draw(axes)
        axes_labels.append(axes.get_ylabel())
        plt.close("all")
        return b"png"

    monkeypatch.setattr(figures, "chart", drawn)
    assert figures.slice_figures(opened) and set(axes_labels) == {"quality (1-10)", "length (0-1)"}

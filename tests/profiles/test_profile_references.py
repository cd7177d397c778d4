"""The papers' figures shipped with the profile: the same as the transcribed tables, consistent where
the papers allow it, and shown in the paper's unit at the paper's granularity."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from proseval.core.results import Counts, MetricSummary, Results
from proseval.profile.comparable import PaperSetting, paper_settings
from proseval.profile.figures import paper_figures
from proseval.profile.references import Comparability, PaperUnit, paper_unit, read_references

SOURCES = {
    "meeseeks": "meeseeks.csv",
    "longweave": "longweave.csv",
    "writingbench": "writingbench.csv",
    "c3ebench": "ravel_c3ebench.csv",
    "ravel": "ravel_c3ebench.csv",
    "revision-distance": "revision_distance.csv",
}
KEY = ("paper", "table", "model", "setting", "metric", "slice")


def source_rows(shared_dir: Path, name: str) -> dict[tuple[str, ...], dict[str, str]]:
    with (shared_dir / "data" / "papers" / name).open(encoding="utf-8", newline="") as handle:
        return {tuple(row[k] for k in KEY): row for row in csv.DictReader(handle)}


def test_every_shipped_figure_is_the_transcribed_one_with_its_unit_and_note(shared_dir: Path):
    references = read_references()
    assert {r.benchmark for r in references} == set(SOURCES)
    for ref in references:
        rows = source_rows(shared_dir, SOURCES[ref.benchmark])
        row = rows.get((ref.paper, ref.table, ref.model, ref.settings, ref.metric, ref.slice))
        assert row is not None, ref
        assert (ref.value, ref.unit, ref.note) == (row["value"], row["unit"], row["note"])


@pytest.mark.parametrize(
    "benchmark, table, metrics, models",
    [
        ("longweave", "Table 3", {"Task score", "Overall Avg"}, 23),
        ("writingbench", "Table 3", {"Score"}, 16),
        ("c3ebench", "Table 2", {"Score"}, 14),
        ("ravel", "Table 2", {"Judge", "S"}, 14),
    ],
)
def test_each_headline_table_is_carried_over_whole(shared_dir: Path, benchmark, table, metrics, models):
    shipped = [r for r in read_references() if r.benchmark == benchmark]
    rows = source_rows(shared_dir, SOURCES[benchmark]).values()
    source = [row for row in rows if row["table"] == table and row["metric"] in metrics]
    if benchmark == "writingbench":  # its headline: the overall score only
        source = [row for row in source if row["slice"] == "overall"]
    assert len(shipped) == len(source) and len({r.model for r in shipped}) == models


def test_longweave_overall_is_the_mean_of_its_seven_task_scores_within_rounding():
    tasks: dict[str, list[float]] = defaultdict(list)
    overall: dict[str, float] = {}
    for ref in read_references():
        if ref.benchmark == "longweave" and ref.metric == "Task score":
            tasks[ref.model].append(ref.number)  # type: ignore[arg-type]  # these figures are numbers
        elif ref.benchmark == "longweave" and ref.metric == "Overall Avg":
            overall[ref.model] = ref.number  # type: ignore[assignment]  # likewise
    assert len(overall) == 23 and set(tasks) == set(overall)
    for model, scores in tasks.items():
        assert len(scores) == 7
        assert abs(sum(scores) / 7 - overall[model]) <= 0.006, model  # printed to two decimals


def test_meeseeks_utility_never_falls_from_turn_1_to_turn_20():
    turns: dict[str, dict[str, float]] = defaultdict(dict)
    for ref in read_references():
        if ref.benchmark == "meeseeks":
            turns[ref.model][ref.settings.split(";")[0]] = ref.number  # type: ignore[assignment]  # likewise
    assert len(turns) == 17
    for model, by_turn in turns.items():
        assert by_turn["turn 1"] <= by_turn["turn 20"], model


def test_longweaves_fraction_is_shown_in_the_papers_0_100_unit_and_other_units_are_labelled_not_converted():
    from proseval.profile.html import reference_tables
    from proseval.profile.report import Dimension, Profile, units_text
    from proseval.profile.suite import load_suite

    units = {b.name: b.unit for b in load_suite().benchmarks}
    refs = read_references()
    longweave = paper_unit(units["longweave"], [r for r in refs if r.benchmark == "longweave"])
    assert longweave == PaperUnit(unit="score (0-100)", factor=100.0)
    assert paper_unit(units["writingbench"], [r for r in refs if r.benchmark == "writingbench"]).factor == 1.0
    ravel_refs = [r for r in refs if r.benchmark == "ravel"]
    assert paper_unit(units["ravel"], ravel_refs) is None  # the Judge column's unit is not stated, S is in %

    def dimension(name: str, own: list) -> Dimension:
        return Dimension(
            benchmark=name,
            dimension=name,
            metric=name,
            scale=None,
            unit=units[name],
            lower_is_better=False,
            roles={},
            references=own,
            paper_unit=paper_unit(units[name], own),
            comparability=Comparability(comparable=False, why="for the test"),
        )

    def results(metric: str, mean: float, slices: dict) -> Results:
        return Results(
            run_id="r",
            task=metric,
            finished_at="2026-01-01T00:00:00+00:00",
            complete=True,
            counts=Counts(total=3, finished=3, ok=3, failed=0, unscored=0),
            headline=metric,
            metrics={metric: MetricSummary(mean=mean, n_scored=3)},
            slices=slices,
        )

    lw = dimension("longweave", [r for r in refs if r.benchmark == "longweave"])
    rv = dimension("ravel", ravel_refs)
    lw.figures = paper_figures(
        "m",
        Path("."),
        results(
            "longweave",
            0.4,
            {"task": {"cf": {"longweave": MetricSummary(mean=0.4321, ci_low=0.4, ci_high=0.5, n_scored=3)}}},
        ),
        paper_settings().benchmarks["longweave"],
        lw.paper_unit,
        lw.unit,
    )
    rv.figures = paper_figures("m", Path("."), results("judge", 6.5, {}), PaperSetting(), rv.paper_unit, rv.unit)
    assert [(f.slice, f.mean, f.ci_low, f.unit) for f in lw.figures] == [
        ("CF", pytest.approx(43.21), 40.0, "score (0-100)")
    ]
    profile = Profile(size="paper", folder="f", models=["m"], dimensions=[lw, rv], rows=[])
    (lw_tables, lw_why, _), (rv_tables, rv_why, _) = reference_tables(profile)
    (lw_table,) = lw_tables
    cf = lw_table.columns.index("Table 3 Task score: CF")
    assert lw_table.rows[0][0].text == "m (this profile)" and lw_table.rows[0][cf].text == "43.210 [40.000, 50.000]"
    assert lw_table.rows[1][cf].text == "29.67"  # the paper's first model, as printed
    assert "× 100" in lw_why and "× 100" in units_text(lw)
    paper, own = rv_tables
    assert all(row[0].text != "m (this profile)" for row in paper.rows)  # not converted: not set beside them
    assert own.rows[0][2].text == "6.500" and "1-10 judge score" in own.title
    assert "not converted" in rv_why
    assert Profile.model_validate_json(profile.model_dump_json()).dimensions[0].paper_unit.factor == 100.0

"""LongWeave aggregation: cells, averages, failure policies, bootstrap CIs and the plot.

Expected means are computed by hand in the comments.
"""

from __future__ import annotations

import json
import sys

import pytest

from proseval.benchmarks.longweave.aggregate import (
    Outcome,
    aggregate,
    aggregate_official_drop,
    as_outcome,
    score_by_length_png,
)


def records() -> list[dict]:
    return [
        # biog@1k: 0.5, 1.0, an empty answer, a failed call, a judge failure
        {"task": "biog", "length": "1k", "score": 0.5, "status": "ok"},
        {"task": "biog", "length": "1k", "score": 1.0, "status": "ok"},
        {"task": "biog", "length": "1k", "score": None, "status": "empty"},
        {"task": "biog", "length": "1k", "score": None, "status": "failed"},
        {"task": "biog", "length": "1k", "score": None, "status": "unscored"},
        # biog@2k: one sample
        {"task": "biog", "length": "2k", "score": 0.2, "status": "ok"},
        # sr@1k: 0.9 and 0.7
        {"task": "sr", "length": "1k", "score": 0.9, "status": "ok"},
        {"task": "sr", "length": "1k", "score": 0.7, "status": "ok"},
    ]


def test_proseval_policy_scores_empty_as_zero_and_leaves_failed_calls_out():
    report = aggregate(records(), n_bootstrap=0)
    cell = report.cell("biog", "1k")
    # (0.5 + 1.0 + 0) / 3: the empty answer is a model failure (0); the failed call and the
    # unscored sample are infrastructure failures: left out, counted
    assert cell.mean == pytest.approx(0.5)
    assert (cell.n_used, cell.n_ok, cell.n_empty, cell.n_failed, cell.n_unscored) == (3, 2, 1, 1, 1)


def test_one_good_sample_and_one_http_503_is_the_good_samples_score():
    report = aggregate(
        [
            {"task": "kvg", "length": "1k", "score": 1.0, "status": "ok"},
            {"task": "kvg", "length": "1k", "score": None, "status": "failed"},
        ],
        n_bootstrap=0,
    )
    assert report.overall.mean == 1.0 and report.counts["failed"] == 1


def test_official_drop_leaves_empty_and_failed_out():
    report = aggregate_official_drop(records(), n_bootstrap=0)
    cell = report.cell("biog", "1k")
    assert report.policy == "official_drop"
    assert cell.mean == pytest.approx(0.75) and cell.n_used == 2
    assert (cell.n_empty, cell.n_failed, cell.n_unscored) == (1, 1, 1)


def test_task_length_and_overall_averages():
    report = aggregate(records(), n_bootstrap=0)
    # Task/Avg = unweighted mean of the length cells: (0.5 + 0.2) / 2
    assert report.tasks["biog"].mean == pytest.approx(0.35)
    assert report.tasks["biog"].n_cells == 2
    # sample-weighted: (0.5 + 1 + 0 + 0.2) / 4
    assert report.tasks_pooled["biog"].mean == pytest.approx(0.425)
    # Overall/1k = mean over tasks: (0.5 + 0.8) / 2
    assert report.lengths["1k"].mean == pytest.approx(0.65)
    assert report.lengths["2k"].mean == pytest.approx(0.2)
    # Overall/Avg = mean over the three cells, not over the 6 used samples
    assert report.overall.mean == pytest.approx((0.5 + 0.2 + 0.8) / 3)
    assert report.overall.n_cells == 3 and report.overall.n_samples == 6
    assert report.counts == {
        "samples": 8,
        "ok": 5,
        "empty": 1,
        "failed": 1,
        "unscored": 1,
    }


def test_official_drop_averages():
    report = aggregate_official_drop(records(), n_bootstrap=0)
    # cells: biog@1k 0.75, biog@2k 0.2, sr@1k 0.8
    assert report.tasks["biog"].mean == pytest.approx(0.475)
    assert report.overall.mean == pytest.approx((0.75 + 0.2 + 0.8) / 3)


def test_cell_without_usable_samples_is_skipped():
    data = records() + [
        {"task": "nw", "length": "2k", "score": None, "status": "unscored"},
        {"task": "sr", "length": "2k", "score": None, "status": "failed"},
    ]
    proseval = aggregate(data, n_bootstrap=0)
    assert proseval.cell("nw", "2k").mean is None and proseval.cell("nw", "2k").n_unscored == 1
    assert "nw" in proseval.tasks and proseval.tasks["nw"].mean is None
    # the failed sr@2k call is left out under proseval too: Overall/2k is biog@2k alone
    assert proseval.cell("sr", "2k").mean is None and proseval.cell("sr", "2k").n_failed == 1
    assert proseval.lengths["2k"].mean == pytest.approx(0.2)
    official = aggregate_official_drop(data, n_bootstrap=0)
    # dropped: sr@2k has no sample left, so Overall/2k is biog@2k alone
    assert official.cell("sr", "2k").mean is None
    assert official.lengths["2k"].mean == pytest.approx(0.2)
    assert official.lengths["2k"].n_cells == 1


def test_cells_follow_the_canonical_task_and_length_order():
    data = [
        {"task": "sr", "length": "8k", "score": 1.0},
        {"task": "cf", "length": "2k", "score": 1.0},
        {"task": "sr", "length": "1k", "score": 1.0},
    ]
    report = aggregate(data, n_bootstrap=0)
    assert [(c.task, c.length) for c in report.cells] == [("cf", "2k"), ("sr", "1k"), ("sr", "8k")]
    assert list(report.lengths) == ["1k", "2k", "8k"]


def test_bootstrap_ci_is_seeded_and_brackets_the_mean():
    data = [{"task": "pr", "length": "1k", "score": v / 10} for v in range(11)]
    first = aggregate(data, n_bootstrap=500, seed=3).cell("pr", "1k")
    again = aggregate(data, n_bootstrap=500, seed=3).cell("pr", "1k")
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert first.mean == pytest.approx(0.5)
    assert first.ci_low < first.mean < first.ci_high
    assert 0.0 <= first.ci_low and first.ci_high <= 1.0


def test_bootstrap_of_constant_cells_is_exact():
    data = [{"task": "kvg", "length": "1k", "score": 0.2}] * 4 + [{"task": "kvg", "length": "2k", "score": 0.6}] * 3
    report = aggregate(data, n_bootstrap=200)
    assert report.cell("kvg", "2k").ci_low == pytest.approx(0.6)
    # mean of the cells: (0.2 + 0.6) / 2 in every resample
    assert report.tasks["kvg"].ci_low == pytest.approx(0.4)
    assert report.tasks["kvg"].ci_high == pytest.approx(0.4)
    # pooled: (4 * 0.2 + 3 * 0.6) / 7 in every resample
    assert report.tasks_pooled["kvg"].ci_high == pytest.approx(2.6 / 7)


def test_no_bootstrap_gives_no_interval():
    report = aggregate(records(), n_bootstrap=0)
    assert report.overall.ci_low is None and report.cell("sr", "1k").ci_high is None


def test_outcomes_and_dicts_without_status():
    assert as_outcome({"task": "cf", "length": "1k", "score": 1}) == Outcome("cf", "1k", 1.0, "ok")
    assert as_outcome({"task": "cf", "length": "1k", "score": None}).status == "unscored"
    # a score on a non-ok record is ignored
    assert as_outcome(Outcome("cf", "1k", 0.7, "empty")).score is None


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"task": "cf", "length": "1k", "score": None, "status": "ok"}, "record 1: status 'ok'"),
        ({"task": "cf", "length": "1k", "score": float("nan")}, "record 1: status 'ok'"),
        ({"task": "cf", "length": "1k", "score": 1.0, "status": "done"}, "record 1: status 'done'"),
        ({"length": "1k", "score": 1.0}, "record 1: missing task"),
        ("cf 1k 1.0", "record 1: expected a mapping"),
    ],
)
def test_bad_records_name_the_item(bad, message):
    with pytest.raises(ValueError, match=message):
        aggregate([{"task": "cf", "length": "1k", "score": 1.0}, bad])


def test_report_serialises_to_json():
    text = json.dumps(aggregate(records(), n_bootstrap=50).to_dict())
    assert json.loads(text)["overall"]["n_cells"] == 3


def test_plot_is_png():
    pytest.importorskip("matplotlib")
    png = score_by_length_png(aggregate(records(), n_bootstrap=50))
    assert png is not None and png.startswith(b"\x89PNG")


def test_plot_without_matplotlib_returns_none(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    with pytest.warns(UserWarning, match="matplotlib"):
        assert score_by_length_png(aggregate(records(), n_bootstrap=0)) is None

"""Generic aggregation: means, unscored and failed counts, slices and bootstrap CIs."""

from __future__ import annotations

import pytest

from proseval.core.score import Score
from proseval.runtime.aggregate import Accumulator, bootstrap_ci, epoch_means, mean_tree
from proseval.runtime.records import ScoredSample


def sample(i, value, *, status="ok", lang="en", sub=None):
    scores = {} if status == "error" else {"q": Score(value=value)}
    if sub is not None:
        scores["parts"] = Score(value=sub)
    return ScoredSample(id=str(i), status=status, metadata={"lang": lang}, scores=scores)


def accumulate(samples, keys=()):
    accumulator = Accumulator(keys)
    for s in samples:
        accumulator.add(s)
    return accumulator


def test_unscored_and_failed_are_counted_not_averaged():
    samples = [sample(1, 4.0), sample(2, 8.0), sample(3, None), sample(4, None, status="error")]
    summary = accumulate(samples).metrics()["q"]
    assert summary.mean == 6.0
    assert (summary.n_scored, summary.n_unscored, summary.n_failed) == (2, 1, 1)
    counts = accumulate(samples).counts(total=5)
    assert (counts.total, counts.finished, counts.ok, counts.failed, counts.unscored) == (5, 4, 3, 1, 1)


def test_dict_scores_are_flattened():
    samples = [sample(1, 1.0, sub={"a": 1.0, "b": None}), sample(2, 0.0, sub={"a": 0.0, "b": 0.5})]
    summary = accumulate(samples).metrics()
    assert summary["parts.a"].mean == 0.5
    assert summary["parts.b"].mean == 0.5 and summary["parts.b"].n_unscored == 1


def test_slices():
    samples = [sample(1, 1.0, lang="en"), sample(2, 3.0, lang="en"), sample(3, 10.0, lang="zh")]
    tables = accumulate(samples, ["lang"]).slice_tables()
    assert tables["lang"]["en"]["q"].mean == 2.0 and tables["lang"]["zh"]["q"].mean == 10.0


def test_bootstrap_ci_contains_the_mean_and_is_reproducible():
    values = [float(i % 10) for i in range(200)]
    low, high = bootstrap_ci(values, seed=1)
    assert low < 4.5 < high and high - low < 1.5
    assert (low, high) == bootstrap_ci(values, seed=1)
    assert bootstrap_ci([]) == (None, None)
    assert bootstrap_ci([3.0]) == (None, None)  # one value: no interval
    assert bootstrap_ci([5.0] * 50) == pytest.approx((5.0, 5.0))


def test_bootstrap_ci_does_not_depend_on_the_order_samples_finished_in():
    values = [float((i * 7) % 10) for i in range(60)]
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(list(reversed(values)), seed=3)
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(sorted(values), seed=3)


def test_epoch_means_average_each_sample_over_its_epochs():
    samples = [ScoredSample(id="a", epoch=e, status="ok", scores={"q": Score(value=v)}) for e, v in enumerate([1, 3])]
    samples += [
        ScoredSample(id="b", epoch=0, status="ok", scores={"q": Score(value=None)}),
        ScoredSample(id="b", epoch=1, status="error"),
    ]
    means = {s.id: s for s in epoch_means(samples)}
    assert means["a"].scores["q"].value == 2.0
    assert means["b"].status == "ok" and means["b"].scores["q"].value is None


def test_mean_tree_averages_numbers_and_keeps_the_rest():
    trees = [
        {"x": 1, "label": "a", "flag": True, "rows": [{"v": 2}], "gap": None},
        {"x": 3, "label": "b", "flag": False, "rows": [{"v": 4}], "gap": 5},
    ]
    assert mean_tree(trees) == {"x": 2.0, "label": "a", "flag": True, "rows": [{"v": 3.0}], "gap": 5.0}

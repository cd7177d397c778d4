"""Bootstrap intervals of the judge statistics: each resample's value checked against the scalar
statistics (scipy, the krippendorff package, hand formulas), coverage on planted data, and no
interval where one cannot be given."""

import numpy as np
import pytest

from proseval.core.ratings import Scale
from proseval.reliability.card import Interval
from proseval.reliability.judge_pairs import pair_stats
from proseval.reliability.render import pct_ci, stats_cells, with_ci
from proseval.reliability.stats import agreement, alpha, bootstrap, correlation, length, pairs, position


def _draws(n: int, resamples: int, seed: int) -> np.ndarray:
    """The index rows `bootstrap` draws (one block)."""
    return np.random.Generator(np.random.PCG64(seed)).integers(0, n, size=(resamples, n))


def _percentile(values, confidence=0.95):
    kept = np.array([v for v in values if v is not None], dtype=float)
    tail = (1 - confidence) / 2
    return tuple(np.quantile(kept, [tail, 1 - tail])), kept.size


def _scores(n=120, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 11, n).astype(float)
    return a, np.clip(a + rng.integers(-3, 4, n), 1, 10)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_pair_intervals_are_the_percentiles_of_the_scalar_statistics_per_resample(level):
    a, b = _scores()
    order = np.lexsort((b, a))
    a, b = a[order], b[order]  # pair_intervals sorts the pairs: the same draws then pick the same items
    rows = _draws(a.size, 300, 5)
    reference = {
        "spearman": [correlation.spearman(a[r], b[r]) for r in rows],
        "kendall_tau_b": [correlation.kendall_tau_b(a[r], b[r]) for r in rows],
        "pearson": [correlation.pearson(a[r], b[r]) for r in rows],
        "weighted_kappa": [agreement.weighted_kappa(a[r], b[r], 1, 10) for r in rows],
        "alpha": [alpha.krippendorff_alpha([a[r], b[r]], level) for r in rows],
    }
    found = pairs.pair_intervals(a, b, low=1, high=10, level=level, resamples=300, seed=5)
    assert list(found) == list(pairs.PAIR_STATISTICS)
    for name, values in reference.items():
        (low, high), valid = _percentile(values)
        assert (found[name].low, found[name].high) == pytest.approx((low, high), abs=1e-9), name
        assert found[name].valid == valid == 300


@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_many_distinct_values_take_the_per_resample_path_and_agree_with_the_table(monkeypatch, level):
    a, b = _scores(80, seed=3)
    table = pairs.pair_intervals(a, b, low=1, high=10, level=level, resamples=150, seed=2)
    monkeypatch.setattr(pairs, "_TABLE_VALUES", 0)
    each = pairs.pair_intervals(a, b, low=1, high=10, level=level, resamples=150, seed=2)
    for name in pairs.PAIR_STATISTICS:
        assert (each[name].low, each[name].high) == pytest.approx((table[name].low, table[name].high), abs=1e-9)


def test_pair_intervals_do_not_depend_on_the_order_of_items_and_kappa_needs_the_scale():
    a, b = _scores(60, seed=4)
    order = np.random.default_rng(1).permutation(60)
    assert pairs.pair_intervals(a[order], b[order]) == pairs.pair_intervals(a, b)
    assert "weighted_kappa" not in pairs.pair_intervals(a, b)
    assert "weighted_kappa" not in pairs.pair_intervals(a + 0.5, b, low=1, high=11)  # not integers


def test_pearson_interval_covers_the_planted_correlation():
    # a uniform on 1..5 (variance 2), b = a + noise uniform on -1, 0, 1 (variance 2/3):
    # r = 2 / sqrt(2 * (2 + 2/3)) = 0.866 in the population.
    rho, covered = 2 / np.sqrt(2 * (2 + 2 / 3)), 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        a = rng.integers(1, 6, 150).astype(float)
        found = pairs.pair_intervals(a, a + rng.integers(-1, 2, 150), resamples=400, seed=seed)["pearson"]
        covered += found.low <= rho <= found.high
    assert covered >= 51  # 95 % nominal; 60 datasets: at least 85 %


def test_single_item_and_undefined_statistics_have_no_interval():
    single = pairs.pair_intervals([3], [4], low=1, high=10)
    assert all(i.low is None and i.high is None and i.note == "n = 1: no interval" for i in single.values())
    constant = pairs.pair_intervals([5] * 20, list(range(1, 11)) * 2)
    assert constant["spearman"].low is None and constant["spearman"].valid == 0
    assert constant["spearman"].note == "defined in 0 of 1000 resamples (under 100)"
    few = bootstrap.bootstrap(
        lambda rows: np.where(np.arange(rows.shape[0]) < 50, 1.0, np.nan)[:, None], 10, resamples=1000
    )
    assert few[0].low is None and few[0].valid == 50


def test_mean_difference_of_one_pair_has_no_interval_and_the_card_shows_a_dash():
    found = pair_stats([4.0], [6.0], Scale(kind="ordinal", low=1, high=10))
    assert found.n == 1 and found.mean_difference == -2 and found.ci_low is None and found.ci_high is None
    assert all(i.low is None and i.note.startswith("n = 1") for i in found.intervals.values())
    cells = stats_cells(found)
    assert cells[0] == "1" and cells[-1] == "—" and "[" not in "".join(cells)


def test_length_slope_interval_is_the_percentile_of_refitted_slopes():
    rng = np.random.default_rng(2)
    groups = [f"p{i // 3}" for i in range(90)]
    lengths = rng.integers(50, 2000, 90)
    scores = 5 + 0.8 * np.log2(lengths) + rng.normal(0, 1, 90) + np.repeat(rng.normal(0, 2, 30), 3)
    rows = _draws(90, 300, 7)
    slopes = [length.length_slope(scores[r], lengths[r], [f"{groups[i]}" for i in r]).slope for r in rows]
    (low, high), valid = _percentile(slopes)
    found = length.length_slope_interval(scores, lengths, groups, resamples=300, seed=7)
    assert (found.low, found.high, found.valid) == pytest.approx((low, high, valid), abs=1e-9)
    assert found.low <= 0.8 <= found.high


def test_length_beta_interval_refits_the_length_controlled_beta():
    rng = np.random.default_rng(3)
    n = 60
    groups = [f"s{i // 2}" for i in range(n)]
    systems = ["short", "long"] * (n // 2)
    lengths = np.where(np.array(systems) == "long", 400, 100) * rng.uniform(0.5, 2, n)
    scores = 1.5 * np.log2(lengths) + (np.array(systems) == "long") * 1.0 + rng.normal(0, 0.5, n)
    rows = _draws(n, 200, 1)
    betas = [
        length.length_controlled_means(scores[r], lengths[r], [groups[i] for i in r], [systems[i] for i in r]).beta
        for r in rows
    ]
    (low, high), valid = _percentile(betas)
    found = length.length_beta_interval(scores, lengths, groups, systems, resamples=200, seed=1)
    assert (found.low, found.high, found.valid) == pytest.approx((low, high, valid), abs=1e-9)
    assert found.low <= 1.5 <= found.high


def test_flip_rate_and_self_preference_intervals():
    first = [1.0] * 100
    swapped = [1.0] * 80 + [2.0] * 20
    flips = position.share_changed_interval(first, swapped, resamples=500, seed=3)
    changed = (np.array(swapped) != 1.0).astype(float)
    (low, high), _ = _percentile(changed[_draws(100, 500, 3)].mean(axis=1))
    assert (flips.low, flips.high) == pytest.approx((low, high)) and flips.low <= 0.2 <= flips.high

    rng = np.random.default_rng(4)
    gaps = np.concatenate([rng.normal(0.5, 1, 60), rng.normal(0, 1, 140)])
    own = [True] * 60 + [False] * 140
    rows = _draws(200, 500, 6)
    flags = np.array(own)
    by_hand = [gaps[r][flags[r]].mean() - gaps[r][~flags[r]].mean() for r in rows]
    (low, high), _ = _percentile(by_hand)
    found = bootstrap.gap_difference_interval(gaps, own, resamples=500, seed=6)
    assert (found.low, found.high) == pytest.approx((low, high), abs=1e-12)
    assert found.low <= 0.5 <= found.high


def test_figures_are_shown_with_their_interval():
    assert with_ci(0.712, Interval(low=0.62, high=0.79, resamples=1000)) == "0.71 [0.62, 0.79]"
    assert with_ci(0.712, Interval(note="n = 1: no interval")) == "0.71"
    assert with_ci(-0.5, Interval(low=-0.9, high=-0.1), signed=True) == "-0.50 [-0.90, -0.10]"
    assert pct_ci(0.12, Interval(low=0.098, high=0.141)) == "12.0 % [9.8, 14.1]"


def test_length_slope_interval_resamples_an_answers_verdicts_together():
    """Five verdicts per answer share its length: the interval refits the slope on answers drawn
    whole (as a by-hand cluster bootstrap does), and is wider than one drawing verdicts alone."""
    rng = np.random.default_rng(4)
    answers = 24
    lengths = np.repeat(rng.integers(50, 2000, answers), 5)
    scores = np.repeat(rng.integers(4, 8, answers), 5).astype(float)  # quality independent of length
    unit = [i // 5 for i in range(answers * 5)]
    groups = ["run"] * (answers * 5)
    draws = _draws(answers, 300, 5)
    slopes = []
    for drawn in draws:
        rows = [5 * a + j for a in drawn for j in range(5)]
        slopes.append(length.length_slope(scores[rows], lengths[rows], ["run"] * len(rows)).slope)
    (low, high), valid = _percentile(slopes)
    found = length.length_slope_interval(scores, lengths, groups, unit, resamples=300, seed=5)
    assert (found.low, found.high, found.valid) == pytest.approx((low, high, valid), abs=1e-9)
    alone = length.length_slope_interval(scores, lengths, groups, resamples=300, seed=5)
    assert found.high - found.low > 1.8 * (alone.high - alone.low)

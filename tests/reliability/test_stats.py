"""The judge-reliability statistics against hand-computed tiny cases, the libraries, and planted effects."""

from __future__ import annotations

import math

import numpy as np
import pytest

from proseval.reliability.stats import agreement, alpha, bootstrap, correlation, inputs, length, position

nan = float("nan")


# --- pairing -------------------------------------------------------------------------------------


def test_paired_drops_a_pair_when_either_value_is_missing():
    a, b = inputs.paired([1, None, 3, nan, 5], [2, 2, None, 4, 6])
    assert a.tolist() == [1.0, 5.0] and b.tolist() == [2.0, 6.0]


def test_paired_rejects_sequences_of_different_lengths():
    with pytest.raises(ValueError):
        inputs.paired([1, 2], [1, 2, 3])


# --- correlations --------------------------------------------------------------------------------


def test_correlations_without_ties_by_hand():
    x, y = [1, 2, 3, 4, 5], [2, 1, 4, 3, 5]
    # Spearman: ranks = values, d = [-1, 1, -1, 1, 0], sum d^2 = 4: 1 - 6*4 / (5*24) = 0.8.
    assert correlation.spearman(x, y) == pytest.approx(0.8)
    # Kendall: 10 pairs, discordant (1,2) and (3,4): (8 - 2) / 10 = 0.6.
    assert correlation.kendall_tau_b(x, y) == pytest.approx(0.6)
    # Pearson: deviations from 3, sum dx*dy = 2 + 2 + 0 + 0 + 4 = 8, sum dx^2 = sum dy^2 = 10: 0.8.
    assert correlation.pearson(x, y) == pytest.approx(0.8)


def test_correlations_with_ties_by_hand():
    x, y = [1, 1, 2, 3], [1, 2, 2, 3]
    # tau-b: 6 pairs, C = 4, D = 0, one pair tied in x only, one tied in y only:
    # (4 - 0) / sqrt((6 - 1) * (6 - 1)) = 0.8.
    assert correlation.kendall_tau_b(x, y) == pytest.approx(0.8)
    # Spearman on midranks x = [1.5, 1.5, 3, 4], y = [1, 2.5, 2.5, 4] (means 2.5):
    # dx = [-1, -1, .5, 1.5], dy = [-1.5, 0, 0, 1.5]; 3.75 / sqrt(4.5 * 4.5) = 0.8333.
    assert correlation.spearman(x, y) == pytest.approx(3.75 / 4.5)


def test_correlations_match_scipy_on_the_complete_pairs():
    from scipy import stats as scipy_stats  # here, not at collection: scipy.stats takes about 0.5 s to import

    rng = np.random.default_rng(3)
    x = rng.integers(1, 11, size=60).astype(float)
    y = np.clip(x + rng.integers(-2, 3, size=60), 1, 10)
    x[[4, 9]] = nan
    y[[9, 20]] = nan
    keep = ~(np.isnan(x) | np.isnan(y))
    assert keep.sum() == 57
    xs = [None if math.isnan(v) else v for v in x]  # None and NaN are both missing
    assert correlation.spearman(xs, y) == pytest.approx(scipy_stats.spearmanr(x[keep], y[keep]).statistic)
    assert correlation.kendall_tau_b(xs, y) == pytest.approx(scipy_stats.kendalltau(x[keep], y[keep]).statistic)
    assert correlation.pearson(xs, y) == pytest.approx(scipy_stats.pearsonr(x[keep], y[keep]).statistic)


@pytest.mark.parametrize("func", [correlation.spearman, correlation.kendall_tau_b, correlation.pearson])
def test_correlations_are_none_when_undefined(func):
    assert func([3, 3, 3], [1, 2, 3]) is None  # constant rater
    assert func([1, 2, 3], [7, 7, 7]) is None
    assert func([1], [2]) is None  # one pair
    assert func([1, None, 3], [None, 2, 4]) is None  # one complete pair left
    assert func([], []) is None
    assert func([1, 2], [1, 3]) == pytest.approx(1.0)  # two pairs suffice


# --- absolute agreement --------------------------------------------------------------------------


def test_exact_and_within_one_by_hand():
    x, y = [1, 2, 3, 4, None], [1, 3, 5, 4, 2]
    # pairs (1,1) (2,3) (3,5) (4,4): |diff| = 0, 1, 2, 0.
    assert agreement.exact_agreement(x, y) == pytest.approx(2 / 4)
    assert agreement.within_one(x, y) == pytest.approx(3 / 4)
    assert agreement.exact_agreement([None], [1]) is None
    assert agreement.within_one([], []) is None


# --- weighted kappa ------------------------------------------------------------------------------


def kappa_by_double_loop(x, y, power):
    """Kappa straight from the definition: observed mean disagreement over the items, expected
    mean disagreement over every (x_i, y_j) combination (= the product of the marginals)."""

    def w(a, b):
        return float(a != b) if power == 0 else abs(a - b) ** power

    n = len(x)
    observed = sum(w(x[i], y[i]) for i in range(n)) / n
    expected = sum(w(x[i], y[j]) for i in range(n) for j in range(n)) / n**2
    return 1 - observed / expected


def test_weighted_kappa_by_hand():
    x, y = [1, 2, 3, 1], [1, 3, 3, 2]  # scale 1..3
    # marginals x: [.5, .25, .25], y: [.25, .25, .5]; items (1,1) (2,3) (3,3) (1,2).
    # none: p_o = .5, p_e = .5*.25 + .25*.25 + .25*.5 = .3125; 1 - .5/.6875 = 3/11.
    assert agreement.weighted_kappa(x, y, 1, 3, weights="none") == pytest.approx(3 / 11)
    # linear, w = |i-j|/2: observed .25*.5 * 2 = .25; expected .0625 + .25 + .03125 + .0625
    # + .0625 + .03125 = .5; 1 - .25/.5 = .5.
    assert agreement.weighted_kappa(x, y, 1, 3, weights="linear") == pytest.approx(0.5)
    # quadratic, w = (|i-j|/2)^2: observed .25*.25 * 2 = .125; expected .03125 + .25 + .015625
    # + .03125 + .0625 + .015625 = .40625; 1 - .125/.40625 = 9/13.
    assert agreement.weighted_kappa(x, y, 1, 3) == pytest.approx(9 / 13)


def test_binary_cohen_kappa_by_hand():
    # agreement 4/6; both raters say 1 half the time: p_e = .5; (2/3 - .5) / .5 = 1/3.
    kappa = agreement.weighted_kappa([1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 1, 1], 0, 1, weights="none")
    assert kappa == pytest.approx(1 / 3)


@pytest.mark.parametrize(("weights", "power"), [("none", 0), ("linear", 1), ("quadratic", 2)])
def test_weighted_kappa_matches_the_double_loop(weights, power):
    rng = np.random.default_rng(11)
    x = rng.integers(1, 11, size=40)
    y = np.clip(x + rng.integers(-3, 4, size=40), 1, 10)
    x[0], y[0] = 1, 10  # gaps between used categories must count by value, not by category index
    assert agreement.weighted_kappa(x, y, 1, 10, weights) == pytest.approx(kappa_by_double_loop(x, y, power))


def test_weighted_kappa_uses_the_scale_distances_not_the_observed_categories():
    # Only 1, 2 and 10 are used; 2 vs 10 must weigh (8/9)^2, not as neighbours.
    x, y = [1, 2, 10, 2, 1], [2, 10, 10, 2, 1]
    assert agreement.weighted_kappa(x, y, 1, 10) == pytest.approx(kappa_by_double_loop(x, y, 2))


def test_weighted_kappa_degenerate_cases():
    assert agreement.weighted_kappa([5, 5, 5], [5, 5, 5], 1, 10) is None  # no expected disagreement
    # One rater constant on another value: observed = expected disagreement, kappa = 0.
    assert agreement.weighted_kappa([5, 5, 5], [6, 6, 6], 1, 10) == pytest.approx(0.0)
    assert agreement.weighted_kappa([5, 5, 5, 5], [4, 5, 6, 5], 1, 10) == pytest.approx(0.0)
    assert agreement.weighted_kappa([5], [6], 1, 10) is None  # one pair
    assert agreement.weighted_kappa([5, None, nan], [None, 6, 7], 1, 10) is None  # no pair


def test_weighted_kappa_rejects_programmer_errors():
    with pytest.raises(ValueError):
        agreement.weighted_kappa([1, 2], [1, 2], 1, 10, weights="cubic")  # type: ignore[arg-type]  # a wrong value, on purpose
    with pytest.raises(ValueError):
        agreement.weighted_kappa([1, 11], [1, 2], 1, 10)  # outside the declared scale
    with pytest.raises(ValueError):
        agreement.weighted_kappa([1, 2.5], [1, 2], 1, 10)  # not an integer category
    with pytest.raises(ValueError):
        agreement.weighted_kappa([1, 2], [1, 2, 3], 1, 10)


def test_score_agreement_bundles_the_pairwise_statistics():
    x, y = [1, 2, 3, 1, None], [1, 3, 3, 2, 2]
    summary = agreement.score_agreement(x, y, low=1, high=3)
    assert summary.n == 4
    assert summary.quadratic_kappa == pytest.approx(9 / 13)
    assert summary.spearman == correlation.spearman(x, y) and summary.kendall_tau_b == correlation.kendall_tau_b(x, y)
    assert summary.pearson == correlation.pearson(x, y) and summary.exact == pytest.approx(0.5)
    assert summary.within_one == pytest.approx(1.0)
    assert agreement.score_agreement(x, y).quadratic_kappa is None  # no scale, no kappa


# --- Krippendorff's alpha ------------------------------------------------------------------------

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the example with 4 observers
# x 12 units and missing values (also in the krippendorff package's docstring).
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


@pytest.mark.parametrize(
    ("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)]
)
def test_krippendorff_alpha_reproduces_the_published_example(level, published):
    assert round(alpha.krippendorff_alpha(KRIPPENDORFF_2011, level), 3) == published
    # Empty categories change nothing, also for ordinal ranks.
    assert round(alpha.krippendorff_alpha(KRIPPENDORFF_2011, level, value_domain=range(1, 11)), 3) == published


def test_krippendorff_alpha_by_hand_ignores_unpaired_values():
    # Units with two ratings: (1,1) (1,2) (2,2) (2,2); unit 5 has one rating and is not pairable.
    # Coincidences o11 = 2, o12 = o21 = 1, o22 = 4; n1 = 3, n2 = 5, n = 8.
    # alpha = 1 - (n - 1) * (o12 + o21) / (2 * n1 * n2) = 1 - 7*2/30 = 8/15 (1 vs 2 is distance 1
    # for nominal and interval alike).
    matrix = [[1, 1, 2, 2, 5], [1, 2, 2, 2, None]]
    assert alpha.krippendorff_alpha(matrix, "nominal") == pytest.approx(8 / 15)
    assert alpha.krippendorff_alpha(matrix, "interval") == pytest.approx(8 / 15)


def test_krippendorff_alpha_is_none_when_undefined():
    assert alpha.krippendorff_alpha([[3, 3, 3], [3, 3, 3]], "interval") is None  # package raises
    assert alpha.krippendorff_alpha([[3, 3, 3], [3, 3, 3]], "ordinal", value_domain=range(1, 11)) is None  # NaN
    assert alpha.krippendorff_alpha([[3, 3, 1], [3, 3, None]]) is None  # variation only in an unpaired value
    assert alpha.krippendorff_alpha([[1, None], [None, 2]]) is None  # no unit rated twice
    assert alpha.krippendorff_alpha([[1, 2, 3]]) is None  # one rater
    assert alpha.krippendorff_alpha([[7], [8]]) is None  # one item: alpha would be 0 whatever the values
    assert alpha.krippendorff_alpha([[7, None], [8, 3], [2, None]], "ordinal") is None  # one item rated twice
    assert alpha.krippendorff_alpha([]) is None
    assert alpha.krippendorff_alpha([[1, 2, 3], [1, 2, 3]]) == pytest.approx(1.0)


def test_pairable_units_are_those_rated_twice():
    assert alpha.pairable_units([[1, 2, None, 4], [1, None, None, 5], [None, 3, 3, None]]) == 3
    assert alpha.pairable_units([[1, None], [None, 2]]) == 0 and alpha.pairable_units([]) == 0


def test_krippendorff_alpha_rejects_programmer_errors():
    with pytest.raises(ValueError):
        alpha.krippendorff_alpha(KRIPPENDORFF_2011, "likert")  # type: ignore[arg-type]  # a wrong level, on purpose
    with pytest.raises(ValueError):
        alpha.krippendorff_alpha([[1, 2, 3], [1, 2]])  # ragged: which unit is missing?
    with pytest.raises(ValueError):
        alpha.krippendorff_alpha([[1, 2, 11], [1, 2, 3]], "ordinal", value_domain=range(1, 11))


def test_interval_alpha_in_closed_form_equals_the_package(monkeypatch):
    rng = np.random.default_rng(5)
    data = np.round(rng.normal(5, 2, size=(3, 40)) + rng.normal(0, 2, size=40), 1)
    data[rng.random(data.shape) < 0.25] = nan
    via_package = alpha.krippendorff.alpha(data, level_of_measurement="interval")
    monkeypatch.setattr(alpha, "_PATTERN_CELLS", 0)
    monkeypatch.setattr(alpha, "_KRIPPENDORFF_CELLS", 0)  # force the closed form
    assert alpha.krippendorff_alpha(data, "interval") == pytest.approx(via_package, abs=1e-12)
    assert round(alpha.krippendorff_alpha(KRIPPENDORFF_2011, "interval"), 3) == 0.849


def test_interval_alpha_on_many_distinct_values_takes_the_linear_closed_form(monkeypatch):
    rng = np.random.default_rng(6)
    truth = rng.normal(size=3000)
    data = truth + rng.normal(0, 1, size=(4, 3000))  # reliability = 1 / (1 + 1) = 0.5

    def cubic(*args, **kwargs):  # 3,000 units x 12,000 values x 12,000 values: far too big to build
        raise AssertionError("the package's units x values x values array was built")

    def dense(*args, **kwargs):  # 3,000 units x 12,000 values of counts (288 MB) for patterns never used
        raise AssertionError("the units x values counts were built")

    monkeypatch.setattr(alpha.krippendorff, "alpha", cubic)
    monkeypatch.setattr(alpha, "_patterns", dense)
    assert alpha.krippendorff_alpha(data) == pytest.approx(0.5, abs=0.05)
    units, resampling = alpha.alpha_resampling(data)
    assert units == 3000 and resampling.counting  # the closed form, resampled by counts


# --- mean difference with a paired bootstrap -----------------------------------------------------


def test_mean_difference_by_hand_and_deterministic():
    x, y = [3, 5, 4, None], [1, 4, 4, 2]  # differences 2, 1, 0: mean 1
    first = bootstrap.mean_difference(x, y, seed=1)
    assert first.mean == pytest.approx(1.0) and first.n == 3
    assert 0 <= first.low <= 1 <= first.high <= 2  # resampled means stay within the differences
    assert bootstrap.mean_difference(x, y, seed=1) == first


def test_mean_difference_does_not_depend_on_the_order_of_items():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=30), rng.normal(size=30)
    order = rng.permutation(30)
    assert bootstrap.mean_difference(x[order], y[order]) == bootstrap.mean_difference(x, y)
    assert bootstrap.mean_difference(x, y, seed=1) != bootstrap.mean_difference(x, y)  # the seed does drive the draws


def test_mean_difference_bootstrap_is_the_percentile_interval_of_resampled_means():
    diffs = np.sort(np.random.default_rng(8).normal(0.3, 1, size=50))
    rng = np.random.Generator(np.random.PCG64(4))
    means = diffs[rng.integers(0, 50, size=(500, 50))].mean(axis=1)
    low, high = np.quantile(means, [0.05, 0.95])
    result = bootstrap.mean_difference(diffs, np.zeros(50), resamples=500, seed=4, confidence=0.9)
    assert (result.low, result.high) == pytest.approx((low, high), abs=1e-12)


def test_mean_difference_in_blocks_equals_one_block(monkeypatch):
    x = np.random.default_rng(9).normal(size=300)
    whole = bootstrap.mean_difference(x, np.zeros(300), resamples=1000, seed=2)
    monkeypatch.setattr(bootstrap, "BLOCK", 7 * 300)  # 7 resamples a block, the last one short
    assert bootstrap.mean_difference(x, np.zeros(300), resamples=1000, seed=2) == whole


def test_mean_difference_interval_contains_the_mean_and_shrinks_with_n():
    rng = np.random.default_rng(10)
    widths = []
    for n in (25, 400):
        x, y = rng.normal(0.5, 1, size=n), rng.normal(0, 1, size=n) * 0.1
        result = bootstrap.mean_difference(x, y)
        assert result.low < result.mean < result.high
        widths.append(result.high - result.low)
    assert widths[1] < widths[0] / 2  # width ~ 1/sqrt(n): ratio ~4, less the noise of a small sample
    assert widths[1] == pytest.approx(2 * 1.96 * 1.005 / 20, rel=0.15)  # sd of x - y ~ 1.005


def test_mean_difference_degenerate_cases_and_errors():
    assert bootstrap.mean_difference([None], [1]) == bootstrap.MeanDifference(None, None, None, 0, 0.95)
    assert bootstrap.mean_difference([3, None], [1, 2]) == bootstrap.MeanDifference(2.0, None, None, 1, 0.95)
    constant = bootstrap.mean_difference([2, 2, 2], [1, 1, 1])
    assert (constant.mean, constant.low, constant.high) == (1.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        bootstrap.mean_difference([1, 2], [1, 2], confidence=95)
    with pytest.raises(ValueError):
        bootstrap.mean_difference([1, 2], [1, 2], resamples=0)


def test_mean_difference_on_5000_pairs_brackets_the_mean():
    rng = np.random.default_rng(12)
    x, y = rng.normal(size=5000), rng.normal(size=5000)
    found = bootstrap.mean_difference(x, y, resamples=2000)
    standard_error = float(np.std(x - y, ddof=1)) / np.sqrt(5000)
    assert found.mean == pytest.approx(float(np.mean(x - y)))
    assert found.low < found.mean < found.high and found.n == 5000
    # a percentile interval of a mean of 5,000 draws is close to the normal one (±1.96 standard errors)
    assert found.high - found.low == pytest.approx(2 * 1.96 * standard_error, rel=0.1)


# --- repeats ------------------------------------------------------------------------------------


def test_repeat_consistency_by_hand():
    matrix = [[7, 7, 7], [6, 8, None], [5, None, None], [None, None, None], [4, 5, 6]]
    result = agreement.repeat_consistency(matrix)
    # Items with >= 2 scores: (7,7,7) var 0, (6,8) var 2, (4,5,6) var 1.
    assert result.n_items == 3
    assert result.mean_variance == pytest.approx(1.0)
    assert result.mean_std == pytest.approx((0 + math.sqrt(2) + 1) / 3)
    assert result.share_changed == pytest.approx(2 / 3)
    # Interval alpha, repeats as raters, over the 8 pairable values 7,7,7,6,8,4,5,6:
    # D_o = (0 + (4+4)/1 + (1+4+1)*2/2) / 8 = 14/8; sum v = 50, sum v^2 = 324,
    # D_e = (2*8*324 - 2*50^2) / (8*7) = 184/56; alpha = 1 - (14/8) / (184/56) = 43/92.
    assert result.alpha == pytest.approx(43 / 92)


def test_repeat_consistency_rows_may_differ_in_length():
    assert agreement.repeat_consistency([[6, 8], [4, 5, 6]]) == agreement.repeat_consistency([[6, 8, None], [4, 5, 6]])


def test_repeat_consistency_degenerate_cases():
    empty = agreement.RepeatConsistency(0, None, None, None, None)
    assert agreement.repeat_consistency([]) == empty
    assert agreement.repeat_consistency([[5], [6, None]]) == empty  # no item scored twice
    steady = agreement.repeat_consistency([[5, 5], [7, 7, 7]])
    assert (steady.n_items, steady.mean_variance, steady.share_changed, steady.alpha) == (2, 0.0, 0.0, 1.0)
    flat = agreement.repeat_consistency([[5, 5], [5, 5]])
    assert flat.mean_std == 0.0 and flat.alpha is None  # no variation at all: alpha undefined


# --- system level --------------------------------------------------------------------------------


def test_system_kendall_and_ranking_by_hand():
    a = {"m1": 8.0, "m2": 7.0, "m3": 6.0, "m4": 5.0, "m5": None}
    b = {"m1": 7.5, "m2": 7.9, "m3": 6.0, "m4": 4.0, "m6": 9.0}
    # Shared with values: m1..m4. Only (m1, m2) swaps: (5 - 1) / 6 = 2/3.
    assert correlation.system_kendall(a, b) == pytest.approx(2 / 3)
    assert correlation.ranking(a) == ["m1", "m2", "m3", "m4"]
    assert correlation.ranking(b) == ["m6", "m2", "m1", "m3", "m4"]
    assert correlation.ranking({"x": 1.0, "b": 2.0, "a": 2.0}) == ["a", "b", "x"]  # ties by name
    assert correlation.ranking({"x": 1.0, "y": 2.0, "z": nan}, higher_is_better=False) == ["x", "y"]


def test_system_kendall_is_none_with_fewer_than_two_shared_models():
    assert correlation.system_kendall({"m1": 1.0, "m2": 2.0}, {"m1": 3.0, "m3": 1.0}) is None
    assert correlation.system_kendall({}, {}) is None
    assert correlation.system_kendall({"m1": 1.0, "m2": 1.0}, {"m1": 3.0, "m2": 1.0}) is None  # constant judge


# --- length bias ---------------------------------------------------------------------------------


def test_length_slope_by_hand():
    scores = [5, 6, 8, 2, 2, 9]
    lengths = [0, 2, 4, 8, 16, 100]  # 0 words counts as 1: log2 = 0, 1, 2 | 3, 4 | 6.64
    groups = ["g1", "g1", "g1", "g2", "g2", "g3"]
    # g1: x - mean = -1, 0, 1; y - 19/3 = -4/3, -1/3, 5/3. g2: x - mean = -.5, .5; y - 2 = 0, 0.
    # g3 has one item: nothing. slope = (4/3 + 5/3) / (1 + 1 + .25 + .25) = 3 / 2.5 = 1.2.
    result = length.length_slope(scores, lengths, groups)
    assert result.slope == pytest.approx(1.2) and result.n == 5


def test_length_slope_recovers_a_planted_slope_despite_group_effects():
    rng = np.random.default_rng(13)
    groups = np.repeat(np.arange(150), 4)
    lengths = rng.integers(20, 2000, size=groups.size)
    # Groups that call for long answers also score higher: pooled OLS would overstate the slope.
    group_length = rng.uniform(0, 4, size=150)[groups]
    lengths = (lengths * 2**group_length).astype(int)
    scores = 5 + 0.8 * np.log2(lengths) + 2 * group_length + rng.normal(0, 0.5, size=groups.size)
    result = length.length_slope(scores, lengths, list(groups))
    assert result.slope == pytest.approx(0.8, abs=0.05) and result.n == 600
    pooled = np.polyfit(np.log2(lengths), scores, 1)[0]
    assert pooled > 1.2  # what within-group estimation protects against


def test_length_slope_missing_values_and_degenerate_cases():
    full = length.length_slope([5, 6, 8], [1, 2, 4], ["g", "g", "g"])
    assert length.length_slope([5, 6, 8, None, 3], [1, 2, 4, 8, None], ["g"] * 5) == full
    assert length.length_slope([1, 2], [10, 20], ["a", "b"]) == length.LengthSlope(None, 0)  # single-item groups
    assert length.length_slope([1, 2], [10, 10], ["a", "a"]) == length.LengthSlope(None, 2)  # no length variation
    assert length.length_slope([], [], []) == length.LengthSlope(None, 0)
    with pytest.raises(ValueError):
        length.length_slope([1, 2], [1, 2], ["a"])
    with pytest.raises(ValueError):
        length.length_slope([1, 2], [1, -2], ["a", "a"])


def test_length_controlled_means_by_hand():
    # p1: A 1 word (x=0) scores 1, B 4 words (x=2) scores 3; p2: both 4 words, A 4, B 5.
    # Exact fit of score = g + [B]d + beta*dev: p2 gives d = 1; p1: g1 - beta = 1, g1 + 1 + beta = 3
    # -> beta = .5. Deviations: p1 A -1, B +1, p2 0, 0.
    # A: (1 + .5, 4) -> 2.75 (raw 2.5); B: (3 - .5, 5) -> 3.75 (raw 4).
    result = length.length_controlled_means([1, 3, 4, 5], [1, 4, 4, 4], ["p1", "p1", "p2", "p2"], ["A", "B", "A", "B"])
    assert result.beta == pytest.approx(0.5) and result.n == 4
    assert result.means["A"] == pytest.approx((2.5, 2.75))
    assert result.means["B"] == pytest.approx((4.0, 3.75))


def test_length_controlled_means_remove_a_length_preference():
    rng = np.random.default_rng(14)
    prompts = 300
    quality = rng.normal(6, 1, size=prompts)  # equal for both systems on each prompt
    length_a = 100 * 2 ** rng.uniform(-1, 1, size=prompts)
    length_b = 4 * 100 * 2 ** rng.uniform(-1, 1, size=prompts)  # B writes 4x longer
    groups = [f"p{i}" for i in range(prompts)] * 2
    systems = ["A"] * prompts + ["B"] * prompts
    lengths = np.concatenate([length_a, length_b])
    scores = np.concatenate([quality, quality]) + 1.0 * np.log2(lengths) + rng.normal(0, 0.3, size=2 * prompts)
    result = length.length_controlled_means(scores, lengths, groups, systems)
    (raw_a, lc_a), (raw_b, lc_b) = result.means["A"], result.means["B"]
    assert raw_b - raw_a == pytest.approx(2.0, abs=0.2)  # log2(4) = 2 points from length alone
    assert abs(lc_b - lc_a) < 0.1
    assert result.beta == pytest.approx(1.0, abs=0.05) and result.n == 2 * prompts


def test_length_controlled_means_keep_a_real_quality_gap():
    rng = np.random.default_rng(15)
    prompts = 200
    lengths = 100 * 2 ** rng.uniform(-1, 1, size=2 * prompts)
    systems = ["A"] * prompts + ["B"] * prompts
    scores = np.where(np.array(systems) == "B", 1.0, 0.0) + 0.5 * np.log2(lengths) + rng.normal(0, 0.3, 2 * prompts)
    result = length.length_controlled_means(scores, lengths, [f"p{i}" for i in range(prompts)] * 2, systems)
    assert result.means["B"][1] - result.means["A"][1] == pytest.approx(1.0, abs=0.1)


def test_length_controlled_means_when_length_and_system_are_confounded():
    # B is always exactly 4x longer than A on the same prompt: length and system cannot be separated.
    result = length.length_controlled_means(
        [5, 7, 6, 8], [10, 40, 20, 80], ["p1", "p1", "p2", "p2"], ["A", "B", "A", "B"]
    )
    assert result.beta is None
    assert result.means == {"A": (5.5, None), "B": (7.5, None)}


def test_length_controlled_means_single_system_and_missing_values():
    result = length.length_controlled_means([5, 6, 8, None], [1, 2, 4, 8], ["g"] * 4, ["A"] * 4)
    assert result.beta == pytest.approx(length.length_slope([5, 6, 8], [1, 2, 4], ["g"] * 3).slope)
    assert result.n == 3 and result.means["A"][0] == pytest.approx(19 / 3)
    # With one system the adjustment is zero on average within each group: LC mean = raw mean.
    assert result.means["A"][1] == pytest.approx(19 / 3)


# --- position bias -------------------------------------------------------------------------------


def test_flip_rate_by_hand():
    first = ["A", "A", "B", "tie", "A", None, "B"]
    swapped = ["B", "A", "A", "tie", "tie", "A", "B"]
    # Pairs (dropping the missing one): (A,B) ok, (A,A) flip, (B,A) ok, (tie,tie) ok, (A,tie) flip,
    # (B,B) flip: 3/6 flips; first-shown preferred both times once, second-shown once.
    result = position.flip_rate(first, swapped)
    assert result == position.FlipRate(flip_rate=0.5, first_both=1 / 6, second_both=1 / 6, n=6)
    assert position.flip_rate(["a", " Tie"], ["b", "TIE"]).flip_rate == 0.0  # case and spaces are forgiven


def test_flip_rate_degenerate_cases_and_errors():
    assert position.flip_rate([None], ["A"]) == position.FlipRate(None, None, None, 0)
    with pytest.raises(ValueError):
        position.flip_rate(["A", "C"], ["B", "A"])
    with pytest.raises(ValueError):
        position.flip_rate(["A"], ["B", "A"])


def test_score_shift_by_hand():
    # Pairs (7,7) (8,6) (5,6): changes 0, -2, +1.
    result = position.score_shift([7, 8, 5, None], [7, 6, 6, 3])
    assert result.n == 3 and result.share_changed == pytest.approx(2 / 3)
    assert result.mean_change == pytest.approx(-1 / 3) and result.mean_abs_change == pytest.approx(1.0)
    assert position.score_shift([None], [1]) == position.ScoreShift(None, None, None, 0)


def test_tau_b_counted_pair_by_pair_equals_scipys():
    """Up to a few dozen items tau-b is counted over the pairs directly; ties in either rater and
    both are handled as scipy's variant b does."""
    from scipy import stats as scipy_stats

    from proseval.reliability.stats.correlation import FEW

    rng = np.random.default_rng(11)
    for n in (2, 3, 5, 17, FEW):
        for _ in range(50):
            x = rng.integers(0, 4, n).astype(float)
            y = rng.integers(0, 3, n).astype(float) if n > 3 else rng.normal(size=n)
            if np.ptp(x) == 0 or np.ptp(y) == 0:
                continue
            expected = scipy_stats.kendalltau(x, y, variant="b").statistic
            assert correlation.kendall_tau_b(x, y) == pytest.approx(expected, abs=1e-12)

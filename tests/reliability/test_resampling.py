"""The bootstrap intervals computed from one pass of draws and the counts of each item are the
intervals of the implementation that recomputed every statistic on every resample: the same draws,
and every bound within 1e-12, on planted data (several seeds, missing values, ties, groups of one to
three items). The earlier implementation is kept below as the reference."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest

from proseval.core.ratings import Scale
from proseval.reliability.judge_pairs import pair_stats, pair_stats_both_ways
from proseval.reliability.stats import alpha as alpha_module
from proseval.reliability.stats import bootstrap as B
from proseval.reliability.stats.alpha import alpha_interval
from proseval.reliability.stats.correlation import system_kendall_resampling
from proseval.reliability.stats.length import _length_beta, length_beta_interval, length_slope_interval
from proseval.reliability.stats.pairs import (
    _table_correlation,
    _table_kappa,
    _table_kendall,
    _table_spearman,
    pair_intervals,
    two_rater_resampling,
)

TOLERANCE = 1e-12


# --- the reference: each statistic recomputed on every resample, drawn block by block ---------------


def ref_bootstrap(statistic, n, *, resamples=1000, seed=0, confidence=0.95, min_valid=100, count=1):
    if n < 2:
        return [(None, None, 0, f"n = {n}: no interval")] * count
    rng = np.random.Generator(np.random.PCG64(seed))
    block = max(1, 2_000_000 // n)
    blocks = []
    for start in range(0, resamples, block):
        blocks.append(np.asarray(statistic(rng.integers(0, n, size=(min(block, resamples - start), n))), dtype=float))
    values = np.concatenate(blocks).reshape(resamples, count)
    tail = (1 - confidence) / 2
    found = []
    for column in values.T:
        kept = column[np.isfinite(column)]
        if kept.size < min_valid:
            found.append(
                (None, None, int(kept.size), f"defined in {kept.size} of {resamples} resamples (under {min_valid})")
            )
            continue
        low, high = np.quantile(kept, [tail, 1 - tail])
        found.append((float(low), float(high), int(kept.size), ""))
    return found


def ref_bootstrap_each(statistic, n, *, resamples=1000, seed=0):
    def rows_of(rows):
        return np.array([[np.nan if (value := statistic(row)) is None else value] for row in rows])

    return ref_bootstrap(rows_of, n, resamples=resamples, seed=seed)[0]


def _floats(values):
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _paired(x, y):
    a, b = _floats(x), _floats(y)
    keep = ~(np.isnan(a) | np.isnan(b))
    return a[keep], b[keep]


def ref_mean_interval(values, *, resamples=1000, seed=0, min_valid=1):
    data = _floats(values)
    data = data[~np.isnan(data)]
    return ref_bootstrap(
        lambda rows: data[rows].mean(axis=1)[:, None], data.size, resamples=resamples, seed=seed, min_valid=min_valid
    )[0]


def ref_mean_difference(x, y, *, resamples=2000, seed=0):
    a, b = _paired(x, y)
    diffs = np.sort(a - b)
    if diffs.size == 0:
        return None, None, None, 0
    if diffs.size < 2:
        return float(diffs.mean()), None, None, 1
    low, high, _, _ = ref_mean_interval(diffs, resamples=resamples, seed=seed)
    return float(diffs.mean()), low, high, int(diffs.size)


def ref_gap_difference_interval(gaps, first, *, seed=0):
    g, own = _floats(gaps), np.asarray(first, dtype=bool)

    def statistic(rows):
        values, flags = g[rows], own[rows]
        n_own = flags.sum(axis=1)
        with np.errstate(all="ignore"):
            return ((values * flags).sum(1) / n_own - (values * ~flags).sum(1) / (rows.shape[1] - n_own))[:, None]

    return ref_bootstrap(statistic, g.size, seed=seed)[0]


def ref_ratio_interval(numerators, denominators, *, seed=0):
    top, bottom = _floats(numerators), _floats(denominators)

    def statistic(rows):
        total = bottom[rows].sum(axis=1)
        with np.errstate(all="ignore"):
            return np.where(total > 0, top[rows].sum(axis=1) / total, np.nan)[:, None]

    return ref_bootstrap(statistic, top.size, seed=seed)[0]


def _ref_table_alpha(table, values, level):
    coincidences = table + table.transpose(0, 2, 1)
    counts = coincidences.sum(axis=2)
    total = counts.sum(axis=1)
    if level == "nominal":
        delta = np.broadcast_to(values[:, None] != values[None, :], coincidences.shape).astype(float)
    elif level == "ordinal":
        cum = np.cumsum(counts, axis=1)
        lower = np.arange(values.size)[:, None] <= np.arange(values.size)[None, :]
        span = np.where(
            lower,
            cum[:, None, :] - cum[:, :, None] + counts[:, :, None],
            cum[:, :, None] - cum[:, None, :] + counts[:, None, :],
        )
        delta = (span - (counts[:, :, None] + counts[:, None, :]) / 2) ** 2
    elif level == "interval":
        delta = np.broadcast_to((values[:, None] - values[None, :]) ** 2, coincidences.shape)
    else:
        with np.errstate(all="ignore"):
            ratio = np.nan_to_num(((values[:, None] - values[None, :]) / (values[:, None] + values[None, :])) ** 2)
        delta = np.broadcast_to(ratio, coincidences.shape)
    observed = (coincidences * delta).sum(axis=(1, 2))
    expected = np.einsum("ri,rij,rj->r", counts, delta, counts)
    with np.errstate(all="ignore"):
        return np.where(expected > 0, 1 - (total - 1) * observed / expected, np.nan)


def ref_pair_intervals(x, y, *, low=None, high=None, level="interval", seed=0):
    """The table path (up to 40 distinct values): each resample's table counted from its drawn pairs."""
    a, b = _paired(x, y)
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    both = np.concatenate([a, b])
    kappa = (
        low is not None
        and high is not None
        and bool(np.all(both == np.round(both)))
        and bool(np.all((both >= low) & (both <= high)))
    )
    names = [
        s for s in ("spearman", "kendall_tau_b", "pearson", "weighted_kappa", "alpha") if s != "weighted_kappa" or kappa
    ]
    values = np.unique(both)
    assert values.size <= 40
    k = values.size
    cells = np.searchsorted(values, a) * k + np.searchsorted(values, b)
    weights = None if low is None or high is None else ((values[:, None] - values[None, :]) / max(high - low, 1)) ** 2

    def statistic(rows):
        flat = (np.arange(rows.shape[0])[:, None] * (k * k) + cells[rows]).ravel()
        table = np.bincount(flat, minlength=rows.shape[0] * k * k).reshape(rows.shape[0], k, k).astype(float)
        found = {
            "spearman": _table_spearman(table),
            "kendall_tau_b": _table_kendall(table),
            "pearson": _table_correlation(table, values, values),
            "alpha": _ref_table_alpha(table, values, level),
        }
        if "weighted_kappa" in names:
            found["weighted_kappa"] = _table_kappa(table, weights)
        return np.stack([found[name] for name in names], axis=1)

    return dict(zip(names, ref_bootstrap(statistic, a.size, seed=seed, count=len(names))))


def _ref_alpha(data, level):
    present = ~np.isnan(data)
    pairable = present.sum(axis=0) >= 2
    if pairable.sum() < 2 or np.unique(data[:, pairable][present[:, pairable]]).size < 2:
        return None
    with np.errstate(all="ignore"):
        value = float(krippendorff.alpha(data, level_of_measurement=level))
    return value if math.isfinite(value) else None


def ref_alpha_interval(matrix, level, seed, resamples=1000):
    data = _floats([v for row in matrix for v in row]).reshape(len(matrix), -1)
    data = data[:, (~np.isnan(data)).sum(axis=0) >= 2]
    return ref_bootstrap_each(
        lambda rows: _ref_alpha(data[:, rows], level), data.shape[1], resamples=resamples, seed=seed
    )


def _ref_tau_b(a, b):
    a, b = _paired(a, b)
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    upper = np.triu_indices(a.size, 1)
    dx, dy = np.sign(np.subtract.outer(a, a)[upper]), np.sign(np.subtract.outer(b, b)[upper])
    pairs = dx.size
    untied_x, untied_y = pairs - int(np.count_nonzero(dx == 0)), pairs - int(np.count_nonzero(dy == 0))
    return float(dx @ dy) / math.sqrt(untied_x) / math.sqrt(untied_y)


def ref_system_interval(code, a, b, n_models, seed):
    def means(rows, values):
        counts = np.bincount(code[rows], minlength=n_models)
        sums = np.bincount(code[rows], weights=values[rows], minlength=n_models)
        return {m: float(sums[m] / counts[m]) for m in range(n_models) if counts[m]}

    def tau(rows):
        ma, mb = means(rows, a), means(rows, b)
        shared = sorted(ma.keys() & mb.keys())
        return _ref_tau_b([ma[m] for m in shared], [mb[m] for m in shared])

    return ref_bootstrap_each(tau, a.size, seed=seed)


def _group_demean(values, codes):
    counts = np.bincount(codes).astype(float)
    return values - (np.bincount(codes, weights=values) / counts)[codes]


def _codes(labels):
    index = {}
    return np.array([index.setdefault(label, len(index)) for label in labels], dtype=np.intp)


def ref_length_slope_interval(scores, lengths, groups, units, *, seed=0):
    y, length = _floats(scores), _floats(lengths)
    keep = ~(np.isnan(y) | np.isnan(length))
    index = np.flatnonzero(keep)
    codes = _codes([groups[i] for i in index])
    unit = _codes([units[i] for i in index])
    y, x = y[keep], np.log2(np.maximum(length[keep], 1.0))
    k, m = int(codes.max()) + 1, int(unit.max()) + 1

    def statistic(draws):
        rows = draws.shape[0]
        drawn = np.bincount((np.arange(rows)[:, None] * m + draws).ravel(), minlength=rows * m).reshape(rows, m)
        weight = drawn[:, unit].astype(float)
        flat = (np.arange(rows)[:, None] * k + codes).ravel()

        def sums(values):
            return np.bincount(flat, (weight * values).ravel(), minlength=rows * k).reshape(rows, k)

        count, sx, sy = sums(np.ones_like(x)), sums(x), sums(y)
        with np.errstate(all="ignore"):
            sxx = (weight * x**2).sum(1) - np.nansum(sx**2 / count, axis=1)
            sxy = (weight * x * y).sum(1) - np.nansum(sx * sy / count, axis=1)
            return np.where(sxx > 1e-9, sxy / sxx, np.nan)[:, None]

    return ref_bootstrap(statistic, m, seed=seed)[0]


def ref_length_beta_interval(scores, lengths, groups, systems, *, seed=0):
    y, length = _floats(scores), _floats(lengths)
    keep = ~(np.isnan(y) | np.isnan(length))
    index = np.flatnonzero(keep)
    codes = _codes([groups[i] for i in index])
    system = _codes([systems[i] for i in index])
    y, x = y[keep], np.log2(np.maximum(length[keep], 1.0))
    n_systems = int(system.max()) + 1

    def statistic(rows):
        found = []
        for row in rows:
            drawn = np.unique(codes[row], return_inverse=True)[1]
            beta = _length_beta(y[row], _group_demean(x[row], drawn), drawn, system[row], n_systems)
            found.append(np.nan if beta is None else beta)
        return np.array(found)[:, None]

    return ref_bootstrap(statistic, y.size, seed=seed)[0]


# --- planted data -----------------------------------------------------------------------------------


def _as_tuple(found):
    return (found.low, found.high, found.valid, found.note) if isinstance(found, B.Interval) else found


def _same(found, reference):
    found = _as_tuple(found)
    assert found[2:] == tuple(reference[2:])
    for got, expected in zip(found[:2], reference[:2]):
        assert (got is None) == (expected is None)
        if got is not None:
            assert abs(got - expected) <= TOLERANCE, (got, expected)


def _rater_pair(seed, n, *, missing=0.1, spread=3, averaged=False):
    """Two raters on 1-10 with ties, some verdicts missing; `averaged`: halves too."""
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 11, n).astype(float)
    b = np.clip(a + rng.integers(-spread, spread + 1, n), 1, 10)
    if averaged:
        b = np.clip(b + rng.choice([0.0, 0.5], n), 1, 10)
    x = [None if rng.random() < missing else v for v in a]
    y = [None if rng.random() < missing else v for v in b]
    return x, y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n", [1, 2, 3, 9, 150])
def test_mean_difference_and_the_means_match_the_reference(seed, n):
    x, y = _rater_pair(seed, n, missing=0.1 if n > 3 else 0.0)
    found = B.mean_difference(x, y, seed=seed)
    reference = ref_mean_difference(x, y, seed=seed)
    assert (found.mean, found.n) == (reference[0], reference[3])
    _same((found.low, found.high, 0, ""), (reference[1], reference[2], 0, ""))
    flags = [v is not None and v > 5 for v in x]
    _same(B.mean_interval(flags, seed=seed), ref_mean_interval(flags, seed=seed))


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_pair_intervals_match_the_reference(seed, level):
    for n, averaged in ((2, False), (5, False), (60, False), (200, True)):
        x, y = _rater_pair(seed + n, n, missing=0.0 if n < 5 else 0.1, averaged=averaged)
        found = pair_intervals(x, y, low=1, high=10, level=level, seed=seed)
        reference = ref_pair_intervals(x, y, low=1, high=10, level=level, seed=seed)
        assert list(found) == list(reference)
        for name in found:
            _same(found[name], reference[name])


def test_a_constant_rater_leaves_its_correlations_without_interval_as_before():
    x, y = [7.0] * 30, _rater_pair(4, 30, missing=0.0)[1]
    found, reference = pair_intervals(x, y, low=1, high=10), ref_pair_intervals(x, y, low=1, high=10)
    for name in found:
        _same(found[name], reference[name])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gap_and_ratio_intervals_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    gaps = list(np.round(rng.normal(0.3, 1.0, 80), 1))
    first = list(rng.random(80) < 0.2)
    _same(B.gap_difference_interval(gaps, first, seed=seed), ref_gap_difference_interval(gaps, first, seed=seed))
    same = rng.integers(0, 4, 25).astype(float)
    total = same + rng.integers(0, 3, 25)
    _same(B.ratio_interval(same, total, seed=seed), ref_ratio_interval(same, total, seed=seed))


def _judges(seed, units, raters, *, missing=0.25, continuous=False):
    rng = np.random.default_rng(seed)
    truth = rng.integers(2, 10, units)
    matrix = []
    for _ in range(raters):
        row = np.clip(truth + rng.integers(-1, 2, units), 1, 10).astype(float)
        if continuous:
            row = np.round(row + rng.normal(0, 0.7, units), 2)
        matrix.append([None if rng.random() < missing else float(v) for v in row])
    return matrix


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_group_alpha_interval_matches_the_krippendorff_package_per_resample(seed, level):
    for units, raters in ((3, 2), (40, 3), (25, 4)):
        matrix = _judges(seed + units, units, raters)
        _same(alpha_interval(matrix, level, resamples=400, seed=seed), ref_alpha_interval(matrix, level, seed, 400))


@pytest.mark.parametrize("seed", range(6))
def test_alpha_from_rating_patterns_is_the_krippendorff_package(seed):
    rng = np.random.default_rng(seed)
    matrix = _judges(seed, int(rng.integers(3, 80)), int(rng.integers(2, 6)), missing=0.3)
    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert alpha_module.krippendorff_alpha(matrix, level) == pytest.approx(
            _ref_alpha(_floats([v for row in matrix for v in row]).reshape(len(matrix), -1), level), abs=TOLERANCE
        )


@pytest.mark.parametrize("level", ["interval", "ordinal"])
def test_alpha_interval_past_the_pattern_budget_matches_the_reference(monkeypatch, level):
    # many distinct values: interval alpha in closed form, the other levels one resample at a time
    monkeypatch.setattr(alpha_module, "_PATTERN_CELLS", 0)
    matrix = _judges(7, 30, 3, continuous=True)
    _same(alpha_interval(matrix, level, resamples=300, seed=2), ref_alpha_interval(matrix, level, 2, 300))


def test_alpha_interval_of_verdicts_that_barely_vary_matches_the_reference():
    matrix = [[5.0] * 30, [5.0] * 29 + [6.0], [None] * 10 + [5.0] * 20]
    _same(alpha_interval(matrix, "ordinal", resamples=400, seed=1), ref_alpha_interval(matrix, "ordinal", 1, 400))


def _models(seed, n_models, *, averaged=False):
    """Items of n_models candidates, one to three items each for some, many for others."""
    rng = np.random.default_rng(seed)
    sizes = [int(rng.integers(1, 4)) if m % 2 else int(rng.integers(5, 30)) for m in range(n_models)]
    code = np.repeat(np.arange(n_models), sizes)
    rng.shuffle(code)
    a = rng.integers(3, 9, code.size).astype(float) + code * 0.3 * (not averaged)
    b = np.clip(np.round(a + rng.integers(-2, 3, code.size)), 1, 10)
    if averaged:
        a, b = a + rng.choice([0.0, 1 / 3, 2 / 3], code.size), b + rng.choice([0.0, 0.5], code.size)
    return code, a, b


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("n_models", [2, 3, 5])
@pytest.mark.parametrize("averaged", [False, True])
def test_system_tau_interval_matches_the_reference(seed, n_models, averaged):
    code, a, b = _models(seed, n_models, averaged=averaged)
    wanted = system_kendall_resampling(a, b, code, n_models)
    (found,) = B.bootstrap_together(a.size, [wanted], seed=seed)[0]
    _same(found, ref_system_interval(code, a, b, n_models, seed))


def _lengths(seed, answers, *, missing=0.1):
    """Answers to samples (one to three per sample) with several verdicts each, sharing the answer's length."""
    rng = np.random.default_rng(seed)
    sample = np.repeat(np.arange(answers), rng.integers(1, 4, answers))[:answers]
    words = np.round(np.exp(rng.normal(6, 0.6, answers))).astype(int)
    scores, lengths, groups, units = [], [], [], []
    for answer in range(answers):
        for criterion in range(int(rng.integers(1, 4))):
            value = float(np.clip(round(5 + 0.4 * np.log2(words[answer] / 400) + rng.normal(0, 1.2)), 1, 10))
            scores.append(None if rng.random() < missing else value)
            lengths.append(int(words[answer]))
            groups.append(("run", criterion))
            units.append(answer)
    return scores, lengths, groups, units, sample, words


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_length_slope_interval_matches_the_reference(seed):
    scores, lengths, groups, units, _, _ = _lengths(seed, 40)
    _same(
        length_slope_interval(scores, lengths, groups, units, seed=seed),
        ref_length_slope_interval(scores, lengths, groups, units, seed=seed),
    )
    singles = [(u,) for u in units]  # every unit its own group: no slope in any resample
    _same(
        length_slope_interval(scores, lengths, singles, units, seed=seed),
        ref_length_slope_interval(scores, lengths, singles, units, seed=seed),
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_systems", [1, 2, 3])
def test_length_beta_interval_matches_the_reference(seed, n_systems):
    rng = np.random.default_rng(seed)
    _, _, _, _, sample, words = _lengths(seed, 90)
    systems = [f"m{int(s)}" for s in rng.integers(0, n_systems, sample.size)]
    scores = [
        None if rng.random() < 0.05 else float(np.clip(round(6 + 0.5 * np.log2(w / 400) + rng.normal(0, 1)), 1, 10))
        for w in words
    ]
    groups = [f"s{s}" for s in sample]
    _same(
        length_beta_interval(scores, list(words), groups, systems, seed=seed),
        ref_length_beta_interval(scores, list(words), groups, systems, seed=seed),
    )


def test_length_beta_interval_where_length_is_confounded_with_system_matches_the_reference():
    # two systems, one always 4x longer than the other on every sample: most resamples are undefined
    groups = [f"s{i // 2}" for i in range(40)]
    systems = ["short", "long"] * 20
    lengths = [100 if s == "short" else 400 for s in systems]
    lengths[-1] = 380  # barely identified
    scores = [float(5 + (i % 3)) for i in range(40)]
    _same(
        length_beta_interval(scores, lengths, groups, systems, seed=1),
        ref_length_beta_interval(scores, lengths, groups, systems, seed=1),
    )


def test_draws_of_fewer_resamples_are_the_first_of_more():
    for n in (2, 7, 1001, 3001):  # 3001: blocks of 666 rows, the last of the fewer cut short
        few = np.concatenate(list(B.draws(n, 1000, 4)))
        many = np.concatenate(list(B.draws(n, 2000, 4)))
        assert np.array_equal(few, many[:1000])


def test_statistics_drawn_together_get_the_intervals_they_get_alone():
    x, y = _rater_pair(5, 300)
    both = two_rater_resampling(x, y, low=1, high=10, level="ordinal")
    difference, intervals = both.results(B.bootstrap_together(both.n, both.wanted, seed=3), seed=3)
    alone = B.mean_difference(x, y, seed=3)
    assert (difference.low, difference.high) == pytest.approx((alone.low, alone.high), abs=TOLERANCE)
    assert intervals == pair_intervals(x, y, low=1, high=10, level="ordinal", seed=3)
    # two infinite values differ by no number: the mean difference is resampled apart, as alone
    x[0] = y[0] = math.inf
    with np.errstate(invalid="ignore"):
        both = two_rater_resampling(x, y, low=1, high=10, level="ordinal")
        difference, _ = both.results(B.bootstrap_together(both.n, both.wanted, seed=3), seed=3)
        alone = B.mean_difference(x, y, seed=3)
    assert (difference.low, difference.high, difference.n) == (alone.low, alone.high, alone.n)


def test_a_pair_both_ways_is_each_way_alone():
    x, y = _rater_pair(6, 250)
    scale = Scale(low=1, high=10)
    forth, back, _ = pair_stats_both_ways(x, y, scale, seed=2)
    assert forth == pair_stats(x, y, scale, seed=2)
    assert back == pair_stats(y, x, scale, seed=2)

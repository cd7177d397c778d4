"""The statistics behind "can this judge be trusted": pure functions over plain sequences.

Which one applies depends on what the judge returns:

- Ordinal scores (e.g. 1-10), two raters on the same items (judge vs people, judge vs judge):
  `spearman` and `kendall_tau_b` (rank agreement: does the judge order items the same way),
  `pearson` (linear agreement), `exact_agreement` and `within_one` (absolute agreement on an
  integer scale), `weighted_kappa` (chance-corrected, large disagreements weigh more),
  `mean_difference` (is the judge harsher or more lenient, with a paired bootstrap CI), and
  `score_agreement`, which bundles them with the number of pairs used.
- Binary verdicts (0/1, pass/fail): `exact_agreement` and `weighted_kappa(x, y, 0, 1,
  weights="none")` (Cohen's kappa), `krippendorff_alpha(..., "nominal")`.
- Any number of raters, missing ratings allowed: `krippendorff_alpha` at the level of the scale
  ("nominal" for labels, "ordinal" for ranks and Likert scales, "interval"/"ratio" for numbers).
- The same judge asked several times (sampling noise): `repeat_consistency`.
- System level (does the judge rank the models as people do): `system_kendall`, `ranking`.
- Length bias of pointwise scores: `length_slope`, `length_controlled_means`.
- Position bias: `flip_rate` for pairwise verdicts ("A"/"B"/"tie") under swapped presentation,
  `score_shift` for pointwise scores under swapped presentation.
- Intervals: `bootstrap` (seeded percentile bootstrap over items, vectorised over resamples),
  used by `pair_intervals` (the two-rater statistics, pairs resampled jointly),
  `length_slope_interval`, `length_beta_interval`, `share_changed_interval`,
  `gap_difference_interval` and `mean_interval`.

Conventions: inputs are sequences of numbers where `None` or NaN marks a missing value; pairwise
functions drop a pair when either value is missing. A statistic that is undefined on the data
(fewer than 2 pairs, a constant rater for a correlation, no expected disagreement, ...) comes back
as `None`, never NaN or 0, and never raises: a judge that gives every answer a 7 is a finding, not
a crash. ValueError is kept for programmer errors (mismatched lengths, unknown level names,
values outside a declared scale).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
from scipy import stats as scipy_stats

Values = Sequence[float | None] | np.ndarray
Level = Literal["nominal", "ordinal", "interval", "ratio"]
Weights = Literal["none", "linear", "quadratic"]

LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
WEIGHTS: tuple[str, ...] = ("none", "linear", "quadratic")
VERDICTS: tuple[str, ...] = ("A", "B", "tie")

# Scores are compared with a little slack so 7.0 and 7.000000000001 (float noise from averaging
# or parsing) count as equal; far below any meaningful score difference.
_EQUAL = 1e-9
# The krippendorff package builds a units x values x values array; past this many cells the
# interval level is computed from its closed form instead (same value, linear memory).
_KRIPPENDORFF_CELLS = 4_000_000
# Bootstrap draws are made in blocks of at most this many indices, to bound memory (~16 MB).
_BLOCK = 2_000_000
# A bootstrap interval needs the statistic defined in at least this many resamples.
MIN_VALID = 100


# --- inputs --------------------------------------------------------------------------------------


def _floats(values: Values) -> np.ndarray:
    """A 1-D float array with None turned into NaN (the one missing marker used inside)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiub":
        return values.astype(float).reshape(-1)
    return np.array([np.nan if v is None else v for v in values], dtype=float).reshape(-1)


def paired(x: Values, y: Values) -> tuple[np.ndarray, np.ndarray]:
    """The pairs where both values are present, as two aligned float arrays.

    Raises ValueError if the sequences differ in length: the pairing would be meaningless.
    """
    a, b = _floats(x), _floats(y)
    if a.size != b.size:
        raise ValueError(f"paired sequences differ in length: {a.size} and {b.size}")
    keep = ~(np.isnan(a) | np.isnan(b))
    return a[keep], b[keep]


def _matrix(rows: Sequence[Sequence[float | None]] | np.ndarray, *, ragged: bool) -> np.ndarray:
    """A 2-D float array (NaN = missing). Ragged rows are padded with NaN only when `ragged`."""
    lists = [_floats(row) for row in rows]
    if not lists:
        return np.empty((0, 0))
    width = max(row.size for row in lists)
    if not ragged and any(row.size != width for row in lists):
        raise ValueError("every row of the matrix must have the same length")
    out = np.full((len(lists), width), np.nan)
    for i, row in enumerate(lists):
        out[i, : row.size] = row
    return out


def _finite(value: float) -> float | None:
    """A float, or None for NaN/inf (what libraries return for undefined statistics)."""
    value = float(value)
    return value if math.isfinite(value) else None


def _codes(labels: Sequence[Hashable]) -> tuple[np.ndarray, list[Hashable]]:
    """Integer codes for labels in order of first appearance, and the labels in code order."""
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(label, len(index)) for label in labels], dtype=np.intp)
    return codes, list(index)


def _group_demean(values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Each value minus the mean of its group (`codes`); along the first axis for 2-D values."""
    counts = np.bincount(codes).astype(float)
    if values.ndim == 1:
        return values - (np.bincount(codes, weights=values) / counts)[codes]
    sums = np.zeros((counts.size, values.shape[1]))
    np.add.at(sums, codes, values)
    return values - (sums / counts[:, None])[codes]


# --- correlations and agreement between two raters ----------------------------------------------


def _correlation(x: Values, y: Values, method) -> float | None:
    """Run a scipy correlation on the complete pairs; None if undefined (n < 2, a constant rater)."""
    a, b = paired(x, y)
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _finite(method(a, b))


def spearman(x: Values, y: Values) -> float | None:
    """Spearman's rho: agreement on the ordering of items, insensitive to scale use (ties averaged)."""
    return _correlation(x, y, lambda a, b: scipy_stats.spearmanr(a, b).statistic)


def kendall_tau_b(x: Values, y: Values) -> float | None:
    """Kendall's tau-b: share of concordant minus discordant pairs, corrected for ties, which
    coarse judge scales (1-10) produce in bulk."""
    return _correlation(x, y, _tau_b)


_FEW = 64  # up to this many items, tau-b is counted pair by pair (a scipy call costs more)


def _tau_b(a: np.ndarray, b: np.ndarray) -> float:
    """scipy's tau-b, counted over every pair directly for a few items (a system tau over a handful
    of models is bootstrapped a thousand times)."""
    if a.size > _FEW:
        return scipy_stats.kendalltau(a, b, variant="b").statistic
    upper = np.triu_indices(a.size, 1)
    dx, dy = np.sign(np.subtract.outer(a, a)[upper]), np.sign(np.subtract.outer(b, b)[upper])
    pairs = dx.size
    untied_x, untied_y = pairs - int(np.count_nonzero(dx == 0)), pairs - int(np.count_nonzero(dy == 0))
    return float(dx @ dy) / math.sqrt(untied_x) / math.sqrt(untied_y)


def pearson(x: Values, y: Values) -> float | None:
    """Pearson's r: linear agreement; sensitive to outliers and to how each rater uses the scale."""
    return _correlation(x, y, lambda a, b: scipy_stats.pearsonr(a, b).statistic)


def exact_agreement(x: Values, y: Values) -> float | None:
    """Share of pairs given the same score (integer scales); None if no pairs."""
    a, b = paired(x, y)
    return float(np.mean(np.abs(a - b) <= _EQUAL)) if a.size else None


def within_one(x: Values, y: Values) -> float | None:
    """Share of pairs at most one point apart, the usual tolerance for 1-10 judge scales."""
    a, b = paired(x, y)
    return float(np.mean(np.abs(a - b) <= 1 + _EQUAL)) if a.size else None


def _disagreement_weights(k: int, weights: str) -> np.ndarray:
    """The k x k disagreement weights: 0 on the diagonal, growing with the distance |i - j|."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown kappa weights {weights!r}; expected one of {WEIGHTS}")
    distance = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
    if weights == "none":
        return (distance > 0).astype(float)
    scale = max(k - 1, 1)
    return distance / scale if weights == "linear" else (distance / scale) ** 2


def weighted_kappa(
    x: Values, y: Values, low: int, high: int, weights: Weights = "quadratic"
) -> float | None:
    """Cohen's kappa over the integer categories low..high, weighted by how far apart scores are.

    kappa = 1 - sum(w * observed) / sum(w * expected), with expected = the product of the two
    raters' marginals (chance agreement). The categories come from the declared scale, not from
    the observed values, so a judge that never uses the extremes is compared on the same grid.
    Quadratic weights make it comparable to an intraclass correlation; "linear" weighs by distance;
    "none" is plain Cohen's kappa (use it for binary verdicts). None if fewer than 2 pairs or no
    expected disagreement (both raters constant on one value). Raises ValueError for values that
    are not integers in low..high: the declared scale is wrong.
    """
    if low > high:
        raise ValueError(f"empty scale: low={low} > high={high}")
    a, b = paired(x, y)
    k = int(high) - int(low) + 1
    w = _disagreement_weights(k, weights)
    for values in (a, b):
        if values.size and (np.any(values != np.round(values)) or values.min() < low or values.max() > high):
            raise ValueError(f"kappa needs integer scores in {low}..{high}")
    if a.size < 2:
        return None
    i, j = (a - low).astype(np.intp), (b - low).astype(np.intp)
    observed = np.zeros((k, k))
    np.add.at(observed, (i, j), 1.0)
    observed /= a.size
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    expected_disagreement = float((w * expected).sum())
    if expected_disagreement <= _EQUAL:
        return None
    return 1.0 - float((w * observed).sum()) / expected_disagreement


@dataclass(frozen=True)
class ScoreAgreement:
    """Two raters on the same items: every pairwise statistic, with the number of pairs used."""

    n: int
    spearman: float | None
    kendall_tau_b: float | None
    pearson: float | None
    exact: float | None
    within_one: float | None
    quadratic_kappa: float | None  # None also when no scale was given


def score_agreement(x: Values, y: Values, *, low: int | None = None, high: int | None = None) -> ScoreAgreement:
    """All pairwise agreement statistics at once; kappa only when the scale low..high is given."""
    a, b = paired(x, y)
    kappa = weighted_kappa(a, b, low, high) if low is not None and high is not None else None
    return ScoreAgreement(
        n=int(a.size),
        spearman=spearman(a, b),
        kendall_tau_b=kendall_tau_b(a, b),
        pearson=pearson(a, b),
        exact=exact_agreement(a, b),
        within_one=within_one(a, b),
        quadratic_kappa=kappa,
    )


# --- Krippendorff's alpha -----------------------------------------------------------------------


def krippendorff_alpha(
    matrix: Sequence[Sequence[float | None]] | np.ndarray,
    level: Level = "interval",
    *,
    value_domain: Sequence[float] | None = None,
) -> float | None:
    """Krippendorff's alpha for raters x units (None/NaN = missing), via the `krippendorff` package.

    It handles any number of raters and missing ratings, so it suits panels of judges or people
    who each rated a subset. Only units rated at least twice are pairable. None with fewer than two
    pairable units (with one, alpha is 0 whatever the values) or when the pairable values do not
    vary (alpha is 0/0 there; the package raises or returns NaN). `value_domain` lists the possible
    values (e.g. 1..10); for "ordinal" it fixes the order of the categories. Raises ValueError for
    an unknown level, ragged rows, or values outside `value_domain`.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    data = _matrix(matrix, ragged=False)
    present = ~np.isnan(data)
    domain = None if value_domain is None else np.asarray(value_domain, dtype=float)
    if domain is not None and not np.isin(data[present], domain).all():
        raise ValueError("the ratings contain values outside value_domain")
    pairable_units = present.sum(axis=0) >= 2
    pairable_values = data[:, pairable_units][present[:, pairable_units]]
    if pairable_units.sum() < 2 or np.unique(pairable_values).size < 2:
        return None
    distinct = np.unique(data[present]).size if domain is None else domain.size
    if level == "interval" and data.shape[1] * distinct**2 > _KRIPPENDORFF_CELLS:
        return _interval_alpha(data)
    with np.errstate(all="ignore"):
        result = krippendorff.alpha(data, value_domain=domain, level_of_measurement=level)
    return _finite(result)


def pairable_units(matrix: Sequence[Sequence[float | None]] | np.ndarray) -> int:
    """The units (columns) of raters x units that two or more raters rated: what alpha is computed on."""
    data = _matrix(matrix, ragged=False)
    return int(((~np.isnan(data)).sum(axis=0) >= 2).sum()) if data.size else 0


def _interval_alpha(data: np.ndarray) -> float | None:
    """Interval alpha in closed form, for many distinct values (e.g. averaged scores).

    With squared differences, the sum over ordered pairs of a set of m values is 2 m^2 times its
    population variance, so alpha = 1 - D_o / D_e needs no coincidence matrix:
    D_o = (1/n) sum_u 2 m_u^2 var_u / (m_u - 1) and D_e = 2 n^2 var / (n (n - 1)) over the n
    pairable values.
    """
    units = data[:, (~np.isnan(data)).sum(axis=0) >= 2]
    m = (~np.isnan(units)).sum(axis=0).astype(float)
    values = units[~np.isnan(units)]
    n = float(values.size)
    within = 2 * m**2 * np.nanvar(units, axis=0) / (m - 1)
    expected = 2 * n**2 * float(values.var()) / (n * (n - 1))
    if expected <= 0:
        return None
    return _finite(1.0 - float(within.sum()) / n / expected)


# --- judge vs reference: mean difference with a paired bootstrap ----------------------------------


@dataclass(frozen=True)
class MeanDifference:
    """Mean of x - y over the complete pairs, with a percentile bootstrap CI."""

    mean: float | None
    low: float | None
    high: float | None
    n: int
    confidence: float


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval; low and high are None (with the reason in `note`) when it
    cannot be given: a single item, or too few resamples where the statistic is defined."""

    low: float | None
    high: float | None
    valid: int  # resamples in which the statistic was defined
    note: str = ""


def bootstrap(statistic: Callable[[np.ndarray], np.ndarray], n: int, *, resamples: int = 1000, seed: int = 0,
              confidence: float = 0.95, min_valid: int = MIN_VALID, count: int = 1) -> list[Interval]:
    """Percentile intervals of one or more statistics over `n` items resampled with replacement.

    `statistic` maps a block of resamples, an (rows, n) array of item indices, to an (rows, count)
    array of `count` statistics (NaN where one is undefined in a resample, which is then dropped for that
    statistic). Indices are drawn in blocks to bound memory; the draws depend only on n, resamples
    and seed, so several statistics of the same items are resampled jointly. No interval for fewer
    than two items or fewer than `min_valid` valid resamples (the reason is in `note`).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if resamples < 1:
        raise ValueError(f"resamples must be positive, got {resamples}")
    if n < 2:
        return [Interval(None, None, 0, f"n = {n}: no interval")] * count
    rng = np.random.Generator(np.random.PCG64(seed))
    block = max(1, _BLOCK // n)
    blocks = []
    for start in range(0, resamples, block):
        blocks.append(np.asarray(statistic(rng.integers(0, n, size=(min(block, resamples - start), n))), dtype=float))
    values = np.concatenate(blocks).reshape(resamples, count)
    tail = (1 - confidence) / 2
    found = []
    for column in values.T:
        kept = column[np.isfinite(column)]
        if kept.size < min_valid:
            found.append(Interval(None, None, int(kept.size),
                                  f"defined in {kept.size} of {resamples} resamples (under {min_valid})"))
            continue
        low, high = np.quantile(kept, [tail, 1 - tail])
        found.append(Interval(float(low), float(high), int(kept.size)))
    return found


def mean_difference(
    x: Values, y: Values, *, resamples: int = 2000, seed: int = 0, confidence: float = 0.95
) -> MeanDifference:
    """Is the judge harsher or more lenient than the reference, and how sure are we.

    Pairs are resampled together (paired bootstrap), so item difficulty shared by both raters does
    not widen the interval. The differences are sorted before resampling so the interval does not
    depend on the order of the items. The mean alone is given for a single pair; all None for none.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    a, b = paired(x, y)
    diffs = np.sort(a - b)
    if diffs.size == 0:
        return MeanDifference(None, None, None, 0, confidence)
    mean = float(diffs.mean())
    if diffs.size < 2:
        return MeanDifference(mean, None, None, 1, confidence)
    interval = mean_interval(diffs, resamples=resamples, seed=seed, confidence=confidence)
    return MeanDifference(mean, interval.low, interval.high, int(diffs.size), confidence)


def mean_interval(values: Values, *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95) -> Interval:
    """Bootstrap interval of the mean of `values` (missing ones dropped); of 0/1 values, a share."""
    data = _floats(values)
    data = data[~np.isnan(data)]
    (found,) = bootstrap(lambda rows: data[rows].mean(axis=1)[:, None], data.size, resamples=resamples, seed=seed,
                         confidence=confidence, min_valid=1)
    return found


def gap_difference_interval(gaps: Values, first: Sequence[bool], *, resamples: int = 1000, seed: int = 0,
                            confidence: float = 0.95) -> Interval:
    """Bootstrap interval of mean(gaps where `first`) - mean(gaps elsewhere), both kinds of item
    resampled together (a resample lacking either kind is dropped): e.g. self-preference."""
    g, own = _floats(gaps), np.asarray(first, dtype=bool)
    if g.size != own.size:
        raise ValueError("gaps and their flags differ in length")

    def statistic(rows: np.ndarray) -> np.ndarray:
        values, flags = g[rows], own[rows]
        n_own = flags.sum(axis=1)
        with np.errstate(all="ignore"):
            return ((values * flags).sum(1) / n_own - (values * ~flags).sum(1) / (rows.shape[1] - n_own))[:, None]

    (found,) = bootstrap(statistic, g.size, resamples=resamples, seed=seed, confidence=confidence)
    return found


def bootstrap_each(statistic: Callable[[np.ndarray], float | None], n: int, *, resamples: int = 1000,
                   seed: int = 0, confidence: float = 0.95) -> Interval:
    """`bootstrap` of a statistic computed one resample at a time (`statistic`: the item indices of
    one resample -> its value, None where undefined): for statistics with no vectorised form, such
    as alpha over several raters or a ranking correlation of per-model means."""

    def rows_of(rows: np.ndarray) -> np.ndarray:
        return np.array([[np.nan if (value := statistic(row)) is None else value] for row in rows])

    (found,) = bootstrap(rows_of, n, resamples=resamples, seed=seed, confidence=confidence)
    return found


def ratio_interval(numerators: Values, denominators: Values, *, resamples: int = 1000, seed: int = 0,
                   confidence: float = 0.95) -> Interval:
    """Bootstrap interval of sum(numerators) / sum(denominators) over clusters resampled whole (e.g.
    the pairs of answers to one instruction that the judge and people order alike, of those people
    order): a resample whose denominators sum to 0 is undefined."""
    top, bottom = _floats(numerators), _floats(denominators)
    if top.size != bottom.size:
        raise ValueError("numerators and denominators differ in length")

    def statistic(rows: np.ndarray) -> np.ndarray:
        total = bottom[rows].sum(axis=1)
        with np.errstate(all="ignore"):
            return np.where(total > 0, top[rows].sum(axis=1) / total, np.nan)[:, None]

    (found,) = bootstrap(statistic, top.size, resamples=resamples, seed=seed, confidence=confidence)
    return found


# --- intervals of two raters' agreement ----------------------------------------------------------


PAIR_STATISTICS: tuple[str, ...] = ("spearman", "kendall_tau_b", "pearson", "weighted_kappa", "alpha")
# Up to this many distinct values, a resample is summarised by its table of value pairs, from
# which every statistic follows in closed form (vectorised); past it, the statistics run per resample.
_TABLE_VALUES = 40


def pair_intervals(x: Values, y: Values, *, low: int | None = None, high: int | None = None,
                   level: Level = "interval", resamples: int = 1000, seed: int = 0,
                   confidence: float = 0.95) -> dict[str, Interval]:
    """Bootstrap intervals of `PAIR_STATISTICS` of two raters, resampling the pairs jointly.

    `weighted_kappa` is the quadratic kappa over low..high (given only with a scale and integer
    values in it); `alpha` is Krippendorff's at `level`. The pairs are sorted first, so the
    intervals do not depend on the order of the items.
    """
    a, b = paired(x, y)
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    names = [s for s in PAIR_STATISTICS if s != "weighted_kappa" or _kappa_applies(a, b, low, high)]
    values = np.unique(np.concatenate([a, b]))
    if values.size <= _TABLE_VALUES:
        cells = np.searchsorted(values, a) * values.size + np.searchsorted(values, b)
        kappa_weights = None if low is None or high is None else ((values[:, None] - values[None, :])
                                                                 / max(high - low, 1)) ** 2

        def statistic(rows: np.ndarray) -> np.ndarray:
            table = _pair_tables(cells[rows], values.size)
            found = {"spearman": _table_spearman(table), "kendall_tau_b": _table_kendall(table),
                     "pearson": _table_correlation(table, values, values),
                     "alpha": _table_alpha(table, values, level)}
            if "weighted_kappa" in names:
                found["weighted_kappa"] = _table_kappa(table, kappa_weights)
            return np.stack([found[name] for name in names], axis=1)
    else:
        scalar = {"kendall_tau_b": kendall_tau_b, "weighted_kappa": lambda p, q: weighted_kappa(p, q, low, high),
                  "alpha": lambda p, q: krippendorff_alpha([p, q], level)}

        def each(name: str, rows: np.ndarray) -> np.ndarray:
            return np.array([np.nan if (v := scalar[name](a[row], b[row])) is None else v for row in rows])

        def statistic(rows: np.ndarray) -> np.ndarray:
            first, second = a[rows], b[rows]
            found = {"pearson": _rows_pearson(first, second),
                     "spearman": _rows_pearson(scipy_stats.rankdata(first, axis=1),
                                               scipy_stats.rankdata(second, axis=1)),
                     "alpha": _rows_interval_alpha(first, second) if level == "interval" else each("alpha", rows)}
            return np.stack([found[name] if name in found else each(name, rows) for name in names], axis=1)

    return dict(zip(names, bootstrap(statistic, a.size, resamples=resamples, seed=seed, confidence=confidence,
                                     count=len(names))))


def _rows_pearson(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair; NaN where a row is constant."""
    da, db = first - first.mean(1, keepdims=True), second - second.mean(1, keepdims=True)
    constant = (np.ptp(first, axis=1) == 0) | (np.ptp(second, axis=1) == 0)
    with np.errstate(all="ignore"):
        r = np.clip((da * db).sum(1) / np.sqrt((da**2).sum(1) * (db**2).sum(1)), -1.0, 1.0)
    return np.where(constant, np.nan, r)


def _rows_interval_alpha(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Interval alpha of two complete raters per row: 1 - (2N - 1) sum (a - b)^2 / (4 N^2 var(pooled))
    (`_interval_alpha` with every unit rated twice); NaN where the values do not vary."""
    pooled = np.concatenate([first, second], axis=1)
    n = first.shape[1]
    variance = pooled.var(axis=1)
    with np.errstate(all="ignore"):
        alpha = 1 - (2 * n - 1) * ((first - second) ** 2).sum(1) / (4 * n**2 * variance)
    return np.where(np.ptp(pooled, axis=1) > 0, alpha, np.nan)


def _kappa_applies(a: np.ndarray, b: np.ndarray, low: int | None, high: int | None) -> bool:
    both = np.concatenate([a, b])
    return (low is not None and high is not None and bool(np.all(both == np.round(both)))
            and bool(np.all((both >= low) & (both <= high))))


def _pair_tables(cells: np.ndarray, k: int) -> np.ndarray:
    """Per resample (row of `cells`), the k x k counts of its (first value, second value) pairs."""
    rows = cells.shape[0]
    flat = (np.arange(rows)[:, None] * (k * k) + cells).ravel()
    return np.bincount(flat, minlength=rows * k * k).reshape(rows, k, k).astype(float)


def _varies(margin: np.ndarray) -> np.ndarray:
    return (margin > 0).sum(axis=1) >= 2


def _table_correlation(table: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pearson's r of each resample's pairs, the values scored `first` (rows) and `second` (columns);
    each may be per resample (2-D). NaN for a constant rater."""
    n = table.sum(axis=(1, 2))
    ma, mb = table.sum(axis=2), table.sum(axis=1)
    first, second = np.broadcast_to(first, ma.shape), np.broadcast_to(second, mb.shape)
    mean_a, mean_b = (ma * first).sum(1) / n, (mb * second).sum(1) / n
    da, db = first - mean_a[:, None], second - mean_b[:, None]
    cov = np.einsum("rij,ri,rj->r", table, da, db)
    var = (ma * da**2).sum(1) * (mb * db**2).sum(1)
    with np.errstate(all="ignore"):
        r = np.clip(cov / np.sqrt(var), -1.0, 1.0)
    return np.where(_varies(ma) & _varies(mb), r, np.nan)


def _midranks(margin: np.ndarray) -> np.ndarray:
    """The average rank of each value, from its count in each resample (ties share their mean rank)."""
    return np.cumsum(margin, axis=1) - (margin - 1) / 2


def _table_spearman(table: np.ndarray) -> np.ndarray:
    return _table_correlation(table, _midranks(table.sum(axis=2)), _midranks(table.sum(axis=1)))


def _table_kendall(table: np.ndarray) -> np.ndarray:
    """Kendall's tau-b from the table: concordant minus discordant pairs over the tie-corrected total."""
    rows, k, _ = table.shape
    above = np.zeros((rows, k + 1, k + 1))  # above[i, j]: pairs with both values at or past (i, j)
    above[:, :k, :k] = table[:, ::-1, ::-1].cumsum(1).cumsum(2)[:, ::-1, ::-1]
    left = np.zeros((rows, k + 1, k + 1))  # left[i, j + 1]: first value at or past i, second at most j
    left[:, :k, 1:] = table[:, ::-1, :].cumsum(1)[:, ::-1, :].cumsum(2)
    concordant = (table * above[:, 1:, 1:]).sum(axis=(1, 2))
    discordant = (table * left[:, 1:, :k]).sum(axis=(1, 2))
    n = table.sum(axis=(1, 2))
    total = n * (n - 1) / 2
    ties_a = (table.sum(2) * (table.sum(2) - 1) / 2).sum(1)
    ties_b = (table.sum(1) * (table.sum(1) - 1) / 2).sum(1)
    with np.errstate(all="ignore"):
        tau = (concordant - discordant) / np.sqrt((total - ties_a) * (total - ties_b))
    return np.where((total > ties_a) & (total > ties_b), tau, np.nan)


def _table_kappa(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted kappa from the table; `weights` are the disagreement weights between the values."""
    n = table.sum(axis=(1, 2))
    observed = (table * weights).sum(axis=(1, 2)) / n
    expected = np.einsum("ri,ij,rj->r", table.sum(2), weights, table.sum(1)) / n**2
    with np.errstate(all="ignore"):
        return np.where(expected > _EQUAL, 1 - observed / expected, np.nan)


def _table_alpha(table: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's alpha of two raters without missing ratings, from the coincidences of values."""
    coincidences = table + table.transpose(0, 2, 1)
    counts = coincidences.sum(axis=2)
    total = counts.sum(axis=1)
    if level == "nominal":
        delta = np.broadcast_to(values[:, None] != values[None, :], coincidences.shape).astype(float)
    elif level == "ordinal":
        cum = np.cumsum(counts, axis=1)
        # Between values i <= j (both included) lie cum[j] - cum[i] + counts[i] ratings.
        lower = np.arange(values.size)[:, None] <= np.arange(values.size)[None, :]
        span = np.where(lower, cum[:, None, :] - cum[:, :, None] + counts[:, :, None],
                        cum[:, :, None] - cum[:, None, :] + counts[:, None, :])
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


# --- the same judge, asked several times ----------------------------------------------------------


@dataclass(frozen=True)
class RepeatConsistency:
    """How much one judge's score for an item moves between repeated calls."""

    n_items: int  # items with at least 2 scores
    mean_variance: float | None  # mean per-item sample variance (ddof=1)
    mean_std: float | None  # mean per-item sample standard deviation
    share_changed: float | None  # share of items not given the same score in every repeat
    alpha: float | None  # Krippendorff's alpha (interval), repeats as raters


def repeat_consistency(matrix: Sequence[Sequence[float | None]] | np.ndarray) -> RepeatConsistency:
    """Consistency of items x repeats (None/NaN = missing; rows may differ in length).

    Items with fewer than two scores say nothing about consistency and are left out of the
    per-item statistics. Alpha treats each repeat as a rater: 1 means the repeats agree as much as
    possible given how much items differ, 0 means repeat noise is as large as the spread of items.
    """
    data = _matrix(matrix, ragged=True)
    if data.size == 0:
        return RepeatConsistency(0, None, None, None, None)
    rows = data[(~np.isnan(data)).sum(axis=1) >= 2]
    if rows.shape[0] == 0:
        return RepeatConsistency(0, None, None, None, None)
    variances = np.nanvar(rows, axis=1, ddof=1)
    changed = (np.nanmax(rows, axis=1) - np.nanmin(rows, axis=1)) > _EQUAL
    return RepeatConsistency(
        n_items=int(rows.shape[0]),
        mean_variance=float(variances.mean()),
        mean_std=float(np.sqrt(variances).mean()),
        share_changed=float(changed.mean()),
        alpha=krippendorff_alpha(data.T, "interval"),
    )


# --- system level --------------------------------------------------------------------------------


def _present(scores: Mapping[str, float | None]) -> dict[str, float]:
    return {k: float(v) for k, v in scores.items() if v is not None and not math.isnan(float(v))}


def ranking(scores: Mapping[str, float | None], *, higher_is_better: bool = True) -> list[str]:
    """Models best-first by score (missing scores left out; ties by name, for a stable order)."""
    present = _present(scores)
    sign = -1.0 if higher_is_better else 1.0
    return sorted(present, key=lambda name: (sign * present[name], name))


def system_kendall(a: Mapping[str, float | None], b: Mapping[str, float | None]) -> float | None:
    """Kendall tau-b between two judges' per-model means, over the models both scored.

    This is what a leaderboard needs: whether the judge orders the models as the reference does,
    whatever it does on single items. None with fewer than 2 shared models or a constant judge.
    """
    pa, pb = _present(a), _present(b)
    shared = sorted(pa.keys() & pb.keys())
    return kendall_tau_b([pa[m] for m in shared], [pb[m] for m in shared])


# --- length bias ---------------------------------------------------------------------------------


def _length_inputs(
    scores: Values, lengths: Values, groups: Sequence[Hashable], *others: Sequence[Hashable]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Complete items only: scores, log2 lengths (0 words counts as 1), group codes, other labels."""
    y, length = _floats(scores), _floats(lengths)
    sizes = {y.size, length.size, len(groups), *(len(o) for o in others)}
    if len(sizes) != 1:
        raise ValueError("scores, lengths and labels must have the same length")
    if np.any(length[~np.isnan(length)] < 0):
        raise ValueError("lengths must be non-negative word counts")
    keep = ~(np.isnan(y) | np.isnan(length))
    index = np.flatnonzero(keep)
    codes, _ = _codes([groups[i] for i in index])
    rest = [np.array([o[i] for i in index], dtype=object) for o in others]
    return y[keep], np.log2(np.maximum(length[keep], 1.0)), codes, rest


def length_spread(lengths: Values, groups: Sequence[Hashable]) -> float:
    """The spread of log2 length the within-group slopes learn from: the root mean square of each
    answer's log2 length (words) minus its group's mean, in doublings (0.0 with no answer)."""
    _, x, codes, _ = _length_inputs(np.zeros(len(groups)), lengths, groups)
    return float(np.sqrt(np.mean(_group_demean(x, codes) ** 2))) if x.size else 0.0


@dataclass(frozen=True)
class LengthSlope:
    slope: float | None  # score points per doubling of length, within groups
    n: int  # items in groups of two or more


def length_slope(scores: Values, lengths: Values, groups: Sequence[Hashable]) -> LengthSlope:
    """Within-group OLS slope of score on log2(length in words).

    Groups are prompts (or items): subtracting each group's mean from both score and log length
    compares answers to the same prompt, so a prompt that calls for long answers and happens to be
    easy does not pass for length bias. A group with one item has nothing to compare and
    contributes nothing. None if no group has variation in length.
    """
    y, x, codes, _ = _length_inputs(scores, lengths, groups)
    multi = np.bincount(codes)[codes] >= 2 if codes.size else np.zeros(0, dtype=bool)
    n = int(multi.sum())
    if n == 0:
        return LengthSlope(None, 0)
    xd, yd = _group_demean(x, codes), _group_demean(y, codes)
    sxx = float(xd @ xd)
    if sxx <= _EQUAL:
        return LengthSlope(None, n)
    return LengthSlope(float(xd @ yd) / sxx, n)


def length_slope_interval(scores: Values, lengths: Values, groups: Sequence[Hashable],
                          units: Sequence[Hashable] | None = None, *, resamples: int = 1000, seed: int = 0,
                          confidence: float = 0.95) -> Interval:
    """Bootstrap interval of `length_slope`, resampling `units` whole (default: each item its own): the
    verdicts on one answer share its length, so they are drawn together. Each resample's
    within-group slope comes from its unit-weighted group sums (a group drawn once contributes
    nothing), vectorised."""
    labels, _ = _codes(list(units) if units is not None else list(range(len(groups))))
    y, x, codes, (kept,) = _length_inputs(scores, lengths, groups, labels)
    unit, _ = _codes(list(kept))  # the units of the complete items, numbered again from 0
    k = int(codes.max()) + 1 if codes.size else 0
    m = int(unit.max()) + 1 if unit.size else 0

    def statistic(draws: np.ndarray) -> np.ndarray:  # in blocks of rows × items within _BLOCK, as `bootstrap`'s
        step = max(1, _BLOCK // max(1, unit.size))
        return np.concatenate([slopes(draws[start:start + step]) for start in range(0, draws.shape[0], step)])

    def slopes(draws: np.ndarray) -> np.ndarray:
        rows = draws.shape[0]
        drawn = np.bincount((np.arange(rows)[:, None] * m + draws).ravel(), minlength=rows * m).reshape(rows, m)
        weight = drawn[:, unit].astype(float)
        flat = (np.arange(rows)[:, None] * k + codes).ravel()

        def sums(values: np.ndarray) -> np.ndarray:
            return np.bincount(flat, (weight * values).ravel(), minlength=rows * k).reshape(rows, k)

        count, sx, sy = sums(np.ones_like(x)), sums(x), sums(y)
        with np.errstate(all="ignore"):
            sxx = (weight * x**2).sum(1) - np.nansum(sx**2 / count, axis=1)
            sxy = (weight * x * y).sum(1) - np.nansum(sx * sy / count, axis=1)
            return np.where(sxx > _EQUAL, sxy / sxx, np.nan)[:, None]

    (found,) = bootstrap(statistic, m, resamples=resamples, seed=seed, confidence=confidence)
    return found


@dataclass(frozen=True)
class LengthControlled:
    beta: float | None  # score points per doubling of length, net of system and group effects
    n: int  # complete items used
    means: dict[Hashable, tuple[float, float | None]]  # system: (raw mean, length-controlled mean)


def length_controlled_means(
    scores: Values, lengths: Values, groups: Sequence[Hashable], systems: Sequence[Hashable]
) -> LengthControlled:
    """Each system's mean score with the judge's length preference taken out.

    Fits score = system effect + group effect + beta * (log2 length - group mean of log2 length)
    by least squares, then predicts each item at zero length difference: the length-controlled
    mean of a system is the mean over its items of (score - beta * length deviation). This is the
    idea of length-controlled AlpacaEval (fit with a length term, predict with it at zero) for
    pointwise scores. Estimation is within-group (Frisch-Waugh-Lovell): demeaning every column
    within its group absorbs the group dummies, and residualising the length deviation on the
    demeaned system dummies (numpy lstsq) leaves beta equal to the full dummy-coded fit without
    building a column per group. beta (and every controlled mean) is None when length is
    confounded with system (e.g. one system always exactly 4x longer): the data cannot separate
    "long" from "this system" then. Items missing a score or a length are left out.
    """
    y, x, codes, (labels,) = _length_inputs(scores, lengths, groups, systems)
    system_codes, names = _codes(list(labels))
    raw = {name: float(y[system_codes == s].mean()) for s, name in enumerate(names)}
    deviation = _group_demean(x, codes) if y.size else x
    beta = _length_beta(y, deviation, codes, system_codes, len(names))
    means = {
        name: (
            raw[name],
            None if beta is None else float((y - beta * deviation)[system_codes == s].mean()),
        )
        for s, name in enumerate(names)
    }
    return LengthControlled(beta, int(y.size), means)


def length_beta_interval(scores: Values, lengths: Values, groups: Sequence[Hashable], systems: Sequence[Hashable],
                         *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95) -> Interval:
    """Bootstrap interval of the beta of `length_controlled_means`, resampling items (refitted per
    resample; a resample where length is confounded with system is dropped)."""
    y, x, codes, (labels,) = _length_inputs(scores, lengths, groups, systems)
    system_codes, names = _codes(list(labels))

    def statistic(rows: np.ndarray) -> np.ndarray:
        found = []
        for row in rows:
            groups_drawn = np.unique(codes[row], return_inverse=True)[1]
            beta = _length_beta(y[row], _group_demean(x[row], groups_drawn), groups_drawn, system_codes[row],
                                len(names))
            found.append(np.nan if beta is None else beta)
        return np.array(found)[:, None]

    (found,) = bootstrap(statistic, y.size, resamples=resamples, seed=seed, confidence=confidence)
    return found


def _length_beta(
    y: np.ndarray, deviation: np.ndarray, groups: np.ndarray, systems: np.ndarray, n_systems: int
) -> float | None:
    """beta of the length deviation net of system and group effects (FWL); None if unidentified."""
    if y.size < 2 or float(deviation @ deviation) <= _EQUAL:
        return None
    yd = _group_demean(y, groups)
    if n_systems > 1:
        dummies = (systems[:, None] == np.arange(1, n_systems)[None, :]).astype(float)  # first dropped
        dummies = _group_demean(dummies, groups)
        coef, *_ = np.linalg.lstsq(dummies, deviation, rcond=None)
        residual = deviation - dummies @ coef
    else:
        residual = deviation
    srr = float(residual @ residual)
    if srr <= 1e-10 * float(deviation @ deviation):
        return None
    return float(residual @ yd) / srr


# --- position bias -------------------------------------------------------------------------------


def _verdict(value: str | None) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    normal = text.upper() if text.upper() in ("A", "B") else text.lower()
    if normal not in VERDICTS:
        raise ValueError(f"unknown verdict {value!r}; expected one of {VERDICTS}")
    return normal


_MIRROR = {"A": "B", "B": "A", "tie": "tie"}


@dataclass(frozen=True)
class FlipRate:
    flip_rate: float | None  # share of pairs whose verdict does not follow the swap
    first_both: float | None  # share that preferred the first-shown answer in both orders
    second_both: float | None  # share that preferred the second-shown answer in both orders
    n: int


def flip_rate(first: Sequence[str | None], swapped: Sequence[str | None]) -> FlipRate:
    """Position bias of a pairwise judge: the same pairs judged in both presentation orders.

    Verdicts name positions ("A" = shown first). A consistent judge mirrors its verdict when the
    order is swapped (A <-> B, tie stays tie); anything else is a flip. Answering "A" both times
    means it preferred whatever came first. Pairs missing either verdict are dropped; an
    unknown verdict raises ValueError.
    """
    if len(first) != len(swapped):
        raise ValueError(f"verdict lists differ in length: {len(first)} and {len(swapped)}")
    pairs = [(a, b) for a, b in zip(map(_verdict, first), map(_verdict, swapped)) if a and b]
    if not pairs:
        return FlipRate(None, None, None, 0)
    n = len(pairs)
    return FlipRate(
        flip_rate=sum(_MIRROR[a] != b for a, b in pairs) / n,
        first_both=sum(a == b == "A" for a, b in pairs) / n,
        second_both=sum(a == b == "B" for a, b in pairs) / n,
        n=n,
    )


@dataclass(frozen=True)
class ScoreShift:
    share_changed: float | None  # share of items whose score changed with the order
    mean_change: float | None  # mean of swapped - first (signed: systematic drift)
    mean_abs_change: float | None  # mean |swapped - first| (size, whatever the direction)
    n: int


def score_shift(first: Values, swapped: Values) -> ScoreShift:
    """Position sensitivity of a pointwise judge: the same items scored under swapped presentation."""
    a, b = paired(first, swapped)
    if a.size == 0:
        return ScoreShift(None, None, None, 0)
    change = b - a
    return ScoreShift(
        share_changed=float(np.mean(np.abs(change) > _EQUAL)),
        mean_change=float(change.mean()),
        mean_abs_change=float(np.abs(change).mean()),
        n=int(a.size),
    )


def share_changed_interval(first: Values, swapped: Values, *, resamples: int = 1000, seed: int = 0,
                           confidence: float = 0.95) -> Interval:
    """Bootstrap interval of `score_shift`'s share_changed (the position flip rate), over the items."""
    a, b = paired(first, swapped)
    return mean_interval(np.abs(b - a) > _EQUAL, resamples=resamples, seed=seed, confidence=confidence)


__all__ = [
    "Interval",
    "PAIR_STATISTICS",
    "bootstrap",
    "bootstrap_each",
    "gap_difference_interval",
    "length_beta_interval",
    "length_slope_interval",
    "mean_interval",
    "pair_intervals",
    "ratio_interval",
    "LengthControlled",
    "LengthSlope",
    "FlipRate",
    "MeanDifference",
    "RepeatConsistency",
    "ScoreAgreement",
    "ScoreShift",
    "exact_agreement",
    "flip_rate",
    "kendall_tau_b",
    "krippendorff_alpha",
    "length_controlled_means",
    "length_slope",
    "mean_difference",
    "pairable_units",
    "paired",
    "pearson",
    "ranking",
    "repeat_consistency",
    "score_agreement",
    "score_shift",
    "share_changed_interval",
    "spearman",
    "system_kendall",
    "weighted_kappa",
    "within_one",
]

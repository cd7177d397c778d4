"""Bootstrap intervals of two raters' agreement on the same items, the pairs resampled jointly.

Up to `_TABLE_VALUES` distinct values, a resample is summarised by its table of value pairs, from
which every statistic follows in closed form (vectorised over resamples); past it, the statistics
run per resample. `two_rater_resampling` adds the mean difference, so that a pair of raters'
intervals all come from one pass of draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .agreement import weighted_kappa
from .alpha import Level, coincidence_alpha, krippendorff_alpha
from .bootstrap import (
    Block,
    Interval,
    MeanDifference,
    Resampling,
    bootstrap_together,
    differences,
    mean_difference_of,
    mean_interval,
    mean_resampling,
)
from .correlation import kendall_tau_b
from .inputs import EQUAL, Values, finite, paired

PAIR_STATISTICS: tuple[str, ...] = ("spearman", "kendall_tau_b", "pearson", "weighted_kappa", "alpha")
# Up to this many distinct values, a resample is summarised by its table of value pairs, from
# which every statistic follows in closed form (vectorised); past it, the statistics run per resample.
_TABLE_VALUES = 40


def pair_intervals(
    x: Values,
    y: Values,
    *,
    low: int | None = None,
    high: int | None = None,
    level: Level = "interval",
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Interval]:
    """Bootstrap intervals of `PAIR_STATISTICS` of two raters, resampling the pairs jointly.

    `weighted_kappa` is the quadratic kappa over low..high (given only with a scale and integer
    values in it); `alpha` is Krippendorff's at `level`. The pairs are sorted first, so the
    intervals do not depend on the order of the items.
    """
    n, names, wanted = pair_resampling(x, y, low=low, high=high, level=level, resamples=resamples)
    return dict(zip(names, bootstrap_together(n, [wanted], seed=seed, confidence=confidence)[0]))


def pair_resampling(
    x: Values,
    y: Values,
    *,
    low: int | None = None,
    high: int | None = None,
    level: Level = "interval",
    resamples: int = 1000,
) -> tuple[int, list[str], Resampling]:
    """What `pair_intervals` resamples: the number of complete pairs, the statistics given (their
    names) and their Resampling."""
    a, b = paired(x, y)
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    names = [s for s in PAIR_STATISTICS if s != "weighted_kappa" or _kappa_applies(a, b, low, high)]
    values = np.unique(np.concatenate([a, b]))
    if values.size <= _TABLE_VALUES:
        return (
            int(a.size),
            names,
            Resampling(_table_statistic(a, b, values, names, low, high, level), len(names), resamples, counting=True),
        )
    return int(a.size), names, Resampling(_row_statistic(a, b, names, low, high, level), len(names), resamples)


def _table_statistic(
    a: np.ndarray,
    b: np.ndarray,
    values: np.ndarray,
    names: Sequence[str],
    low: int | None,
    high: int | None,
    level: Level,
):
    """Every statistic of a resample from its table of value pairs: counted from the drawn pairs, or,
    when the block's counts of each item are at hand, summed from them in ranges (the pairs are
    sorted, so the pairs of one cell of the table are consecutive items)."""
    k = values.size
    cells = np.searchsorted(values, a) * k + np.searchsorted(values, b)
    starts = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]]) if cells.size else np.zeros(0, dtype=np.intp)

    def statistic(block: Block) -> np.ndarray:
        rows = block.indices.shape[0]
        if block.counted:
            table = np.zeros((rows, k * k))
            table[:, cells[starts]] = np.add.reduceat(block.counts, starts, axis=1)
        else:
            table = np.empty((rows, k * k))
            for row, drawn in enumerate(block.indices):
                table[row] = np.bincount(cells[drawn], minlength=k * k)
        return _of_tables(table.reshape(rows, k, k), values, names, low, high, level)

    return statistic


def _of_tables(
    table: np.ndarray, values: np.ndarray, names: Sequence[str], low: int | None, high: int | None, level: Level
) -> np.ndarray:
    """The named statistics (columns) of each table of value pairs (rows, k, k) over `values`."""
    found = {
        "spearman": _table_spearman(table),
        "kendall_tau_b": _table_kendall(table),
        "pearson": _table_correlation(table, values, values),
        "alpha": coincidence_alpha(table + table.transpose(0, 2, 1), values, level),
    }
    if "weighted_kappa" in names and low is not None and high is not None:  # the scale is known (`_kappa_applies`)
        found["weighted_kappa"] = _table_kappa(table, ((values[:, None] - values[None, :]) / max(high - low, 1)) ** 2)
    return np.stack([found[name] for name in names], axis=1)


def table_statistics(
    x: Values, y: Values, *, low: int | None = None, high: int | None = None, level: Level = "interval"
) -> dict[str, float | None] | None:
    """`PAIR_STATISTICS` of the complete pairs (None where undefined) from their table of value pairs,
    in the closed forms every resample's are computed with (they agree with scipy and the
    krippendorff package to rounding); None with fewer than two pairs or more than
    `_TABLE_VALUES` distinct values."""
    a, b = paired(x, y)
    values = np.unique(np.concatenate([a, b]))
    if a.size < 2 or values.size > _TABLE_VALUES:
        return None
    names = [s for s in PAIR_STATISTICS if s != "weighted_kappa" or _kappa_applies(a, b, low, high)]
    k = values.size
    table = np.bincount(np.searchsorted(values, a) * k + np.searchsorted(values, b), minlength=k * k)
    found = _of_tables(table.reshape(1, k, k).astype(float), values, names, low, high, level)[0]
    return {name: finite(value) for name, value in zip(names, found)}


def _row_statistic(a: np.ndarray, b: np.ndarray, names: Sequence[str], low: int | None, high: int | None, level: Level):
    """Every statistic of a resample from its drawn pairs (many distinct values)."""
    scalar = {
        "kendall_tau_b": kendall_tau_b,
        "weighted_kappa": lambda p, q: None if low is None or high is None else weighted_kappa(p, q, low, high),
        "alpha": lambda p, q: krippendorff_alpha([p, q], level),
    }

    def each(name: str, rows: np.ndarray) -> np.ndarray:
        return np.array([np.nan if (v := scalar[name](a[row], b[row])) is None else v for row in rows])

    from scipy import stats as scipy_stats  # here: importing scipy takes a command 0.6 s, and most need none

    def statistic(block: Block) -> np.ndarray:
        rows = block.indices
        first, second = a[rows], b[rows]
        found = {
            "pearson": _rows_pearson(first, second),
            "spearman": _rows_pearson(scipy_stats.rankdata(first, axis=1), scipy_stats.rankdata(second, axis=1)),
            "alpha": _rows_interval_alpha(first, second) if level == "interval" else each("alpha", rows),
        }
        return np.stack([found[name] if name in found else each(name, rows) for name in names], axis=1)

    return statistic


def _rows_pearson(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair; NaN where a row is constant."""
    da, db = first - first.mean(1, keepdims=True), second - second.mean(1, keepdims=True)
    constant = (np.ptp(first, axis=1) == 0) | (np.ptp(second, axis=1) == 0)
    with np.errstate(all="ignore"):
        r = np.clip((da * db).sum(1) / np.sqrt((da**2).sum(1) * (db**2).sum(1)), -1.0, 1.0)
    return np.where(constant, np.nan, r)


def _rows_interval_alpha(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Interval alpha of two complete raters per row: 1 - (2N - 1) sum (a - b)^2 / (4 N^2 var(pooled))
    (the closed form of interval alpha with every unit rated twice); NaN where the values do not vary."""
    pooled = np.concatenate([first, second], axis=1)
    n = first.shape[1]
    variance = pooled.var(axis=1)
    with np.errstate(all="ignore"):
        alpha = 1 - (2 * n - 1) * ((first - second) ** 2).sum(1) / (4 * n**2 * variance)
    return np.where(np.ptp(pooled, axis=1) > 0, alpha, np.nan)


def _kappa_applies(a: np.ndarray, b: np.ndarray, low: int | None, high: int | None) -> bool:
    both = np.concatenate([a, b])
    return (
        low is not None
        and high is not None
        and bool(np.all(both == np.round(both)))
        and bool(np.all((both >= low) & (both <= high)))
    )


def _varies(margin: np.ndarray) -> np.ndarray:
    return (margin > 0).sum(axis=1) >= 2


def _table_correlation(table: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pearson's r of each resample's pairs, the values scored `first` (rows) and `second` (columns);
    each may be per resample (2-D). NaN for a constant rater."""
    ma, mb = table.sum(axis=2), table.sum(axis=1)
    n = ma.sum(axis=1)
    first, second = np.broadcast_to(first, ma.shape), np.broadcast_to(second, mb.shape)
    mean_a, mean_b = (ma * first).sum(1) / n, (mb * second).sum(1) / n
    da, db = first - mean_a[:, None], second - mean_b[:, None]
    cov = (np.matmul(table, db[:, :, None])[:, :, 0] * da).sum(1)
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
    """Kendall's tau-b from the table: concordant minus discordant pairs over the tie-corrected total.
    Each cell's pairs with the cells before it in the first value: concordant if before in the
    second too, discordant if after (whole counts, so exact in any order)."""
    cum = table.cumsum(1).cumsum(2)  # cum[i, j]: first value at most i, second at most j
    before = np.zeros_like(table)  # first value before i, second before j
    before[:, 1:, 1:] = cum[:, :-1, :-1]
    after = np.zeros_like(table)  # first value before i, second after j
    after[:, 1:, :] = cum[:, :-1, -1:] - cum[:, :-1, :]
    concordant = (table * before).sum(axis=(1, 2))
    discordant = (table * after).sum(axis=(1, 2))
    ma, mb = table.sum(2), table.sum(1)
    n = ma.sum(axis=1)
    total = n * (n - 1) / 2
    ties_a = (ma * (ma - 1) / 2).sum(1)
    ties_b = (mb * (mb - 1) / 2).sum(1)
    with np.errstate(all="ignore"):
        tau = (concordant - discordant) / np.sqrt((total - ties_a) * (total - ties_b))
    return np.where((total > ties_a) & (total > ties_b), tau, np.nan)


def _table_kappa(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted kappa from the table; `weights` are the disagreement weights between the values."""
    n = table.sum(axis=(1, 2))
    observed = (table * weights).sum(axis=(1, 2)) / n
    expected = ((table.sum(2) @ weights) * table.sum(1)).sum(1) / n**2
    with np.errstate(all="ignore"):
        return np.where(expected > EQUAL, 1 - observed / expected, np.nan)


# --- a pair of raters' intervals, from one pass of draws ------------------------------------------


@dataclass(frozen=True)
class TwoRaterResampling:
    """Two raters prepared for the bootstrap of their agreement: the sorted differences, whose mean
    is resampled `difference_resamples` times, and `PAIR_STATISTICS` (those in `names`), resampled
    `resamples` times; the draws of the fewer resamples are the first of the more, so one pass of
    draws (`bootstrap_together` of `wanted`) gives both, with the same intervals as apart. (A
    difference that is not a number, of two infinite values, leaves the mean difference to be
    resampled apart, over the other differences, as `mean_difference` does.)"""

    n: int
    differences: np.ndarray
    names: list[str]
    wanted: list[Resampling]
    difference_resamples: int = 2000

    def results(
        self, found: Sequence[list[Interval]], *, seed: int = 0, confidence: float = 0.95
    ) -> tuple[MeanDifference, dict[str, Interval]]:
        """The mean difference and the named intervals, from `bootstrap_together`'s answer to `wanted`
        (drawn with `seed`)."""
        if len(found) == 1:
            difference = mean_interval(
                self.differences, resamples=self.difference_resamples, seed=seed, confidence=confidence
            )
        else:
            (difference,) = found[0]
        return mean_difference_of(self.differences, difference, confidence), dict(zip(self.names, found[-1]))


def two_rater_resampling(
    x: Values,
    y: Values,
    *,
    low: int | None = None,
    high: int | None = None,
    level: Level = "interval",
    resamples: int = 1000,
    difference_resamples: int = 2000,
) -> TwoRaterResampling:
    """What `mean_difference` and `pair_intervals` resample, to be drawn together."""
    diffs = differences(x, y)
    n, names, statistics = pair_resampling(x, y, low=low, high=high, level=level, resamples=resamples)
    if np.isnan(diffs).any():
        return TwoRaterResampling(n, diffs, names, [statistics], difference_resamples)
    mean = mean_resampling(diffs, resamples=difference_resamples, min_valid=1)
    return TwoRaterResampling(n, diffs, names, [mean, statistics], difference_resamples)

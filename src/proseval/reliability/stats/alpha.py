"""Krippendorff's alpha: agreement of any number of raters with missing ratings allowed, at the level
of the scale ("nominal" for labels, "ordinal" for ranks and Likert scales, "interval"/"ratio" for
numbers), and its bootstrap over the units."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import krippendorff
import numpy as np

from .bootstrap import Block, Interval, Resampling, bootstrap_together
from .inputs import finite, matrix

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
Ratings = Sequence[Sequence[float | None]] | np.ndarray

# Alpha is computed from the coincidences of values summed over the distinct rating patterns of the
# units (a unit's count of ratings of each value; a panel of judges on a 1-10 scale has a few hundred)
# while patterns x values x values stays under this. Past it, the `krippendorff` package computes it
# from a units x values x values array, and past _KRIPPENDORFF_CELLS cells of that the interval level
# uses its closed form instead (same value, linear memory). Resamples past _PATTERN_CELLS use the
# closed form (interval) or are computed one at a time.
_PATTERN_CELLS = 1_000_000
_KRIPPENDORFF_CELLS = 4_000_000


def krippendorff_alpha(
    matrix_: Ratings, level: Level = "interval", *, value_domain: Sequence[float] | None = None
) -> float | None:
    """Krippendorff's alpha for raters x units (None/NaN = missing), as the `krippendorff` package
    computes it.

    It handles any number of raters and missing ratings, so it suits panels of judges or people
    who each rated a subset. Only units rated at least twice are pairable. None with fewer than two
    pairable units (with one, alpha is 0 whatever the values) or when the pairable values do not
    vary (alpha is 0/0 there; the package raises or returns NaN). `value_domain` lists the possible
    values (e.g. 1..10); for "ordinal" it fixes the order of the categories. Raises ValueError for
    an unknown level, ragged rows, or values outside `value_domain`.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    data = matrix(matrix_, ragged=False)
    present = ~np.isnan(data)
    domain = None if value_domain is None else np.asarray(value_domain, dtype=float)
    if domain is not None and not np.isin(data[present], domain).all():
        raise ValueError("the ratings contain values outside value_domain")
    pairable = present.sum(axis=0) >= 2
    pairable_values = data[:, pairable][present[:, pairable]]
    if pairable.sum() < 2 or np.unique(pairable_values).size < 2:
        return None
    if domain is None:  # a value_domain may order the ordinal categories otherwise than by value
        counted = _few_patterns(data[:, pairable])
        if counted is not None:
            values, patterns, pattern_of = counted
            times = np.bincount(pattern_of, minlength=patterns.shape[0])[None, :]
            return finite(coincidence_alpha(_coincidences(patterns, times), values, level)[0])
    distinct = np.unique(data[present]).size if domain is None else domain.size
    if level == "interval" and data.shape[1] * distinct**2 > _KRIPPENDORFF_CELLS:
        return _interval_alpha(data)
    with np.errstate(all="ignore"):
        result = krippendorff.alpha(data, value_domain=domain, level_of_measurement=level)
    return finite(result)


def pairable_units(matrix_: Ratings) -> int:
    """The units (columns) of raters x units that two or more raters rated: what alpha is computed on."""
    data = matrix(matrix_, ragged=False)
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
    return finite(1.0 - float(within.sum()) / n / expected)


def distances(values: np.ndarray, counts: np.ndarray, level: str) -> np.ndarray:
    """The squared distances between the sorted distinct `values` at `level`, as the krippendorff
    package defines them: (k, k), or (rows, k, k) for "ordinal", whose distance depends on how
    many ratings lie between two values (`counts`: (rows, k))."""
    if level == "nominal":
        return (values[:, None] != values[None, :]).astype(float)
    if level == "ordinal":
        cum = np.cumsum(counts, axis=1)
        # Between values i <= j (both included) lie cum[j] - cum[i] + counts[i] ratings.
        lower = np.arange(values.size)[:, None] <= np.arange(values.size)[None, :]
        span = np.where(
            lower,
            cum[:, None, :] - cum[:, :, None] + counts[:, :, None],
            cum[:, :, None] - cum[:, None, :] + counts[:, None, :],
        )
        return (span - (counts[:, :, None] + counts[:, None, :]) / 2) ** 2
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    total = values[:, None] + values[None, :]
    with np.errstate(all="ignore"):
        return np.where(total != 0, (values[:, None] - values[None, :]) / total, 0.0) ** 2


def coincidence_alpha(coincidences: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Alpha of each (k, k) coincidence matrix of a stack (rows, k, k) over the sorted distinct
    `values`: 1 - (n - 1) sum(o * d) / sum(n_c n_k d); NaN where the values do not vary."""
    counts = coincidences.sum(axis=2)
    total = counts.sum(axis=1)
    delta = np.broadcast_to(distances(values, counts, level), coincidences.shape)
    observed = (coincidences * delta).sum(axis=(1, 2))
    expected = (np.matmul(counts[:, None, :], delta)[:, 0, :] * counts).sum(axis=1)
    with np.errstate(all="ignore"):
        return np.where(expected > 0, 1 - (total - 1) * observed / expected, np.nan)


def alpha_resampling(matrix_: Ratings, level: Level = "interval", *, resamples: int = 1000) -> tuple[int, Resampling]:
    """The bootstrap of `krippendorff_alpha` of raters x units over its pairable units (the number of
    them, and the Resampling of alpha over them, the units resampled with replacement)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    data = matrix(matrix_, ragged=False)
    data = data[:, (~np.isnan(data)).sum(axis=0) >= 2] if data.size else np.empty((0, 0))
    counted = _few_patterns(data)
    if counted is not None:
        values, patterns, pattern_of = counted
        return data.shape[1], Resampling(
            _pattern_alpha(patterns, pattern_of, values, level), 1, resamples, counting=True
        )
    if level == "interval":
        return data.shape[1], Resampling(_closed_form_alpha(data), 1, resamples, counting=True)

    def statistic(block: Block) -> np.ndarray:
        return np.array(
            [[np.nan if (a := krippendorff_alpha(data[:, row], level)) is None else a] for row in block.indices]
        )

    return data.shape[1], Resampling(statistic, 1, resamples)


def _few_patterns(data: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """`_patterns` of raters x units while patterns x values x values stays under `_PATTERN_CELLS`, else
    None. A unit's pattern holds at most one value per rater, so k distinct values make at least k /
    raters patterns: past the limit by that count alone, the units x values counts are never built
    (3,000 averaged scores of 4 raters: 12,000 values, a 288 MB array for nothing)."""
    values = np.unique(data[~np.isnan(data)])
    if math.ceil(values.size / max(data.shape[0], 1)) * values.size**2 > _PATTERN_CELLS:
        return None
    patterns, pattern_of = _patterns(data, values)
    return (values, patterns, pattern_of) if patterns.shape[0] * values.size**2 <= _PATTERN_CELLS else None


def _patterns(data: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rating patterns of the units of pairable raters x units (patterns x `values`, the
    sorted distinct values: how many ratings of each value), and each unit's pattern."""
    present = ~np.isnan(data)
    units, raters = np.nonzero(present.T)
    k = values.size
    per_unit = np.bincount(
        units * k + np.searchsorted(values, data.T[units, raters]), minlength=data.shape[1] * k
    ).reshape(data.shape[1], k)
    if not per_unit.size:
        return per_unit.astype(float), np.zeros(data.shape[1], dtype=np.intp)
    base = data.shape[0] + 1  # a unit's count of one value is at most the number of raters
    if k * np.log2(base) < 62:  # each pattern as one integer
        _, first, pattern_of = np.unique(
            per_unit @ base ** np.arange(k, dtype=np.int64), return_index=True, return_inverse=True
        )
        return per_unit[first].astype(float), pattern_of.reshape(-1)
    order = np.lexsort(per_unit.T[::-1])
    ranked = per_unit[order]
    first = np.r_[True, np.any(ranked[1:] != ranked[:-1], axis=1)]
    pattern_of = np.empty(order.size, dtype=np.intp)
    pattern_of[order] = np.cumsum(first) - 1
    return ranked[first].astype(float), pattern_of


def _coincidences(patterns: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The coincidence matrices (rows, values, values) of sets of units holding each pattern `times`
    (rows, patterns) times: a unit whose m ratings count c_v of each value adds (c c^T - diag(c)) / (m - 1)."""
    weighted = times * (1.0 / (patterns.sum(axis=1) - 1))
    found = np.stack([(weighted * patterns[:, v]) @ patterns for v in range(patterns.shape[1])], axis=1)
    diagonal = np.arange(patterns.shape[1])
    found[:, diagonal, diagonal] -= weighted @ patterns
    return found


def _pattern_alpha(patterns: np.ndarray, pattern_of: np.ndarray, values: np.ndarray, level: str):
    """Alpha per resample from its coincidences, summed over the patterns of the units drawn."""
    order = np.argsort(pattern_of, kind="stable")
    starts = np.flatnonzero(np.r_[True, pattern_of[order][1:] != pattern_of[order][:-1]])

    def statistic(block: Block) -> np.ndarray:
        if block.counted:
            times = np.add.reduceat(block.counts[:, order], starts, axis=1)
        else:
            times = np.stack([np.bincount(pattern_of[row], minlength=patterns.shape[0]) for row in block.indices])
        return coincidence_alpha(_coincidences(patterns, times), values, level)[:, None]

    return statistic


def _closed_form_alpha(data: np.ndarray):
    """Interval alpha per resample in the closed form of `_interval_alpha`, from each unit's number
    of ratings, their mean and their sum of squared deviations (weighted by the draws); NaN where
    the drawn ratings do not vary."""
    m = (~np.isnan(data)).sum(axis=0).astype(float)
    means = np.nanmean(data, axis=0)
    centre = float(np.average(means, weights=m))
    within = np.nansum((data - means) ** 2, axis=0)
    columns = np.stack([m, 2 * m * within / (m - 1), within, m * (means - centre), m * (means - centre) ** 2], axis=1)
    low, high = np.nanmin(data, axis=0), np.nanmax(data, axis=0)

    def statistic(block: Block) -> np.ndarray:
        n, disagreement, squares, shift, spread = (block.counts @ columns).T
        # sum over the drawn ratings of (value - their mean)^2, from the units' parts
        total = squares + spread - shift**2 / n
        drawn = block.counts > 0
        varies = np.where(drawn, high, -np.inf).max(axis=1) > np.where(drawn, low, np.inf).min(axis=1)
        with np.errstate(all="ignore"):
            alpha = 1.0 - disagreement / n / (2 * total / (n - 1))
        return np.where(varies & (total > 0), alpha, np.nan)[:, None]

    return statistic


def alpha_interval(
    matrix_: Ratings, level: Level = "interval", *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> Interval:
    """Bootstrap interval of `krippendorff_alpha` of raters x units, its pairable units resampled."""
    n, wanted = alpha_resampling(matrix_, level, resamples=resamples)
    return bootstrap_together(n, [wanted], seed=seed, confidence=confidence)[0][0]

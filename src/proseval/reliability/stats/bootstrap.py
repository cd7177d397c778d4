"""Percentile bootstrap intervals over items resampled with replacement.

The resamples are drawn from a seeded generator in blocks of rows; the draws depend only on the
number of items, the number of resamples and the seed, and the draws of fewer resamples are the
first rows of more. So several statistics of the same items can be resampled jointly from one pass
of draws (`bootstrap_together`), each over as many resamples as it asks for, with the same result
as resampling each alone. Most statistics are sums over the drawn items, which follow from how
many times each item was drawn in a resample (`Block.counts`, computed once per block and shared).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from .inputs import Values, floats, paired

# Bootstrap draws are made in blocks of at most this many indices, to bound memory (~16 MB).
BLOCK = 2_000_000
# A bootstrap interval needs the statistic defined in at least this many resamples.
MIN_VALID = 100
# A block's counts of each item are computed up front when at least this many of the statistics
# resampled on it can use them; fewer read the drawn items directly, which costs less than counting.
_SHARED_COUNTS = 3


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval; low and high are None (with the reason in `note`) when it
    cannot be given: a single item, or too few resamples where the statistic is defined."""

    low: float | None
    high: float | None
    valid: int  # resamples in which the statistic was defined
    note: str = ""


class Block:
    """One block of resamples: the item indices drawn, a (rows, n) array, and how many times each
    item was drawn in each row (computed when first asked, then shared by every statistic)."""

    def __init__(self, indices: np.ndarray, parent: Block | None = None):
        self.indices = indices
        self._parent = parent
        self._counts: np.ndarray | None = None

    @property
    def counts(self) -> np.ndarray:
        """(rows, n) floats: the times each item was drawn in each resample."""
        if self._counts is None:
            rows = self.indices.shape[0]
            if self._parent is not None:
                self._counts = self._parent.counts[:rows]
            else:
                n = self.indices.shape[1]
                self._counts = np.empty((rows, n))
                for row, drawn in enumerate(self.indices):  # one row at a time is faster than flat offsets
                    self._counts[row] = np.bincount(drawn, minlength=n)
        return self._counts

    @property
    def counted(self) -> bool:
        """Whether the counts are at hand (computed for another statistic of the block)."""
        return self._counts is not None or (self._parent is not None and self._parent.counted)

    def head(self, rows: int) -> Block:
        """The first `rows` resamples of the block."""
        return self if rows >= self.indices.shape[0] else Block(self.indices[:rows], self)


@dataclass(frozen=True)
class Resampling:
    """A statistic to bootstrap: `statistic` maps a Block of resamples to a (rows, count) array of
    `count` values per resample (NaN where one is undefined, which is then dropped for it).
    `counting`: it can use the block's counts (`Block.counted`), which are computed up front for a
    block that several such statistics share."""

    statistic: Callable[[Block], np.ndarray]
    count: int = 1
    resamples: int = 1000
    min_valid: int = MIN_VALID
    counting: bool = False


def draws(n: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The item indices of `resamples` resamples of `n` items, in blocks of rows."""
    rng = np.random.Generator(np.random.PCG64(seed))
    block = max(1, BLOCK // n)
    for start in range(0, resamples, block):
        yield rng.integers(0, n, size=(min(block, resamples - start), n))


def _check(confidence: float, resamples: int) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if resamples < 1:
        raise ValueError(f"resamples must be positive, got {resamples}")


def percentile_interval(values: np.ndarray, resamples: int, confidence: float, min_valid: int) -> Interval:
    """The percentile interval of one statistic's resampled values (NaN = undefined there)."""
    kept = values[np.isfinite(values)]
    if kept.size < min_valid:
        return Interval(
            None, None, int(kept.size), f"defined in {kept.size} of {resamples} resamples (under {min_valid})"
        )
    tail = (1 - confidence) / 2
    low, high = np.quantile(kept, [tail, 1 - tail])
    return Interval(float(low), float(high), int(kept.size))


def bootstrap_together(
    n: int, wanted: Sequence[Resampling], *, seed: int = 0, confidence: float = 0.95
) -> list[list[Interval]]:
    """Percentile intervals of several statistics of the same `n` items from one pass of draws: for
    each Resampling, its `count` intervals, each the same as `bootstrap` of it alone gives. No
    interval for fewer than two items."""
    for one in wanted:
        _check(confidence, one.resamples)
    if n < 2 or not wanted:
        return [[Interval(None, None, 0, f"n = {n}: no interval")] * one.count for one in wanted]
    return [
        [percentile_interval(column, one.resamples, confidence, one.min_valid) for column in values.T]
        for one, values in zip(wanted, _resampled(n, wanted, seed))
    ]


def _resampled(n: int, wanted: Sequence[Resampling], seed: int) -> list[np.ndarray]:
    """Each statistic's values on its resamples, (resamples, count), from one pass of draws."""
    found: list[list[np.ndarray]] = [[] for _ in wanted]
    start = 0
    for indices in draws(n, max(one.resamples for one in wanted), seed):
        block = Block(indices)
        active = [i for i, one in enumerate(wanted) if start < one.resamples]
        if sum(wanted[i].counting for i in active) >= _SHARED_COUNTS:
            block.counts  # noqa: B018  (computed once, for all of them)
        for i in active:
            found[i].append(np.asarray(wanted[i].statistic(block.head(wanted[i].resamples - start)), dtype=float))
        start += indices.shape[0]
    return [np.concatenate(values).reshape(one.resamples, one.count) for one, values in zip(wanted, found)]


def bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    n: int,
    *,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    min_valid: int = MIN_VALID,
    count: int = 1,
) -> list[Interval]:
    """Percentile intervals of one or more statistics over `n` items resampled with replacement.

    `statistic` maps a block of resamples, an (rows, n) array of item indices, to an (rows, count)
    array of `count` statistics (NaN where one is undefined in a resample, which is then dropped for that
    statistic). No interval for fewer than two items or fewer than `min_valid` valid resamples (the
    reason is in `note`).
    """
    wanted = Resampling(lambda block: statistic(block.indices), count, resamples, min_valid)
    return bootstrap_together(n, [wanted], seed=seed, confidence=confidence)[0]


def bootstrap_each(
    statistic: Callable[[np.ndarray], float | None],
    n: int,
    *,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """`bootstrap` of a statistic computed one resample at a time (`statistic`: the item indices of
    one resample -> its value, None where undefined): for statistics with no vectorised form."""

    def rows_of(rows: np.ndarray) -> np.ndarray:
        return np.array([[np.nan if (value := statistic(row)) is None else value] for row in rows])

    (found,) = bootstrap(rows_of, n, resamples=resamples, seed=seed, confidence=confidence)
    return found


# --- sums over the drawn items -------------------------------------------------------------------


def summing(values: np.ndarray) -> Callable[[Block], np.ndarray]:
    """Per resample, the sum of `values` (n, or n x columns) over the drawn items: (rows,) or (rows,
    columns). From the counts of each item when every value is finite and the counts are at hand
    (or there are several columns); else from the drawn values, so that an infinite or NaN value
    spoils only the resamples that drew it."""
    finite = bool(np.isfinite(values).all())

    def total(block: Block) -> np.ndarray:
        if finite and (block.counted or values.ndim > 1):
            return block.counts @ values
        return values[block.indices].sum(axis=1)

    return total


def mean_resampling(values: np.ndarray, *, resamples: int = 1000, min_valid: int = MIN_VALID) -> Resampling:
    """The mean of `values` (none missing) in each resample."""
    total = summing(values)
    return Resampling(lambda block: (total(block) / values.size)[:, None], 1, resamples, min_valid, counting=True)


def mean_interval(values: Values, *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95) -> Interval:
    """Bootstrap interval of the mean of `values` (missing ones dropped); of 0/1 values, a share."""
    data = floats(values)
    data = data[~np.isnan(data)]
    wanted = mean_resampling(data, resamples=resamples, min_valid=1)
    return bootstrap_together(data.size, [wanted], seed=seed, confidence=confidence)[0][0]


@dataclass(frozen=True)
class MeanDifference:
    """Mean of x - y over the complete pairs, with a percentile bootstrap CI."""

    mean: float | None
    low: float | None
    high: float | None
    n: int
    confidence: float


def differences(x: Values, y: Values) -> np.ndarray:
    """x - y over the complete pairs, sorted (so an interval of their mean does not depend on the
    order of the items)."""
    a, b = paired(x, y)
    return np.sort(a - b)


def mean_difference(
    x: Values, y: Values, *, resamples: int = 2000, seed: int = 0, confidence: float = 0.95
) -> MeanDifference:
    """Is the judge harsher or more lenient than the reference, and how sure are we.

    Pairs are resampled together (paired bootstrap), so item difficulty shared by both raters does
    not widen the interval. The mean alone is given for a single pair; all None for none.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    diffs = differences(x, y)
    if diffs.size < 2:
        return mean_difference_of(diffs, Interval(None, None, 0), confidence)
    found = mean_interval(diffs, resamples=resamples, seed=seed, confidence=confidence)
    return mean_difference_of(diffs, found, confidence)


def mean_difference_of(diffs: np.ndarray, found: Interval, confidence: float = 0.95) -> MeanDifference:
    """The MeanDifference of sorted differences and the interval of their mean."""
    if diffs.size == 0:
        return MeanDifference(None, None, None, 0, confidence)
    return MeanDifference(float(diffs.mean()), found.low, found.high, int(diffs.size), confidence)


def gap_difference_interval(
    gaps: Values, first: Sequence[bool], *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> Interval:
    """Bootstrap interval of mean(gaps where `first`) - mean(gaps elsewhere), both kinds of item
    resampled together (a resample lacking either kind is dropped): e.g. self-preference."""
    g, own = floats(gaps), np.asarray(first, dtype=bool)
    if g.size != own.size:
        raise ValueError("gaps and their flags differ in length")
    total = summing(np.stack([own, np.where(own, g, 0.0), np.where(own, 0.0, g)], axis=1).astype(float))

    def statistic(block: Block) -> np.ndarray:
        n_own, own_sum, other_sum = total(block).T
        with np.errstate(all="ignore"):
            return (own_sum / n_own - other_sum / (g.size - n_own))[:, None]

    return bootstrap_together(g.size, [Resampling(statistic, 1, resamples)], seed=seed, confidence=confidence)[0][0]


def ratio_interval(
    numerators: Values, denominators: Values, *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> Interval:
    """Bootstrap interval of sum(numerators) / sum(denominators) over clusters resampled whole (e.g.
    the pairs of answers to one instruction that the judge and people order alike, of those people
    order): a resample whose denominators sum to 0 is undefined."""
    top, bottom = floats(numerators), floats(denominators)
    if top.size != bottom.size:
        raise ValueError("numerators and denominators differ in length")
    total = summing(np.stack([top, bottom], axis=1))

    def statistic(block: Block) -> np.ndarray:
        over, under = total(block).T
        with np.errstate(all="ignore"):
            return np.where(under > 0, over / under, np.nan)[:, None]

    return bootstrap_together(top.size, [Resampling(statistic, 1, resamples)], seed=seed, confidence=confidence)[0][0]

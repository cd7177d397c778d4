"""Length bias of pointwise scores: does the judge give longer answers more points.

`length_slope` is the within-group slope of score on log2 length; `length_controlled_means` fits it
net of system and group effects and gives each system's mean with it taken out. Their intervals
(`length_slope_interval`, `length_beta_interval`) refit on every resample from weighted group sums.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .bootstrap import Block, Interval, Resampling, bootstrap_together
from .inputs import EQUAL, Labels, Values, codes, floats, group_demean

if TYPE_CHECKING:
    from scipy import sparse

# A resample's beta is solved from its weighted cross-products when they are well conditioned: the
# system dummies' smallest eigenvalue at least this share of the largest, the length deviation's
# sum of squares at least _BETA_SPREAD and its part left by the dummies at least _BETA_LEFT of it.
# Other resamples (near the points where beta is undefined) are refitted from their drawn items.
_BETA_CONDITION = 1e-3
_BETA_SPREAD = 1e-6
_BETA_LEFT = 1e-3


def _length_inputs(
    scores: Values, lengths: Values, groups: Labels, *others: Labels
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Complete items only: scores, log2 lengths (0 words counts as 1), group codes, other labels."""
    y, length = floats(scores), floats(lengths)
    sizes = {y.size, length.size, len(groups), *(len(o) for o in others)}
    if len(sizes) != 1:
        raise ValueError("scores, lengths and labels must have the same length")
    if np.any(length[~np.isnan(length)] < 0):
        raise ValueError("lengths must be non-negative word counts")
    keep = ~(np.isnan(y) | np.isnan(length))
    index = np.flatnonzero(keep)

    def kept(labels: Labels) -> np.ndarray | list[Hashable]:
        return labels[index] if isinstance(labels, np.ndarray) else [labels[i] for i in index.tolist()]

    group, _ = codes(kept(groups))
    rest = [o[index] if isinstance(o, np.ndarray) else np.array(kept(o), dtype=object) for o in others]
    return y[keep], np.log2(np.maximum(length[keep], 1.0)), group, rest


def length_spread(lengths: Values, groups: Sequence[Hashable]) -> float:
    """The spread of log2 length the within-group slopes learn from: the root mean square of each
    answer's log2 length (words) minus its group's mean, in doublings (0.0 with no answer)."""
    _, x, group, _ = _length_inputs(np.zeros(len(groups)), lengths, groups)
    return float(np.sqrt(np.mean(group_demean(x, group) ** 2))) if x.size else 0.0


@dataclass(frozen=True)
class LengthSlope:
    slope: float | None  # score points per doubling of length, within groups
    n: int  # items in groups of two or more


def length_slope(scores: Values, lengths: Values, groups: Labels) -> LengthSlope:
    """Within-group OLS slope of score on log2(length in words).

    Groups are prompts (or items): subtracting each group's mean from both score and log length
    compares answers to the same prompt, so a prompt that calls for long answers and happens to be
    easy does not pass for length bias. A group with one item has nothing to compare and
    contributes nothing. None if no group has variation in length.
    """
    y, x, group, _ = _length_inputs(scores, lengths, groups)
    multi = np.bincount(group)[group] >= 2 if group.size else np.zeros(0, dtype=bool)
    n = int(multi.sum())
    if n == 0:
        return LengthSlope(None, 0)
    xd, yd = group_demean(x, group), group_demean(y, group)
    sxx = float(xd @ xd)
    if sxx <= EQUAL:
        return LengthSlope(None, n)
    return LengthSlope(float(xd @ yd) / sxx, n)


def _group_sums(row_of: np.ndarray, group: np.ndarray, k: int, columns: np.ndarray) -> sparse.csr_array:
    """The (rows of `row_of`, columns x k) matrix summing each item's `columns` into its group: a
    resample's counts per row times it give the drawn sums of every column in every group."""
    from scipy import sparse  # here: importing scipy takes a command 0.6 s, and most need none

    width = columns.shape[1]
    return sparse.csr_array(
        (columns.ravel(), (np.repeat(row_of, width), (np.arange(width)[None, :] * k + group[:, None]).ravel())),
        shape=(int(row_of.max()) + 1 if row_of.size else 0, width * k),
    )


def _within(
    block_counts: np.ndarray, by_group: sparse.csr_array, products: np.ndarray, k: int, width: int
) -> np.ndarray:
    """Per resample, the within-group cross-products of the columns after the first (rows, width - 1,
    width - 1): the drawn sum of z z^T less, in every group drawn, (sum of z)(sum of z)^T / its
    weight. The first column is the constant 1, whose group sums are the groups' weights;
    `products` holds each row's z z^T of the other columns, flattened."""
    rows = block_counts.shape[0]
    grouped = np.asarray(block_counts @ by_group).T.reshape(width, k, rows)  # scipy's product is column-major
    # A group not drawn has weight 0 and sums 0: divided by 1 instead, it adds nothing.
    scaled = grouped[1:] / np.maximum(grouped[0], 1.0)
    total = (block_counts @ products).reshape(rows, width - 1, width - 1)
    return total - np.einsum("igr,jgr->rij", scaled, grouped[1:])


def length_slope_interval(
    scores: Values,
    lengths: Values,
    groups: Labels,
    units: Labels | None = None,
    *,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """Bootstrap interval of `length_slope`, resampling `units` whole (default: each item its own): the
    verdicts on one answer share its length, so they are drawn together. Each resample's
    within-group slope comes from its unit-weighted group sums (a group drawn once contributes
    nothing), vectorised."""
    labels, _ = codes(
        units if isinstance(units, np.ndarray) else list(units) if units is not None else np.arange(len(groups))
    )
    y, x, group, (kept,) = _length_inputs(scores, lengths, groups, labels)
    unit, _ = codes(kept)  # the units of the complete items, numbered again from 0
    k = int(group.max()) + 1 if group.size else 0
    m = int(unit.max()) + 1 if unit.size else 0
    # Centred on their groups' means (no change to within-group sums, less rounding in them).
    xc, yc = group_demean(x, group) if x.size else x, group_demean(y, group) if y.size else y
    columns = np.stack([np.ones_like(xc), xc, yc], axis=1)
    by_group = _group_sums(unit, group, k, columns)
    products = np.zeros((m, 4))
    np.add.at(products, unit, (columns[:, 1:, None] * columns[:, None, 1:]).reshape(-1, 4))

    def statistic(block: Block) -> np.ndarray:
        cross = _within(block.counts, by_group, products, k, 3)
        sxx, sxy = cross[:, 0, 0], cross[:, 0, 1]
        with np.errstate(all="ignore"):
            return np.where(sxx > EQUAL, sxy / sxx, np.nan)[:, None]

    return bootstrap_together(
        m, [Resampling(statistic, 1, resamples, counting=True)], seed=seed, confidence=confidence
    )[0][0]


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
    y, x, group, (labels,) = _length_inputs(scores, lengths, groups, systems)
    system, names = codes(list(labels))
    raw = {name: float(y[system == s].mean()) for s, name in enumerate(names)}
    deviation = group_demean(x, group) if y.size else x
    beta = _length_beta(y, deviation, group, system, len(names))
    means = {
        name: (
            raw[name],
            None if beta is None else float((y - beta * deviation)[system == s].mean()),
        )
        for s, name in enumerate(names)
    }
    return LengthControlled(beta, int(y.size), means)


def length_beta_interval(
    scores: Values,
    lengths: Values,
    groups: Sequence[Hashable],
    systems: Sequence[Hashable],
    *,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """Bootstrap interval of the beta of `length_controlled_means`, resampling items (refitted per
    resample; a resample where length is confounded with system is dropped)."""
    y, x, group, (labels,) = _length_inputs(scores, lengths, groups, systems)
    system, names = codes(list(labels))
    wanted = Resampling(_beta_statistic(y, x, group, system, len(names)), 1, resamples, counting=True)
    return bootstrap_together(y.size, [wanted], seed=seed, confidence=confidence)[0][0]


def _beta_statistic(y: np.ndarray, x: np.ndarray, group: np.ndarray, system: np.ndarray, n_systems: int):
    """beta of `_length_beta` per resample (weighted by the draws), from the within-group
    cross-products of [1, system dummies, log2 length, score]: residualising the length on the
    dummies is solving their normal equations. Resamples where that is ill-conditioned, or beta is
    near undefined, are refitted from their drawn items as `_length_beta` does."""
    k = int(group.max()) + 1 if group.size else 0
    dummies = (system[:, None] == np.arange(1, n_systems)[None, :]).astype(float)
    columns = np.concatenate([np.ones((y.size, 1)), dummies, x[:, None], y[:, None]], axis=1)
    if y.size:  # centred on their groups' means: no change to within-group sums, less rounding in them
        columns[:, 1:] = group_demean(columns[:, 1:], group)
    width = columns.shape[1]
    by_group = _group_sums(np.arange(y.size), group, k, columns)
    products = (columns[:, 1:, None] * columns[:, None, 1:]).reshape(-1, (width - 1) ** 2)
    d, lx, ly = (
        slice(0, n_systems - 1),
        n_systems - 1,
        n_systems,
    )  # in the cross-products of the columns after the first

    def refit(row: np.ndarray) -> float:
        groups_drawn = np.unique(group[row], return_inverse=True)[1]
        beta = _length_beta(y[row], group_demean(x[row], groups_drawn), groups_drawn, system[row], n_systems)
        return np.nan if beta is None else beta

    def statistic(block: Block) -> np.ndarray:
        cross = _within(block.counts, by_group, products, k, width)
        sxx, sxy = cross[:, lx, lx], cross[:, lx, ly]
        safe = sxx >= _BETA_SPREAD
        if n_systems > 1:
            gram, towards_x, towards_y = cross[:, d, d], cross[:, d, lx], cross[:, d, ly]
            eigen = np.linalg.eigvalsh(gram)
            safe &= (eigen[:, 0] > 0) & (eigen[:, 0] >= _BETA_CONDITION * eigen[:, -1])
            coef = np.zeros_like(towards_x)
            if safe.any():
                coef[safe] = np.linalg.solve(gram[safe], towards_x[safe][:, :, None])[:, :, 0]
            left = sxx - (towards_x * coef).sum(axis=1)
            along = sxy - (towards_y * coef).sum(axis=1)
            safe &= left >= _BETA_LEFT * sxx
        else:
            left, along = sxx, sxy
        with np.errstate(all="ignore"):
            beta = np.where(safe, along / left, np.nan)
        for row in np.flatnonzero(~safe):
            beta[row] = refit(block.indices[row])
        return beta[:, None]

    return statistic


def _length_beta(
    y: np.ndarray, deviation: np.ndarray, groups: np.ndarray, systems: np.ndarray, n_systems: int
) -> float | None:
    """beta of the length deviation net of system and group effects (FWL); None if unidentified."""
    if y.size < 2 or float(deviation @ deviation) <= EQUAL:
        return None
    yd = group_demean(y, groups)
    if n_systems > 1:
        dummies = (systems[:, None] == np.arange(1, n_systems)[None, :]).astype(float)  # first dropped
        dummies = group_demean(dummies, groups)
        coef, *_ = np.linalg.lstsq(dummies, deviation, rcond=None)
        residual = deviation - dummies @ coef
    else:
        residual = deviation
    srr = float(residual @ residual)
    if srr <= 1e-10 * float(deviation @ deviation):
        return None
    return float(residual @ yd) / srr

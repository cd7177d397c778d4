"""Rank and linear correlations of two raters, on items and on the models they rank.

`spearman`, `kendall_tau_b` and `pearson` over the items both rated; `system_kendall` between two
judges' per-model means (does the judge order the models as the reference does), with `ranking`
and `system_kendall_resampling`, its bootstrap over the items.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np

from .bootstrap import Block, Resampling
from .inputs import Values, finite, paired

FEW = 64  # up to this many items, tau-b is counted pair by pair (a scipy call costs more)


def _correlation(x: Values, y: Values, method) -> float | None:
    """Run a scipy correlation on the complete pairs; None if undefined (n < 2, a constant rater)."""
    a, b = paired(x, y)
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return finite(method(a, b))


def spearman(x: Values, y: Values) -> float | None:
    """Spearman's rho: agreement on the ordering of items, insensitive to scale use (ties averaged)."""
    from scipy import stats as scipy_stats  # here: importing scipy takes a command 0.6 s, and most need none

    return _correlation(x, y, lambda a, b: scipy_stats.spearmanr(a, b).statistic)


def kendall_tau_b(x: Values, y: Values) -> float | None:
    """Kendall's tau-b: share of concordant minus discordant pairs, corrected for ties, which
    coarse judge scales (1-10) produce in bulk."""
    return _correlation(x, y, _tau_b)


def _tau_b(a: np.ndarray, b: np.ndarray) -> float:
    """scipy's tau-b, counted over every pair directly for a few items (a system tau over a handful
    of models is bootstrapped a thousand times)."""
    if a.size > FEW:
        from scipy import stats as scipy_stats

        return scipy_stats.kendalltau(a, b, variant="b").statistic
    upper = np.triu_indices(a.size, 1)
    dx, dy = np.sign(np.subtract.outer(a, a)[upper]), np.sign(np.subtract.outer(b, b)[upper])
    pairs = dx.size
    untied_x, untied_y = pairs - int(np.count_nonzero(dx == 0)), pairs - int(np.count_nonzero(dy == 0))
    return float(dx @ dy) / math.sqrt(untied_x) / math.sqrt(untied_y)


def pearson(x: Values, y: Values) -> float | None:
    """Pearson's r: linear agreement; sensitive to outliers and to how each rater uses the scale."""
    from scipy import stats as scipy_stats

    return _correlation(x, y, lambda a, b: scipy_stats.pearsonr(a, b).statistic)


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


def _exact_sums(values: np.ndarray) -> bool:
    """Whether every sum of these values over a resample is exact in floating point (integers, not
    huge), so that sums in any order agree to the last bit."""
    return not values.size or bool(np.all(values == np.round(values)) and np.abs(values).max() * values.size < 2.0**52)


def system_kendall_resampling(
    a: np.ndarray, b: np.ndarray, models: np.ndarray, n_models: int, *, resamples: int = 1000
) -> Resampling:
    """The bootstrap of `system_kendall` of per-model means over items resampled with replacement:
    item i is model `models[i]` (0 .. n_models - 1, in the order of the models' names) scored `a[i]`
    and `b[i]`; a model not drawn in a resample is left out of its tau.

    Ties between two models' means decide tau, so each resample's means are summed as exactly as
    one at a time: from the counts of each item when the scores are integers (exact in any order),
    else item by item in the order drawn.
    """
    one_hot = (models[:, None] == np.arange(n_models)[None, :]).astype(float)
    columns = np.concatenate([one_hot, one_hot * a[:, None], one_hot * b[:, None]], axis=1)
    exact = _exact_sums(a) and _exact_sums(b)
    upper = np.triu_indices(n_models, 1)

    def means(block: Block) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if exact:
            counts, sums_a, sums_b = np.split(block.counts @ columns, 3, axis=1)
        else:
            rows = block.indices.shape[0]
            flat = (models[block.indices] + (np.arange(rows) * n_models)[:, None]).ravel()
            size = rows * n_models
            counts, sums_a, sums_b = (
                np.bincount(flat, weights=w, minlength=size).reshape(rows, n_models)
                for w in (None, a[block.indices].ravel(), b[block.indices].ravel())
            )
        with np.errstate(all="ignore"):
            return counts > 0, sums_a / counts, sums_b / counts

    def statistic(block: Block) -> np.ndarray:
        present, mean_a, mean_b = means(block)
        if n_models > FEW:
            return np.array(
                [
                    [np.nan if (tau := kendall_tau_b(ma[p], mb[p])) is None else tau]
                    for p, ma, mb in zip(present, mean_a, mean_b)
                ]
            )
        both = present[:, upper[0]] & present[:, upper[1]]
        with np.errstate(all="ignore"):
            dx = np.where(both, np.sign(mean_a[:, upper[0]] - mean_a[:, upper[1]]), 0.0)
            dy = np.where(both, np.sign(mean_b[:, upper[0]] - mean_b[:, upper[1]]), 0.0)
        pairs = both.sum(axis=1)
        untied_x, untied_y = pairs - ((dx == 0) & both).sum(axis=1), pairs - ((dy == 0) & both).sum(axis=1)
        with np.errstate(all="ignore"):
            tau = (dx * dy).sum(axis=1) / np.sqrt(untied_x) / np.sqrt(untied_y)
        return np.where((untied_x > 0) & (untied_y > 0), tau, np.nan)[:, None]

    return Resampling(statistic, 1, resamples, counting=exact)

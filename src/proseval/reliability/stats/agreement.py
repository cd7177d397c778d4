"""Absolute and chance-corrected agreement: two raters on the same items (`exact_agreement`,
`within_one`, `weighted_kappa`, and `score_agreement` bundling every pairwise statistic), and the
same judge asked several times (`repeat_consistency`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .alpha import krippendorff_alpha
from .correlation import kendall_tau_b, pearson, spearman
from .inputs import EQUAL, Values, matrix, paired

Weights = Literal["none", "linear", "quadratic"]
WEIGHTS: tuple[str, ...] = ("none", "linear", "quadratic")


def exact_agreement(x: Values, y: Values) -> float | None:
    """Share of pairs given the same score (integer scales); None if no pairs."""
    a, b = paired(x, y)
    return float(np.mean(np.abs(a - b) <= EQUAL)) if a.size else None


def within_one(x: Values, y: Values) -> float | None:
    """Share of pairs at most one point apart, the usual tolerance for 1-10 judge scales."""
    a, b = paired(x, y)
    return float(np.mean(np.abs(a - b) <= 1 + EQUAL)) if a.size else None


def _disagreement_weights(k: int, weights: str) -> np.ndarray:
    """The k x k disagreement weights: 0 on the diagonal, growing with the distance |i - j|."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown kappa weights {weights!r}; expected one of {WEIGHTS}")
    distance = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
    if weights == "none":
        return (distance > 0).astype(float)
    scale = max(k - 1, 1)
    return distance / scale if weights == "linear" else (distance / scale) ** 2


def weighted_kappa(x: Values, y: Values, low: int, high: int, weights: Weights = "quadratic") -> float | None:
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
    if expected_disagreement <= EQUAL:
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


# --- the same judge, asked several times ----------------------------------------------------------


@dataclass(frozen=True)
class RepeatConsistency:
    """How much one judge's score for an item moves between repeated calls."""

    n_items: int  # items with at least 2 scores
    mean_variance: float | None  # mean per-item sample variance (ddof=1)
    mean_std: float | None  # mean per-item sample standard deviation
    share_changed: float | None  # share of items not given the same score in every repeat
    alpha: float | None  # Krippendorff's alpha (interval), repeats as raters


def repeat_consistency(matrix_: Sequence[Sequence[float | None]] | np.ndarray) -> RepeatConsistency:
    """Consistency of items x repeats (None/NaN = missing; rows may differ in length).

    Items with fewer than two scores say nothing about consistency and are left out of the
    per-item statistics. Alpha treats each repeat as a rater: 1 means the repeats agree as much as
    possible given how much items differ, 0 means repeat noise is as large as the spread of items.
    """
    data = matrix(matrix_, ragged=True)
    if data.size == 0:
        return RepeatConsistency(0, None, None, None, None)
    rows = data[(~np.isnan(data)).sum(axis=1) >= 2]
    if rows.shape[0] == 0:
        return RepeatConsistency(0, None, None, None, None)
    variances = np.nanvar(rows, axis=1, ddof=1)
    changed = (np.nanmax(rows, axis=1) - np.nanmin(rows, axis=1)) > EQUAL
    return RepeatConsistency(
        n_items=int(rows.shape[0]),
        mean_variance=float(variances.mean()),
        mean_std=float(np.sqrt(variances).mean()),
        share_changed=float(changed.mean()),
        alpha=krippendorff_alpha(data.T, "interval"),
    )

"""Statistics over measured distances: rank correlation, pair agreement, stability, and 95% confidence
intervals (pure functions).

Intervals (`CONFIDENCE` = 0.95):

- a **mean** — the percentile bootstrap of the run's metric table
  (`proseval.runtime.aggregate.bootstrap_ci`: 1,000 resamples, seeded, so the same scores give
  the same interval); None for fewer than two values;
- a **rate** k/n — Wilson's score interval; None for n = 0;
- **Spearman's ρ** — Fisher's z transform with the standard error sqrt(1.06 / (n − 3)) that
  Fieller, Hartley and Pearson (1957) give for rank correlation; None for n < 4 or |ρ| = 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from proseval.kit.measures import bootstrap_ci

CONFIDENCE = 0.95
Interval = tuple[float, float] | None


def _z() -> float:
    return NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / 2)


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def mean_ci(values: Sequence[float]) -> Interval:
    """Percentile-bootstrap interval of the mean (see the module docstring)."""
    low, high = bootstrap_ci(values, level=CONFIDENCE)  # none below two values
    return None if low is None or high is None else (low, high)


def wilson_ci(successes: float, trials: int) -> Interval:
    """Wilson's score interval of the rate `successes` / `trials`."""
    if trials <= 0:
        return None
    z, n = _z(), trials
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def spearman_ci(rho: float | None, n: int) -> Interval:
    """Fisher-z interval of Spearman's ρ over `n` points (see the module docstring)."""
    if rho is None or n < 4 or abs(rho) >= 1:
        return None
    z, half = math.atanh(rho), _z() * math.sqrt(1.06 / (n - 3))
    return math.tanh(z - half), math.tanh(z + half)


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; tied values share the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    if len(x) != len(y) or len(x) < 2:
        return None
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return None  # a constant series has no rank correlation
    return sxy / math.sqrt(sxx * syy)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's ρ (Pearson on average ranks); None for fewer than 2 points or a constant series."""
    return pearson(average_ranks(x), average_ranks(y))


@dataclass(frozen=True)
class PairOutcome:
    """How the distances of a preferred (chosen) and a dispreferred (rejected) text compare."""

    agree: float  # 1 when the chosen text needs fewer edits, else 0
    tie: float  # 1 when both need as many

    @classmethod
    def of(cls, chosen: float, rejected: float) -> PairOutcome:
        return cls(agree=float(chosen < rejected), tie=float(chosen == rejected))


@dataclass(frozen=True)
class PairSummary:
    """Agreement, ties and disagreement over pairs (they add up to 1), each with its Wilson interval."""

    pairs: int
    agreement: float | None  # share of pairs where the chosen text needs fewer edits
    agreement_ci: Interval
    tie_rate: float | None
    tie_rate_ci: Interval
    disagreement: float | None  # the rejected text needs fewer edits
    disagreement_ci: Interval
    agreement_without_ties: float | None  # among the pairs that are not tied
    agreement_without_ties_ci: Interval


def summarise_pairs(outcomes: Sequence[tuple[float, float]]) -> PairSummary:
    """Agreement over (chosen, rejected) values, lower meaning better (negate a higher-is-better score)."""
    results = [PairOutcome.of(c, r) for c, r in outcomes]
    n = len(results)
    agree = sum(r.agree for r in results)
    ties = sum(r.tie for r in results)
    decided = n - ties

    def rate(k: float, of: float) -> float | None:
        return k / of if of else None

    return PairSummary(
        n,
        rate(agree, n),
        wilson_ci(agree, n),
        rate(ties, n),
        wilson_ci(ties, n),
        rate(decided - agree, n),
        wilson_ci(decided - agree, n),
        rate(agree, decided),
        wilson_ci(agree, int(decided)),
    )


@dataclass(frozen=True)
class StabilitySummary:
    drafts: int
    mean_abs_change: float | None
    mean_abs_change_ci: Interval
    share_unchanged: float | None
    share_unchanged_ci: Interval
    mean_relative_change: float | None  # |Δ| / max(1, original distance)
    mean_relative_change_ci: Interval
    max_abs_change: float | None


def distance_vs_human(
    rho_human_vs_neg_distance: float | None, ci: Interval | Sequence[float]
) -> tuple[float | None, Interval]:
    """The paper's sign convention: ρ(D, human) = −ρ(human, −D), its interval mirrored. Spearman's ρ
    is symmetric and negating one variable negates it, so the paper's R = −0.38 (distance against
    human scores: more edits, lower scores) is +0.38 in proseval's ρ(human, −D)."""
    rho = None if rho_human_vs_neg_distance is None else -rho_human_vs_neg_distance
    return rho, None if ci is None else (-float(ci[1]), -float(ci[0]))


def perturbation_spread(original: float, perturbed: Sequence[float]) -> dict[str, Any]:
    """App. H's check for one text: its distance, the distances of its perturbed copies, their spread
    (largest minus smallest perturbed distance), the largest |change| from the original and how many
    copies kept the original's distance."""
    values = [float(p) for p in perturbed]
    return {
        "original": float(original),
        "perturbed": values,
        "spread": max(values) - min(values) if values else None,
        "max_abs_change": max((abs(p - original) for p in values), default=None),
        "unchanged": sum(p == original for p in values),
    }


def summarise_stability(pairs: Sequence[tuple[float, float]]) -> StabilitySummary:
    """How much the distance moves from the original (first) to the perturbed (second) draft."""
    changes = [abs(p - o) for o, p in pairs]
    relative = [c / max(1.0, o) for c, (o, _) in zip(changes, pairs)]
    unchanged = sum(1 for c in changes if c == 0)
    return StabilitySummary(
        drafts=len(pairs),
        mean_abs_change=mean(changes),
        mean_abs_change_ci=mean_ci(changes),
        share_unchanged=unchanged / len(changes) if changes else None,
        share_unchanged_ci=wilson_ci(unchanged, len(changes)),
        mean_relative_change=mean(relative),
        mean_relative_change_ci=mean_ci(relative),
        max_abs_change=max(changes, default=None),
    )

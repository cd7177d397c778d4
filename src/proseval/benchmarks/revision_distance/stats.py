"""Statistics over measured distances: summaries, rank correlation, pair agreement, stability (pure)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


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


def median(values: Sequence[float]) -> float | None:
    data = sorted(values)
    if not data:
        return None
    middle = len(data) // 2
    return float(data[middle]) if len(data) % 2 else (data[middle - 1] + data[middle]) / 2


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
    pairs: int
    agreement: float | None  # share of pairs where the chosen text needs fewer edits
    tie_rate: float | None
    agreement_without_ties: float | None
    disagreement: float | None  # the rejected text needs fewer edits


def summarise_pairs(outcomes: Sequence[tuple[float, float]]) -> PairSummary:
    """Agreement over (chosen distance, rejected distance) pairs."""
    results = [PairOutcome.of(c, r) for c, r in outcomes]
    n = len(results)
    if not n:
        return PairSummary(0, None, None, None, None)
    agree = sum(r.agree for r in results)
    ties = sum(r.tie for r in results)
    decided = n - ties
    return PairSummary(n, agree / n, ties / n, agree / decided if decided else None, (decided - agree) / n)


@dataclass(frozen=True)
class StabilitySummary:
    drafts: int
    mean_abs_change: float | None
    share_unchanged: float | None
    mean_relative_change: float | None  # |Δ| / max(1, original distance)
    max_abs_change: float | None


def summarise_stability(pairs: Sequence[tuple[float, float]]) -> StabilitySummary:
    """How much the distance moves from the original (first) to the perturbed (second) draft."""
    if not pairs:
        return StabilitySummary(0, None, None, None, None)
    changes = [abs(p - o) for o, p in pairs]
    return StabilitySummary(
        drafts=len(pairs),
        mean_abs_change=sum(changes) / len(changes),
        share_unchanged=sum(1 for c in changes if c == 0) / len(changes),
        mean_relative_change=sum(c / max(1.0, o) for c, (o, _) in zip(changes, pairs)) / len(changes),
        max_abs_change=max(changes),
    )

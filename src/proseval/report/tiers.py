"""Tiers: a model ranks above another only where the data separates them.

Two runs are compared on the samples both scored with `compare.compare_values` (the paired
bootstrap interval of the mean difference). A run *beats* another when that 95% interval excludes
0 on its side; a run's tier is 1 + the number of runs that beat it. Runs in one tier are not shown
to differ, whatever their means; the rule reads each pair once, so the tiers do not depend on the
order the runs are given in (the bootstrap is seeded)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .compare import MetricDiff, compare_values

Values = Mapping[str, Mapping[str, float]]  # sample id -> metric -> the sample's mean over its epochs


def higher(diff: MetricDiff) -> str | None:
    """"A" or "B": the run whose values are higher, when the interval of B − A excludes 0; else None."""
    if diff.ci_low is not None and diff.ci_low > 0:
        return "B"
    if diff.ci_high is not None and diff.ci_high < 0:
        return "A"
    return None


def verdict(diff: MetricDiff) -> str:
    """`higher` in words: "B higher", "A higher", or "no difference shown" (a tie)."""
    side = higher(diff)
    return "no difference shown" if side is None else f"{side} higher"


def tiers(values: Sequence[Values], metric: str, *, lower_is_better: bool = False, seed: int = 0) -> list[int]:
    """Each run's tier on `metric` (1 is best): 1 + the runs that beat it with an interval excluding 0."""
    beaten = [0] * len(values)
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            (diff,) = compare_values(values[i], values[j], [metric], seed=seed)
            side = higher(diff)
            if side is not None:
                better_is_b = (side == "B") != lower_is_better
                beaten[i if better_is_b else j] += 1
    return [1 + n for n in beaten]

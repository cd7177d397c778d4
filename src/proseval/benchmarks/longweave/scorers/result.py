"""The value every LongWeave rule scorer returns, and the formulas the tasks share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Components at or below this value make a LongWeave harmonic mean 0 (the official gate).
HARMONIC_GATE = 1e-9


@dataclass(frozen=True)
class RuleScore:
    """One answer's score under a LongWeave rule metric.

    `value` is the task's primary metric (`None` when it could not be computed, with `reason`
    saying why; never 0 in that case). `metrics` holds every sub-score under its official name,
    the primary one included. `trace` explains how the numbers came about (counts, parsed
    items, the first problem met).
    """

    value: float | None
    metrics: dict[str, float | None]
    trace: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None


def gated_harmonic_mean(components: list[float]) -> float:
    """Harmonic mean of the components, or 0 when any of them is at or below the gate."""
    if any(c <= HARMONIC_GATE for c in components):
        return 0.0
    return len(components) / sum(1.0 / c for c in components)

"""What a judge rated in a sample: the units the judge-reliability analysis compares.

A benchmark's scores are often built from several judge verdicts (WritingBench: one 1-10 score
per criterion, averaged) or mix judged and computed values (the demo: a judged quality and a
counted length). Agreement, consistency and bias are measured on the verdicts themselves, so
each judged benchmark says what its judge rated through `Task.ratings`: a pure function from a
finished sample's scores to its `Rating`s. Only verdicts a judge actually gave count; a value
the benchmark set by rule (an empty answer scored 1 without asking) is not a rating.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from .score import Score

ScaleKind = Literal["ordinal", "interval", "binary"]

# Parse statuses of values that no judge gave (set by rule, or not applicable to the sample) when
# the score has a value; without one, "empty" is a judge's empty reply: an unscored verdict.
NOT_JUDGED = frozenset({"empty", "not_applicable"})


@dataclass(frozen=True)
class Scale:
    """The range of a verdict and how its values relate: ``ordinal`` (integer points, 1-5 or
    1-10, order matters, distances do not), ``interval`` (any number in the range), ``binary``
    (0 or 1: pass/fail, chosen/rejected)."""

    low: float
    high: float
    kind: ScaleKind = "ordinal"

    def __post_init__(self) -> None:
        if not self.low < self.high:
            raise ValueError(f"a scale needs low < high, got {self.low}..{self.high}")

    @property
    def integer(self) -> bool:
        """Whether exact and within-1 agreement apply (integer points)."""
        return self.kind in ("ordinal", "binary")

    def contains(self, value: float) -> bool:
        """Whether `value` is on the scale: within its range, and a whole number where points are."""
        return self.low <= value <= self.high and (not self.integer or float(value).is_integer())

    def describe(self) -> str:
        return f"{self.kind} {self.low:g}-{self.high:g}"


@dataclass(frozen=True)
class Rating:
    """One verdict of one role on one sample: `criterion` names what was rated (a metric, or a
    criterion within it); `value` None means the verdict could not be read (unscored)."""

    criterion: str
    value: float | None
    scale: Scale
    role: str = "judge"


Ratings = Callable[[Mapping[str, Score]], list[Rating]]


def rated_metrics(scales: Mapping[str, Scale], role: str = "judge") -> Ratings:
    """`Task.ratings` for a benchmark whose judged metrics are each one verdict: every score
    named in `scales` whose value a judge gave (or failed to give) is a rating."""

    def ratings(scores: Mapping[str, Score]) -> list[Rating]:
        found = []
        for name, scale in scales.items():
            score = scores.get(name)
            if (
                score is None
                or isinstance(score.value, dict)
                or (score.parse_status in NOT_JUDGED and score.value is not None)
            ):
                continue  # a value set by rule; an empty *judge reply* (no value) is an unscored verdict
            found.append(Rating(name, None if score.value is None else float(score.value), scale, role))
        return found

    return ratings

"""One draft's measurements from its normalised edits (a pure function).

The distance is the number of edits after normalisation (`edits.normalise`). Alongside it:
counts per category (the setting's categories, see `edits.category_of`) and per level, the
distance per `per_words` words of the draft, the weighted distance, and grounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proseval.benchmarks.revision_distance.edits import LEVELS, OTHER, Edit, category_names, category_of, level_of
from proseval.benchmarks.revision_distance.grounding import DEFAULT_THRESHOLD, Grounding, ground, word_count
from proseval.benchmarks.revision_distance.weights import weighted_distance


@dataclass(frozen=True)
class Measure:
    distance: int
    categories: dict[str, float]
    levels: dict[str, float]
    normalised: float | None  # edits per `per_words` words of the draft
    weighted: float
    grounding: Grounding


def measure(
    edits: Sequence[Edit],
    draft: str,
    setting: str,
    *,
    per_words: int = 100,
    weighting: str = "none",
    threshold: float = DEFAULT_THRESHOLD,
) -> Measure:
    categories = dict.fromkeys(category_names(setting), 0.0)
    levels = dict.fromkeys((*LEVELS, OTHER), 0.0)
    for edit in edits:
        categories[category_of(edit, setting)] += 1
        levels[level_of(edit)] += 1
    words = word_count(draft)
    normalised = len(edits) * per_words / words if per_words > 0 and words else None
    return Measure(
        distance=len(edits),
        categories=categories,
        levels=levels,
        normalised=normalised,
        weighted=weighted_distance(edits, weighting),
        grounding=ground(edits, draft, threshold),
    )

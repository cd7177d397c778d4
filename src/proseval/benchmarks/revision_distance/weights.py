"""Edit weights for the optional weighted distance (pure functions).

``level``: an edit weighs by the level the reviser gave it — word 1, phrase 1, sentence 2,
reference 2 (what is said about one cited work: about a sentence or two), paragraph 3, document 4,
anything else 1. ``size``: an edit weighs the number of word
operations (insertions, deletions, substitutions: a word-level Levenshtein distance) that turn
its original snippet into its revised snippet, at least 1. ``none``: every edit weighs 1, so
the weighted distance is the distance.
"""

from __future__ import annotations

from collections.abc import Sequence

from proseval.benchmarks.revision_distance.edits import Edit, level_of
from proseval.benchmarks.revision_distance.grounding import tokens

WEIGHTINGS = ("none", "level", "size")
LEVEL_WEIGHTS = {
    "word": 1.0,
    "phrase": 1.0,
    "sentence": 2.0,
    "reference": 2.0,
    "paragraph": 3.0,
    "document": 4.0,
    "other": 1.0,
}


def word_levenshtein(a: Sequence[str], b: Sequence[str]) -> int:
    """The fewest word insertions, deletions and substitutions turning `a` into `b`."""
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, start=1):
        current = [i]
        for j, right in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (left != right)))
        previous = current
    return previous[-1]


def edit_weight(edit: Edit, weighting: str) -> float:
    if weighting == "none":
        return 1.0
    if weighting == "level":
        return LEVEL_WEIGHTS[level_of(edit)]
    if weighting == "size":
        return float(max(1, word_levenshtein(tokens(edit.original_snippet), tokens(edit.revised_snippet))))
    raise ValueError(f"unknown weighting {weighting!r} (known: {', '.join(WEIGHTINGS)})")


def weighted_distance(edits: Sequence[Edit], weighting: str) -> float:
    return float(sum(edit_weight(edit, weighting) for edit in edits))

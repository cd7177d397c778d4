"""Pure domain logic: syllable counts (a rough English heuristic) and the 5-7-5 check."""

from __future__ import annotations

import re

_VOWEL_GROUPS = re.compile(r"[aeiouy]+")


def syllables(word: str) -> int:
    """Vowel groups, minus a silent final e; at least one per word."""
    word = word.lower().strip(".,;:!?\"'")
    count = len(_VOWEL_GROUPS.findall(word))
    if word.endswith("e") and not word.endswith("le") and count > 1:
        count -= 1
    return max(1, count) if word else 0


def line_syllables(text: str) -> list[int]:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return [sum(syllables(w) for w in line.split()) for line in lines]


def form_score(text: str, *, strict: bool) -> float:
    """1 for three lines of 5-7-5 syllables (±1 each unless strict), else 0."""
    counts = line_syllables(text)
    if len(counts) != 3:
        return 0.0
    slack = 0 if strict else 1
    return float(all(abs(c - t) <= slack for c, t in zip(counts, (5, 7, 5))))

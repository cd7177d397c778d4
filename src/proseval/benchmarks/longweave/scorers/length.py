"""Word counts, word-limit truncation and length adherence for LongWeave's word targets.

The official code computes no length score: it logs a word count (BioG, SR, NW) and, for
BioG and NW, judges only the first `test_length` words. `length_adherence` is proseval's own
measure, off the official totals; it uses the bell shape of LongWeave's count scores.
"""

from __future__ import annotations

from proseval.benchmarks.longweave.scorers.result import RuleScore
from proseval.kit import count_words
from proseval.kit.measures import length_adherence as adherence
from proseval.kit.measures import word_matches

__all__ = ["count_words", "length_adherence", "truncate_to_words"]


def truncate_to_words(text: str, limit: int, *, keep_layout: bool = True) -> str:
    """The text up to its `limit`-th word.

    keep_layout: cut the text after that word, keeping punctuation and line breaks (False:
        official, the words re-joined with single spaces, all punctuation lost).
    """
    if limit < 0:
        raise ValueError(f"word limit must be >= 0, got {limit}")
    if not keep_layout:
        return " ".join(match.group() for _, match in zip(range(limit), word_matches(text)))
    if limit == 0:
        return ""
    for count, match in enumerate(word_matches(text), start=1):
        if count == limit:
            return text[: match.end()]
    return text


def length_adherence(text: str, target_words: int) -> RuleScore:
    """1 / (1 + ((words - target) / (target / 4))^2): 1 on target, 0.5 at 25 % off."""
    words = count_words(text)
    score = adherence(words, target_words)
    trace = {
        "words": words,
        "target_words": target_words,
        "ratio": words / target_words,
    }
    return RuleScore(score, {"length_adherence": score}, trace)

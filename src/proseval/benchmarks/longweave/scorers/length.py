"""Word counts, word-limit truncation and length adherence for LongWeave's word targets.

The official code computes no length score: it logs a word count (BioG, SR, NW) and, for
BioG and NW, judges only the first `test_length` words. `length_adherence` is proseval's own
measure, off the official totals; it uses the bell shape of LongWeave's count scores.
"""

from __future__ import annotations

import re

from proseval.benchmarks.longweave.scorers.result import RuleScore, closeness

# The official word token: a run of word characters between word boundaries.
_WORD = re.compile(r"\b\w+\b")


def count_words(text: str) -> int:
    """Number of word tokens, as the official `words` metric counts them."""
    return sum(1 for _ in _WORD.finditer(text))


def truncate_to_words(text: str, limit: int, *, keep_layout: bool = True) -> str:
    """The text up to its `limit`-th word.

    keep_layout: cut the text after that word, keeping punctuation and line breaks (False:
        official, the words re-joined with single spaces, all punctuation lost).
    """
    if limit < 0:
        raise ValueError(f"word limit must be >= 0, got {limit}")
    if not keep_layout:
        return " ".join(
            match.group() for _, match in zip(range(limit), _WORD.finditer(text))
        )
    if limit == 0:
        return ""
    for count, match in enumerate(_WORD.finditer(text), start=1):
        if count == limit:
            return text[: match.end()]
    return text


def length_adherence(text: str, target_words: int) -> RuleScore:
    """1 / (1 + ((words - target) / (target / 4))^2): 1 on target, 0.5 at 25 % off."""
    if target_words < 1:
        raise ValueError(f"target word count must be >= 1, got {target_words}")
    words = count_words(text)
    score = closeness(words, target_words, 0.25 * target_words)
    trace = {
        "words": words,
        "target_words": target_words,
        "ratio": words / target_words,
    }
    return RuleScore(score, {"length_adherence": score}, trace)

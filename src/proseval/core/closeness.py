"""How close a measured quantity is to its target: one bell-shaped score for every benchmark.

``closeness(actual, target, scale) = 1 / (1 + ((actual - target) / scale)^2)``: 1 on target,
0.5 at one `scale` off, falling smoothly and never below 0. LongWeave's count scores use it
(the official formula); length adherence, in the demo task and LongWeave alike, is the same
curve with a scale of a quarter of the target.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

# A word: a maximal run of word characters. The same tokens as LongWeave's official `\b\w+\b`
# (a maximal run always starts and ends at a word boundary), found about a quarter faster.
_WORD = re.compile(r"\w+")
# For ASCII text, `\w` is exactly these bytes; counting the starts of runs with numpy is about
# fifteen times faster than the regular expression on long answers.
_ASCII_WORD_BYTE = np.zeros(256, dtype=bool)
_ASCII_WORD_BYTE[list(b"0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")] = True


def closeness(actual: float, target: float, scale: float) -> float:
    if scale <= 0:
        raise ValueError(f"closeness scale must be positive, got {scale}")
    return 1.0 / (1.0 + (abs(actual - target) / scale) ** 2)


def count_words(text: str) -> int:
    """Number of word tokens (punctuation is not a word; "don't" is two)."""
    if not text.isascii():
        return len(_WORD.findall(text))
    is_word = _ASCII_WORD_BYTE[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]
    if not is_word.size:
        return 0
    return int(is_word[0]) + int(np.count_nonzero(is_word[1:] > is_word[:-1]))


def word_matches(text: str) -> Iterator[re.Match[str]]:
    """The words of `text` (the tokens `count_words` counts), in order, with their positions."""
    return _WORD.finditer(text)


def length_adherence(words: int, target_words: int) -> float:
    """1 on target, 0.5 at 25 % off, 0.2 at 50 % off."""
    if target_words < 1:
        raise ValueError(f"target word count must be >= 1, got {target_words}")
    return closeness(words, target_words, 0.25 * target_words)

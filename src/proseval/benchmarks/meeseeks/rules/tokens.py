"""Word tokens of the rule checkers: one pattern per kind of token, one way to cut text with it.

The patterns differ on purpose (each language's checks count the tokens its reference
counts); so does when a tokenizer lower-cases: lower-casing the text first lets Unicode
case mapping split a token (``İ`` becomes ``i`` plus a combining dot, which ``\\w`` does not
match), lower-casing the tokens found does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

Lower = Literal["text", "tokens"] | None
Tokenizer = Callable[[str], list[str]]

WORD = re.compile(r"\w+")
"""Runs of word characters (letters, digits, underscore)."""
SPACED_WORD = re.compile(r"\S*\w\S*")
"""Whitespace-separated tokens holding at least one word character, punctuation attached."""
ASCII_WORD = re.compile(r"[A-Za-z]+")
"""Runs of unaccented Latin letters."""
RUSSIAN_WORD = re.compile(r"[А-Яа-яЁё\u0301]+(?:-[А-Яа-яЁё\u0301]+)*|\d+")
"""Cyrillic words (hyphenated compounds and stress accents kept whole) and digit runs."""
ARABIC_MARKS = "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
"""Character ranges of the Arabic vowel and Quranic marks."""
ARABIC_WORD = re.compile(f"[\u0621-\u063a\u0641-\u064a\u0671-\u06d3\u0640{ARABIC_MARKS}]+")
"""Arabic letters with their marks and tatweel."""


def tokenizer(pattern: re.Pattern[str], *, lower: Lower = None) -> Tokenizer:
    """The tokens ``pattern`` finds in a text, lower-cased as ``lower`` says (see above)."""
    if lower == "text":
        return lambda text: pattern.findall(text.lower())
    if lower == "tokens":
        return lambda text: [t.lower() for t in pattern.findall(text)]
    return pattern.findall

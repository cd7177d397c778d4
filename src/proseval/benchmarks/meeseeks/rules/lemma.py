"""Keyword matching of the non-CJK dispatcher: direct word match, else lemma match.

Lemmas come from ``simplemma``. The lemma language is the file's language; the reference
implementation guesses it from the item prompt with a detector that does not know
Indonesian (deviation documented in docs/meeseeks.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import text

_TOKEN = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*")
_CJK_CHAR = re.compile(f"[{text.HAN}{text.HIRAGANA}{text.KATAKANA}{text.HANGUL}]")
LEMMA_LANGUAGES = {"en", "de", "fr", "es", "pt", "ru", "id", "ar", "it"}


@lru_cache(maxsize=65536)
def lemma(word: str, language: str) -> str:
    """Lower-cased lemma of ``word`` (the word itself when the language has no lemmatiser)."""
    word = word.lower()
    if language not in LEMMA_LANGUAGES:
        return word
    import simplemma

    return simplemma.lemmatize(word, lang=language).lower()


@lru_cache(maxsize=4096)
def _direct_pattern(keyword: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(keyword.lower()) + r"(?!\w)")


def is_cjk(keyword: str) -> bool:
    return bool(_CJK_CHAR.search(keyword))


def tokens(item: str) -> list[str]:
    return _TOKEN.findall(item.lower())


def direct_count(keyword: str, item: str) -> int:
    """Occurrences of ``keyword`` as a whole word (substring for CJK keywords)."""
    if is_cjk(keyword):
        return item.lower().count(keyword.lower())
    return len(_direct_pattern(keyword).findall(item.lower()))


def lemma_count(keyword: str, item: str, language: str) -> int:
    """Tokens of ``item`` whose lemma equals the keyword's lemma."""
    target = lemma(keyword, language)
    return sum(1 for t in tokens(item) if t == keyword.lower() or lemma(t, language) == target)


def matches(keyword: str, item: str, language: str) -> bool:
    """Whether ``item`` contains ``keyword`` directly or as an inflected form."""
    if direct_count(keyword, item):
        return True
    if is_cjk(keyword) or " " in keyword.strip():
        return False
    return lemma_count(keyword, item, language) > 0

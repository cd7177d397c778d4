"""Keyword matching of the non-CJK dispatcher: direct word match, else lemma match.

Lemmas come from ``simplemma`` in the file's language. The reference guesses that language
from the item prompt with a detector that never answers Arabic and does not know
Indonesian, so Arabic and Indonesian keywords only ever match as whole words; that
behaviour is kept. Word boundaries are Python's ``\b`` (combining marks such as Arabic
harakat are not word characters, which decides whether a vowelled keyword matches).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import text
from .tokens import WORD, tokenizer

_CJK_CHAR = re.compile(f"[{text.HAN}{text.HIRAGANA}{text.KATAKANA}{text.HANGUL}]")
LEMMA_LANGUAGES = {"en", "de", "fr", "es", "pt", "ru"}


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
    return re.compile(r"\b" + re.escape(keyword.lower()) + r"\b")


def is_cjk(keyword: str) -> bool:
    return bool(_CJK_CHAR.search(keyword))


tokens = tokenizer(WORD, lower="text")


def direct_count(keyword: str, item: str) -> int:
    """Occurrences of ``keyword`` as a whole word (substring for CJK keywords)."""
    if is_cjk(keyword):
        return item.lower().count(keyword.lower())
    return len(_direct_pattern(keyword).findall(item.lower()))


def _forms(word: str, language: str) -> set[str]:
    """The word, its lemma and its lemma's lemma (lemmatisers are not idempotent)."""
    first = lemma(word, language)
    return {word.lower(), first, lemma(first, language)}


def lemma_count(keyword: str, item: str, language: str) -> int:
    """Tokens of ``item`` sharing a form (word, lemma, lemma of lemma) with the keyword."""
    if language not in LEMMA_LANGUAGES:
        return sum(1 for t in tokens(item) if t == keyword.lower())
    targets = _forms(keyword, language)
    return sum(1 for t in tokens(item) if not targets.isdisjoint(_forms(t, language)))


def count(keyword: str, item: str, language: str) -> int:
    """Tokens with the keyword's lemma; else whole-word occurrences; else substring occurrences."""
    if is_cjk(keyword):
        return direct_count(keyword, item)
    return lemma_count(keyword, item, language) or direct_count(keyword, item) or item.lower().count(keyword.lower())


def matches(keyword: str, item: str, language: str) -> bool:
    """Whether ``item`` contains ``keyword`` as a whole word or as an inflected form."""
    return direct_count(keyword, item) > 0 or (not is_cjk(keyword) and lemma_count(keyword, item, language) > 0)

"""Text normalisers and unit counters used by the Meeseeks rule checkers.

The CJK checkers count characters of the CJK scripts only; the other checkers count
whitespace-separated words containing at least one letter of a language's alphabet.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

Compat = Literal["fixed", "head"]
"""``fixed`` = intended behaviour (default); ``head`` = reproduce the reference commit's defects."""

HAN = "\u4e00-\u9fff"
HAN_EXT_A = "\u3400-\u4dbf"
ITERATION_MARK = "\u3005"  # 々
HIRAGANA = "\u3040-\u309f"
KATAKANA = "\u30a0-\u30ff"
HANGUL = "\uac00-\ud7af"

_CJK_KEEP = {
    "head": re.compile(f"[^{HAN}{HIRAGANA}{KATAKANA}{HANGUL}]"),
    "fixed": re.compile(f"[^{HAN}{HAN_EXT_A}{ITERATION_MARK}{HIRAGANA}{KATAKANA}{HANGUL}]"),
}
_HAN_CHAR = {
    "head": re.compile(f"[{HAN}]"),
    "fixed": re.compile(f"[{HAN}{HAN_EXT_A}{ITERATION_MARK}]"),
}

# One leading list marker: "12." "12)" "12、" "a." "iv." "(12)" "[a]" "①".
_LIST_INDEX = re.compile(
    r"^(?:\(\w{1,4}\)|\[\w{1,4}\]|（\w{1,4}）|(?:\d+|[a-zA-Z]|[ivxlcdmIVXLCDM]+)[.)、．]|[\u2460-\u2473])"
)
_NON_WORD = re.compile(r"\W+")
_WHITESPACE = re.compile(r"\s+")

# Letter classes of the word counters (a token counts if it holds one such letter).
LETTERS = {
    "english": "A-Za-z",
    "german": "A-Za-zäöüÄÖÜß",
    "french": "A-Za-zàâäæçéèêëîïôœùûüÿÀÂÄÆÇÉÈÊËÎÏÔŒÙÛÜŸ",
    "spanish": "A-Za-záéíóúüñÁÉÍÓÚÜÑ",
    "portuguese": "A-Za-zàáâãçéêíóôõúüÀÁÂÃÇÉÊÍÓÔÕÚÜ",
    "indonesian": "A-Za-z",
    "russian": "\u0400-\u04ff",
    "arabic": "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff",
}


def strip_list_index(text: str) -> str:
    """Remove one leading list marker (``1.``, ``2)``, ``a.``, ``(3)``, ``[b]`` ...)."""
    return _LIST_INDEX.sub("", text, count=1)


def cjk_clean(text: str, compat: Compat = "fixed") -> str:
    """Keep only Han, kana and Hangul syllables (after dropping spaces and a list marker).

    Under ``compat="head"`` the iteration mark 々 and CJK Extension A are dropped as the
    reference implementation does; by default they count as Han characters.
    """
    text = strip_list_index(text.replace(" ", ""))
    return _CJK_KEEP[compat].sub("", text)


def han_count(text: str, compat: Compat = "fixed") -> int:
    """Number of Han characters."""
    return len(_HAN_CHAR[compat].findall(text))


def simple_clean(text: str) -> str:
    """Drop spaces and a list marker, then every non-word character (letters/digits kept)."""
    return _NON_WORD.sub("", strip_list_index(text.replace(" ", "")))


_WORD_WITH_LETTER = {lang: re.compile(f"\\S*[{letters}]\\S*") for lang, letters in LETTERS.items()}


def word_count(text: str, language: str = "english") -> int:
    """Number of whitespace tokens holding at least one letter of the language's alphabet."""
    return len(_WORD_WITH_LETTER[language].findall(text))


_SCRIPTS = {
    "latin": re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]"),
    "cyrillic": re.compile(r"[\u0400-\u04ff]"),
    "hangul": re.compile(f"[{HANGUL}]"),
    "kana": re.compile(f"[{HIRAGANA}{KATAKANA}]"),
    "han": re.compile(f"[{HAN}]"),
}
_SCRIPT_KEEP = {
    "latin": re.compile(r"[^A-Za-zÀ-ÿ ]"),
    "cyrillic": re.compile(r"[^\u0400-\u04ff ]"),
    "hangul": re.compile(f"[^{HANGUL} ]"),
    "kana": re.compile(f"[^{HAN}{HIRAGANA}{KATAKANA} ]"),
}


def dominant_script(text: str) -> str:
    """The alphabet a language-aware cleaner keeps for ``text``.

    Han alone never wins (Chinese is not a target language of the non-CJK checkers);
    Han with kana means Japanese. Latin is the default.
    """
    counts = Counter({name: len(p.findall(text)) for name, p in _SCRIPTS.items()})
    if counts["kana"]:
        counts["kana"] += counts["han"]
    del counts["han"]
    best, n = counts.most_common(1)[0]
    return best if n else "latin"


def script_clean(text: str) -> str:
    """Keep the letters of the text's dominant script and single spaces (lower-casing is up to the caller)."""
    kept = _SCRIPT_KEEP[dominant_script(text)].sub("", _WHITESPACE.sub(" ", text))
    return " ".join(kept.split())

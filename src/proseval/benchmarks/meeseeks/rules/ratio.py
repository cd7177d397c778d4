"""Ratios between native-script units and words of another language.

Counts are integers, so ratios are compared as exact fractions (the reference compares
floats; with integer counts the outcome is the same).
"""

from __future__ import annotations

import re
from fractions import Fraction

from .. import text
from .base import ParameterError, RuleContext, Verdict
from .params import after_colon, list_param, numbers
from .spec import Items, rule

_ENGLISH_WORD = re.compile(r"[a-zA-Z]+")
_NATIVE = {
    "chinese": re.compile(f"[{text.HAN}]"),
    "korean": re.compile(f"[{text.HANGUL}]"),
    "japanese": re.compile(f"[{text.HAN}{text.HIRAGANA}{text.KATAKANA}]"),
    "arabic": re.compile(f"[{text.LETTERS['arabic']}]+"),
}


def _pair(label: str) -> tuple[int, int]:
    values = list_param(label)
    if len(values) != 2 or not all(isinstance(v, int) and v >= 0 for v in values) or values[1] == 0:
        raise ParameterError(f"rule {label!r} needs an [a, b] ratio with b > 0")
    return values[0], values[1]


def ratio_of(native: int, english: int) -> Fraction:
    """native / english, defined as 1 when there is no English word (as the reference does)."""
    return Fraction(native, english) if english else Fraction(1)


def native_english_ratio_checker(native: str):
    """``<native>_english_ratio:[a,b]``: in every item, native units / English words == a/b."""
    pattern = _NATIVE[native]

    def check(pair: tuple[int, int], items: Items, ctx: RuleContext) -> Verdict:
        expected = Fraction(*pair)
        for item in items:
            n, e = len(pattern.findall(item)), len(_ENGLISH_WORD.findall(item))
            if ratio_of(n, e) != expected:
                return Verdict.fail(f"{item!r}: {n} {native} units / {e} English words ≠ {pair[0]}/{pair[1]}")
        return Verdict.ok(f"every item has the ratio {pair[0]}/{pair[1]}")

    return check


def _language_ratio_params(label: str) -> tuple[str, tuple[int, int]]:
    language = after_colon(label).split(":", 1)[0].strip().lower()
    if language not in text.LETTERS:
        raise ParameterError(f"unknown language {language!r} in rule {label!r}")
    return language, _pair(label)


def _rounded(value: Fraction) -> float:
    return round(float(value), 2)


def check_language_ratio(params: tuple[str, tuple[int, int]], items: Items, ctx: RuleContext) -> Verdict:
    """Han characters / target-language words, rounded to 2 decimals, equals round(a/b, 2).

    Fixed: every item on its own. ``head``: the reference pairs the Han count of the last
    item with the word count of the first item.
    """
    language, pair = params
    expected = _rounded(Fraction(*pair))
    counts = [(text.han_count(i, ctx.compat), text.word_count(i, language)) for i in items]
    if ctx.compat == "head" and counts:
        counts = [(counts[-1][0], counts[0][1])]
    for han, n_words in counts:
        if _rounded(ratio_of(han, n_words)) != expected:
            return Verdict.fail(f"{han} Han characters / {n_words} {language} words ≠ {pair[0]}/{pair[1]}")
    return Verdict.ok(f"Han : {language} words = {pair[0]}:{pair[1]}")


_CYRILLIC_WORD = re.compile(r"[\u0400-\u04ff]+")
RUSSIAN_RATIO_TOLERANCE = 1.0


def _colon_pair(label: str) -> tuple[float, float]:
    values = numbers(after_colon(label))
    if len(values) != 2 or values[1] == 0:
        raise ParameterError(f"rule {label!r} needs a:b")
    return values[0], values[1]


def check_russian_english_ratio(pair: tuple[float, float], items: Items, ctx: RuleContext) -> Verdict:
    """Russian words / English words over all items within ±1 of a/b."""
    if not items:
        return Verdict.fail("nothing was extracted")
    joined = "\n".join(items)
    ru, en = len(_CYRILLIC_WORD.findall(joined)), len(_ENGLISH_WORD.findall(joined))
    if not en or not ru:
        return Verdict.fail(f"{ru} Russian and {en} English words: the ratio {pair[0]:g}:{pair[1]:g} cannot hold")
    actual, expected = ru / en, pair[0] / pair[1]
    ok = abs(actual - expected) <= RUSSIAN_RATIO_TOLERANCE
    return Verdict.of(ok, f"Russian : English = {actual:.2f}, expected {expected:.2f} ± {RUSSIAN_RATIO_TOLERANCE:g}")


RULES = [
    *(
        rule(f"{n}_english_ratio", _pair, native_english_ratio_checker(n), dispatchers=("cjk",), bare_string="item")
        for n in ("chinese", "korean", "japanese")
    ),
    rule("arabic_english_ratio", _pair, native_english_ratio_checker("arabic")),
    rule("language_ratio", _language_ratio_params, check_language_ratio),
    rule("russian_english_ratio", _colon_pair, check_russian_english_ratio),
]

"""Item counts and lengths: characters for the CJK dispatcher, words for the other one."""

from __future__ import annotations

import re

from .. import text
from .base import ParameterError, RuleContext, Verdict
from .params import after_colon, range_param
from .spec import Items, rule

Range = tuple[float, float]


def _in(value: float, bounds: Range) -> bool:
    return bounds[0] <= value <= bounds[1]


def check_item_count(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    n = len(items)
    return Verdict.of(_in(n, bounds), f"{n} items, expected {_fmt(bounds)}")


def _fmt(bounds: Range) -> str:
    return f"[{bounds[0]:g}, {bounds[1]:g}]"


def _each(counts: list[int], items: Items, bounds: Range, unit: str) -> Verdict:
    for item, n in zip(items, counts):
        if not _in(n, bounds):
            return Verdict.fail(f"{item!r} has {n} {unit}, expected {_fmt(bounds)}")
    return Verdict.ok(f"every item has {_fmt(bounds)} {unit}")


def _total(counts: list[int], bounds: Range, unit: str) -> Verdict:
    total = sum(counts)
    return Verdict.of(_in(total, bounds), f"{total} {unit} in total, expected {_fmt(bounds)}")


def _no_items(unit: str) -> Verdict:
    return Verdict.fail(f"nothing was extracted to count {unit} in")


def check_cjk_each_length(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    counts = [len(text.cjk_clean(i, ctx.compat)) for i in items]
    return _each(counts, items, bounds, "CJK characters")


def check_cjk_total_length(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    return _total([len(text.cjk_clean(i, ctx.compat)) for i in items], bounds, "CJK characters")


def word_length_checkers(language: str, *, empty_fails: bool = True):
    """Per-item and total word-count checkers for one alphabet."""
    unit = f"{language} words"

    def each(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
        if not items and empty_fails:
            return _no_items(unit)
        return _each([text.word_count(i, language) for i in items], items, bounds, unit)

    def total(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
        return _total([text.word_count(i, language) for i in items], bounds, unit)

    return each, total


_PT_WORD = re.compile(r"\b[a-zA-ZàáâãçéêíóôõúüÀÁÂÃÇÉÊÍÓÔÕÚÜ]+(?:-[a-zA-ZàáâãçéêíóôõúüÀÁÂÃÇÉÊÍÓÔÕÚÜ]+)*\b")


def portuguese_word_count(item: str) -> int:
    """Portuguese words; a hyphenated compound counts once."""
    return len(_PT_WORD.findall(item))


def check_portuguese_each_length(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    return _each([portuguese_word_count(i) for i in items], items, bounds, "Portuguese words")


def check_portuguese_total_length(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    return _total([portuguese_word_count(i) for i in items], bounds, "Portuguese words")


_ES_WORD = re.compile(r"\b[a-zA-ZáéíóúüñÁÉÍÓÚÜÑ]+\b")
_LI_HUA = re.compile(r"\bLi\s+Hua\b")


def spanish_word_count(item: str) -> int:
    """Spanish words; the name "Li Hua" counts as one word."""
    return len(_ES_WORD.findall(item)) - len(_LI_HUA.findall(item))


def check_spanish_word_count(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    if not items:
        return _no_items("Spanish words")
    whole = (float(int(bounds[0])), float(int(bounds[1])))
    return _each([spanish_word_count(i) for i in items], items, whole, "Spanish words")


def _mixed_params(label: str) -> tuple[str, Range]:
    language = after_colon(label).split(":", 1)[0].strip().lower()
    if language not in text.LETTERS:
        raise ParameterError(f"unknown language {language!r} in rule {label!r}")
    return language, range_param(label)


_HAN_RUN = re.compile(f"[{text.HAN}]+")


def mixed_units(item: str, language: str, compat) -> tuple[int, int]:
    """(Han characters, target-language words) of one item; Han runs separate words."""
    return text.han_count(item, compat), text.word_count(_HAN_RUN.sub(" ", item), language)


def check_mixed_language_each_length(params: tuple[str, Range], items: Items, ctx: RuleContext) -> Verdict:
    language, bounds = params
    if not items:
        return _no_items("Chinese characters and words")
    counts = [sum(mixed_units(i, language, ctx.compat)) for i in items]
    return _each(counts, items, bounds, f"Chinese characters + {language} words")


_NATIVE = {
    "chinese": f"[{text.HAN}]",
    "korean": f"[{text.HANGUL}]",
    "japanese": f"[{text.HAN}{text.HIRAGANA}{text.KATAKANA}]",
}
_ENGLISH_WORD = re.compile(r"[a-zA-Z]+")


def native_english_checker(native: str):
    """``count_mixed_<native>_english_words``: native characters + English words per item."""
    pattern = re.compile(_NATIVE[native])

    def check(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
        if not items:
            return _no_items(f"{native} characters and English words")
        counts = [len(pattern.findall(i)) + len(_ENGLISH_WORD.findall(i)) for i in items]
        return _each(counts, items, bounds, f"{native} characters + English words")

    return check


RULES = [
    rule("item_count", range_param, check_item_count, dispatchers=("cjk", "latin")),
    rule("each_length", range_param, check_cjk_each_length, dispatchers=("cjk",)),
    rule("total_length", range_param, check_cjk_total_length, dispatchers=("cjk",)),
    rule("portuguese_each_length", range_param, check_portuguese_each_length),
    rule("portuguese_total_length", range_param, check_portuguese_total_length),
    rule("has_spanish_word_count", range_param, check_spanish_word_count),
    rule("mixed_language_each_length", _mixed_params, check_mixed_language_each_length),
]

for _language, _prefix in [
    ("english", ""),
    ("arabic", "arabic_"),
    ("russian", "russian_"),
    ("french", "french_"),
    ("spanish", "spanish_"),
    ("indonesian", "indonesian_"),
    ("german", "german_"),
]:
    _each_fn, _total_fn = word_length_checkers(_language)
    RULES.append(rule(f"{_prefix}each_length", range_param, _each_fn))
    RULES.append(rule(f"{_prefix}total_length", range_param, _total_fn))

for _native in _NATIVE:
    RULES.append(
        rule(f"count_mixed_{_native}_english_words", range_param, native_english_checker(_native), dispatchers=("cjk",))
    )

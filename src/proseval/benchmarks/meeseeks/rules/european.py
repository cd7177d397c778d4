"""Counting rules of the European languages: diacritics, articles, hyphenated words, case."""

from __future__ import annotations

import re

from .base import ParameterError, RuleContext, Verdict
from .params import int_after_colon, list_param, numbers, range_param
from .spec import Items, rule

Range = tuple[float, float]
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def words_with(item: str, marks: str, *, all_of: tuple[str, ...] = ()) -> list[str]:
    """Words holding one of ``marks`` (and, if given, one letter of every set in ``all_of``)."""
    found = [w for w in _WORD.findall(item) if any(m in w.lower() for m in marks)]
    return [w for w in found if all(any(c in w.lower() for c in group) for group in all_of)]


def _range_or_number(label: str) -> Range:
    """``[a, b]``, ``[n]`` or ``:n`` → inclusive range."""
    if "[" in label:
        values = list_param(label)
        if len(values) == 1:
            values = values * 2
    else:
        values = numbers(label.split(":", 1)[-1])[:1] * 2
    if len(values) != 2 or not all(isinstance(v, (int, float)) for v in values):
        raise ParameterError(f"rule {label!r} needs a number or a [min, max] range")
    return float(values[0]), float(values[1])


def _at_least(label: str) -> int:
    values = list_param(label) if "[" in label else [int_after_colon(label)]
    if len(values) != 1 or not isinstance(values[0], (int, float)):
        raise ParameterError(f"rule {label!r} needs one number")
    return int(values[0])


def mark_word_checker(marks: str, what: str, *, per_item: bool, all_of: tuple[str, ...] = ()):
    """Number of words carrying a diacritic, per item or over all items, in range."""

    def check(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
        lo, hi = bounds
        groups = (
            [words_with(item, marks, all_of=all_of) for item in items]
            if per_item
            else [[w for item in items for w in words_with(item, marks, all_of=all_of)]]
        )
        for i, found in enumerate(groups, 1):
            if not lo <= len(found) <= hi:
                where = f"item {i}" if per_item else "the text"
                return Verdict.fail(f"{where} has {len(found)} {what} {found[:10]}, expected [{lo:g}, {hi:g}]")
        return Verdict.ok(f"{what} within [{lo:g}, {hi:g}]")

    return check


def per_item_range(finder, what: str, *, empty_passes: bool = True):
    """Every item holds a number of ``finder`` matches in range (an empty list passes unless told otherwise)."""

    def check(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
        if not items and not empty_passes:
            return Verdict.fail("nothing was extracted")
        lo, hi = bounds
        for i, item in enumerate(items, 1):
            found = finder(item)
            if not lo <= len(found) <= hi:
                return Verdict.fail(f"item {i} has {len(found)} {what} {found[:10]}, expected [{lo:g}, {hi:g}]")
        return Verdict.ok(f"every item has [{lo:g}, {hi:g}] {what}")

    return check


def check_h_words(n: Range, items: Items, ctx: RuleContext) -> Verdict:
    """Words starting with h (the bare letter h excluded), over all items."""
    found = [w for item in items for w in _WORD.findall(item) if w.lower().startswith("h") and len(w) > 1]
    lo, hi = n
    return Verdict.of(lo <= len(found) <= hi, f"{len(found)} words start with h, expected [{lo:g}, {hi:g}]")


def article_checker(articles: tuple[str, ...]):
    """At least N occurrences of the German definite articles given (case-insensitive)."""
    pattern = re.compile(r"\b(?:" + "|".join(articles) + r")\b", re.IGNORECASE)

    def check(n: int, items: Items, ctx: RuleContext) -> Verdict:
        found = sum(len(pattern.findall(item)) for item in items)
        return Verdict.of(found >= n, f"{found} × {'/'.join(articles)}, at least {n} required")

    return check


def case_count_checker(upper: bool):
    """Number of items written entirely in upper (lower) case equals N."""

    def check(n: int, items: Items, ctx: RuleContext) -> Verdict:
        found = sum(1 for item in items if (item.isupper() if upper else item.islower()))
        return Verdict.of(found == n, f"{found} items entirely in {'upper' if upper else 'lower'} case, expected {n}")

    return check


def check_compound_words(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    """Per item, whitespace tokens joined by a hyphen or an apostrophe."""
    if not items:
        return Verdict.fail("nothing was extracted")
    lo, hi = bounds
    for i, item in enumerate(items, 1):
        n = sum(1 for token in item.split() if "-" in token or "'" in token)
        if not lo <= n <= hi:
            return Verdict.fail(f"item {i} has {n} compound words, expected [{lo:g}, {hi:g}]")
    return Verdict.ok(f"every item has [{lo:g}, {hi:g}] compound words")


_HYPHENATED = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


def check_hyphenated_words(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """At least N hyphenated words over all items (``head``: the first item only, as the reference)."""
    if not "".join(items).strip():
        return Verdict.fail("nothing was extracted")
    found = [w for item in (items[:1] if ctx.compat == "head" else items) for w in _HYPHENATED.findall(item)]
    return Verdict.of(len(found) >= n, f"{len(found)} hyphenated words, at least {n} required")


SPANISH_ACCENTS = "áéíóúÁÉÍÓÚ"


def check_spanish_accents(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    """The items hold the required number of accented vowels (á é í ó ú) in total."""
    if not items:
        return Verdict.fail("nothing was extracted")
    lo, hi = bounds
    n = sum(item.count(c) for item in items for c in SPANISH_ACCENTS)
    return Verdict.of(lo <= n <= hi, f"{n} accent marks, expected [{lo:g}, {hi:g}]")


_QUESTION = re.compile(r"¿[^¿?]*\?")
_EXCLAMATION = re.compile(r"¡[^¡!]*!")


def check_questions_each(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Every item holds exactly N complete Spanish questions (¿…?)."""
    if not items:
        return Verdict.fail("nothing was extracted")
    bad = [f"item {i}: {c}" for i, item in enumerate(items, 1) if (c := len(_QUESTION.findall(item))) != n]
    return Verdict.of(not bad, f"every item needs {n} questions ¿…?" + (f"; {', '.join(bad)}" if bad else ""))


def sentence_total_checker(pattern: re.Pattern[str], what: str):
    """The items hold a number of complete Spanish questions/exclamations in range."""

    def check(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
        if not items:
            return Verdict.fail("nothing was extracted")
        lo, hi = bounds
        n = sum(len(pattern.findall(item)) for item in items)
        return Verdict.of(lo <= n <= hi, f"{n} complete {what}, expected [{lo:g}, {hi:g}]")

    return check


def _exclamation_bounds(label: str) -> tuple[Range, bool]:
    """``[a, b]`` → that range; a bare ``:N`` → at least N (as the reference reads it).

    The second value says whether the label was a ``[a, b]`` list.
    """
    if "[" in label:
        return range_param(label), True
    return (float(int_after_colon(label)), float("inf")), False


def check_exclamations(params: tuple[Range, bool], items: Items, ctx: RuleContext) -> Verdict:
    """The items hold a number of complete exclamations ¡…! in range.

    ``head``: the reference handles a ``[a, b]`` label in the branch meant for a bare number,
    whose minimum then falls back to 1.
    """
    (lo, hi), listed = params
    if ctx.compat == "head" and listed:
        lo = 1.0
    return sentence_total_checker(_EXCLAMATION, "exclamations ¡…!")((lo, hi), items, ctx)


PT_NASAL, PT_ACUTE, PT_CIRCUMFLEX, CEDILLA = "ãõ", "áéíóú", "âêô", "ç"
FR_ACUTE_GRAVE, FR_CIRCUMFLEX, FR_DIAERESIS = "éèàù", "âêîôû", "ëïüÿ"

RULES = [
    rule("has_nasal_vowel", range_param, mark_word_checker(PT_NASAL, "words with a nasal vowel", per_item=True)),
    rule("has_acute_accent", range_param, mark_word_checker(PT_ACUTE, "words with an acute accent", per_item=False)),
    rule(
        "each_has_acute_accent", range_param, mark_word_checker(PT_ACUTE, "words with an acute accent", per_item=True)
    ),
    rule(
        "has_circumflex_accent",
        range_param,
        mark_word_checker(PT_CIRCUMFLEX, "words with a circumflex", per_item=False),
    ),
    rule(
        "each_has_circumflex_accent",
        range_param,
        mark_word_checker(PT_CIRCUMFLEX, "words with a circumflex", per_item=True),
    ),
    rule("has_cedilla_words", range_param, mark_word_checker(CEDILLA, "words with ç", per_item=True)),
    rule(
        "has_nasal_and_cedilla_words",
        range_param,
        mark_word_checker(CEDILLA, "words with ç and a nasal vowel", per_item=True, all_of=(PT_NASAL,)),
    ),
    rule(
        "french_accent_count_each",
        _range_or_number,
        mark_word_checker(FR_ACUTE_GRAVE, "words with an acute or grave accent", per_item=True),
    ),
    rule(
        "french_circumflex_total",
        _range_or_number,
        mark_word_checker(FR_CIRCUMFLEX, "words with a circumflex", per_item=False),
    ),
    rule(
        "french_diaeresis_total",
        _range_or_number,
        mark_word_checker(FR_DIAERESIS, "words with a diaeresis", per_item=False),
    ),
    rule(
        "french_diaeresis_each",
        _range_or_number,
        mark_word_checker(FR_DIAERESIS, "words with a diaeresis", per_item=True),
    ),
    rule("french_cedilla_total", _range_or_number, mark_word_checker(CEDILLA, "words with ç", per_item=False)),
    rule("french_h_word_count", _range_or_number, check_h_words),
    rule("german_article_count", _at_least, article_checker(("der", "die", "das"))),
    *(rule(f"german_article_{a}", _at_least, article_checker((a,))) for a in ("der", "die", "das")),
    rule("ENG_cap_num", int_after_colon, case_count_checker(True), family="eng_cap_num"),
    rule("ENG_low_num", int_after_colon, case_count_checker(False), family="eng_low_num"),
    rule("compound_word_num", range_param, check_compound_words),
    rule("check_hyphenated_words_count", int_after_colon, check_hyphenated_words),
    rule("has_complete_questions", int_after_colon, check_questions_each),
    rule("total_has_complete_questions", range_param, sentence_total_checker(_QUESTION, "questions ¿…?")),
    rule("has_complete_exclamations", _exclamation_bounds, check_exclamations),
    rule("has_spanish_accent_count", _range_or_number, check_spanish_accents),
]

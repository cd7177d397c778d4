"""Exact and maximum frequencies of keywords, notations and letters."""

from __future__ import annotations

from . import lemma
from .base import ParameterError, RuleContext, Verdict
from .params import name_suffix, range_param, string_list_param
from .spec import Items, rule

FreqParams = tuple[int, list[str]]


def _freq_params(prefix: str):
    return lambda label: (name_suffix(label, prefix), string_list_param(label))


def cjk_count(keyword: str, item: str) -> int:
    return item.lower().count(keyword.lower())


def _exactly(n: int, keywords: list[str], items: Items, count) -> Verdict:
    wrong = [f"item {i}: {k!r} ×{c}" for i, item in enumerate(items, 1) for k in keywords if (c := count(k, item)) != n]
    if wrong:
        return Verdict.fail(f"each keyword must occur exactly {n} times in every item; " + "; ".join(wrong))
    return Verdict.ok(f"every keyword occurs exactly {n} times in every item")


def check_cjk_word_freq(params: FreqParams, items: Items, ctx: RuleContext) -> Verdict:
    n, keywords = params
    return _exactly(n, keywords, items, cjk_count)


def check_latin_word_freq(params: FreqParams, items: Items, ctx: RuleContext) -> Verdict:
    n, keywords = params
    return _exactly(n, keywords, items, lambda k, item: lemma.count(k, item, ctx.language))


def check_notation_freq(params: FreqParams, items: Items, ctx: RuleContext) -> Verdict:
    n, notations = params
    return _exactly(n, notations, items, lambda k, item: item.count(k))


def check_cjk_non_word_freq(params: FreqParams, items: Items, ctx: RuleContext) -> Verdict:
    """Every keyword at most N times in every item (``head``: the first item only)."""
    n, keywords = params
    if ctx.compat == "head":
        if not items:
            return Verdict.fail("nothing was extracted")
        items = items[:1]
    over = [
        f"item {i}: {k!r} ×{c}" for i, item in enumerate(items, 1) for k in keywords if (c := cjk_count(k, item)) > n
    ]
    return Verdict.of(not over, f"at most {n} occurrences allowed" + (": " + "; ".join(over) if over else ""))


def check_latin_non_word_freq(params: FreqParams, items: Items, ctx: RuleContext) -> Verdict:
    """Every keyword at most N times over all items (``head``: the first keyword only)."""
    n, keywords = params
    if ctx.compat == "head":
        keywords = keywords[:1]
    over = [
        f"{k!r} ×{total}" for k in keywords if (total := sum(lemma.count(k, item, ctx.language) for item in items)) > n
    ]
    return Verdict.of(not over, f"at most {n} occurrences allowed in total" + (": " + ", ".join(over) if over else ""))


def check_any_word_freq(params: FreqParams, items: Items, ctx: RuleContext) -> Verdict:
    """In every item the keywords occur N times together."""
    n, keywords = params
    for i, item in enumerate(items, 1):
        total = sum(item.count(k) for k in keywords)
        if total != n:
            return Verdict.fail(f"item {i}: the keywords {keywords} occur {total} times together, expected {n}")
    return Verdict.ok(f"in every item the keywords occur {n} times together")


def _character_params(label: str) -> tuple[str, tuple[float, float]]:
    name = label.split(":", 1)[0].strip()
    letter = name[len("character_freq_") :]
    if len(letter) != 1:
        raise ParameterError(f"rule {label!r} does not name one letter")
    return letter.lower(), range_param(label)


def check_character_freq(params: tuple[str, tuple[float, float]], items: Items, ctx: RuleContext) -> Verdict:
    letter, (lo, hi) = params
    total = sum(item.lower().count(letter) for item in items)
    return Verdict.of(lo <= total <= hi, f"letter {letter!r} occurs {total} times, expected [{lo:g}, {hi:g}]")


RULES = [
    rule("word_freq", _freq_params("word_freq"), check_cjk_word_freq, dispatchers=("cjk",)),
    rule("word_freq", _freq_params("word_freq"), check_latin_word_freq, requires=("simplemma",)),
    rule("each_word_freq", _freq_params("each_word_freq"), check_latin_word_freq, requires=("simplemma",)),
    rule("non_word_freq", _freq_params("non_word_freq"), check_cjk_non_word_freq, dispatchers=("cjk",)),
    rule("non_word_freq", _freq_params("non_word_freq"), check_latin_non_word_freq, requires=("simplemma",)),
    rule("any_word_freq", _freq_params("any_word_freq"), check_any_word_freq, dispatchers=("cjk",)),
    rule("notation_freq", _freq_params("notation_freq"), check_notation_freq, dispatchers=("cjk",)),
    rule("character_freq_", _character_params, check_character_freq, family="character_freq"),
]

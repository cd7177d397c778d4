"""Keyword presence and absence.

CJK dispatcher: case-insensitive substring. Non-CJK dispatcher: whole-word match or an
inflected form with the same lemma (see :mod:`.lemma`).
"""

from __future__ import annotations

from . import lemma
from .base import RuleContext, Verdict
from .params import name_suffix, string_list_param
from .spec import Items, rule


def _cjk_has(keyword: str, item: str) -> bool:
    return keyword.lower() in item.lower()


def _latin_has(ctx: RuleContext):
    return lambda keyword, item: lemma.matches(keyword, item, ctx.language)


def _all_present(keywords: list[str], items: Items, has) -> Verdict:
    for item in items:
        for keyword in keywords:
            if not has(keyword, item):
                return Verdict.fail(f"{item!r} lacks the keyword {keyword!r}")
    return Verdict.ok(f"every item contains {keywords}")


def _none_present(keywords: list[str], items: Items, has) -> Verdict:
    for item in items:
        for keyword in keywords:
            if has(keyword, item):
                return Verdict.fail(f"{item!r} contains the forbidden keyword {keyword!r}")
    return Verdict.ok(f"no item contains any of {keywords}")


def check_cjk_keywords(keywords: list[str], items: Items, ctx: RuleContext) -> Verdict:
    return _all_present(keywords, items, _cjk_has)


def check_latin_keywords(keywords: list[str], items: Items, ctx: RuleContext) -> Verdict:
    return _all_present(keywords, items, _latin_has(ctx))


def check_cjk_non_keywords(keywords: list[str], items: Items, ctx: RuleContext) -> Verdict:
    return _none_present(keywords, items, _cjk_has)


def check_latin_non_keywords(keywords: list[str], items: Items, ctx: RuleContext) -> Verdict:
    return _none_present(keywords, items, _latin_has(ctx))


def _any_params(prefix: str):
    return lambda label: (name_suffix(label, prefix), string_list_param(label))


def _at_least(n: int, keywords: list[str], found: list[str]) -> Verdict:
    distinct = list(dict.fromkeys(found))
    reason = f"{len(distinct)} of the keywords {keywords} present ({distinct}), at least {n} required"
    return Verdict.of(len(distinct) >= n, reason)


def check_cjk_any_keywords(params: tuple[int, list[str]], items: Items, ctx: RuleContext) -> Verdict:
    """At least N distinct keywords occur somewhere in the items.

    The reference implementation searches the Python repr of the item list, so a keyword
    may match across two items; ``compat="head"`` reproduces that.
    """
    n, keywords = params
    if ctx.compat == "head":
        haystacks = [str(list(items)).lower()]
    else:
        haystacks = [i.lower() for i in items]
    found = [k for k in keywords if any(k.lower() in h for h in haystacks)]
    return _at_least(n, keywords, found)


def check_latin_any_keywords(params: tuple[int, list[str]], items: Items, ctx: RuleContext) -> Verdict:
    n, keywords = params
    joined = "\n".join(items)
    found = [k for k in keywords if lemma.matches(k, joined, ctx.language)]
    return _at_least(n, keywords, found)


def check_startword(words: list[str], items: Items, ctx: RuleContext) -> Verdict:
    """The first item contains one of the words."""
    if not items:
        return Verdict.fail("nothing was extracted")
    hit = next((w for w in words if w in items[0]), None)
    return Verdict.of(
        hit is not None, f"first item {items[0]!r} {'contains ' + repr(hit) if hit else 'lacks all of ' + repr(words)}"
    )


RULES = [
    rule("keywords", string_list_param, check_cjk_keywords, dispatchers=("cjk",)),
    rule("keywords", string_list_param, check_latin_keywords, requires=("simplemma",)),
    rule("non_keyword", string_list_param, check_cjk_non_keywords, family="non_keywords", dispatchers=("cjk",)),
    rule("non_keyword", string_list_param, check_latin_non_keywords, family="non_keywords", requires=("simplemma",)),
    rule("any_keywords", _any_params("any_keywords"), check_cjk_any_keywords, dispatchers=("cjk",)),
    rule("any_keywords", _any_params("any_keywords"), check_latin_any_keywords, requires=("simplemma",)),
    rule("startword", string_list_param, check_startword, dispatchers=("cjk",)),
]

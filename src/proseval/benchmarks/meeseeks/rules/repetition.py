"""Duplicates, repeated characters/words and near-duplicate items."""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations

from .. import text
from . import lemma
from .base import RuleContext, Verdict
from .spec import Items, no_params, rule

SIMILARITY_LIMIT = 0.75


def _duplicates(keys: list[str]) -> Verdict:
    repeated = {k: n for k, n in Counter(keys).items() if n > 1}
    if repeated:
        return Verdict.fail("duplicate items: " + ", ".join(f"{k!r} ×{n}" for k, n in repeated.items()))
    return Verdict.ok("no duplicate items")


def check_cjk_repeat_each(_: None, items: Items, ctx: RuleContext) -> Verdict:
    return _duplicates([text.cjk_clean(i, ctx.compat) for i in items])


def check_latin_repeat_each(_: None, items: Items, ctx: RuleContext) -> Verdict:
    return _duplicates([text.script_clean(i).lower() for i in items])


_ARABIC_PUNCTUATION = "\u060c\u061b\u061f\u066a-\u066d\u06d4"
_ARABIC = re.compile(f"(?:(?![{_ARABIC_PUNCTUATION}])[{text.LETTERS['arabic']}])+")
_NOT_A_LIST = Verdict.fail("the extracted parts must be a list, not a bare string")


def arabic_words(item: str) -> list[str]:
    """Runs of Arabic-block characters; Arabic punctuation (، ؛ ؟ …) separates words."""
    return _ARABIC.findall(item)


def check_ar_repeat_each(_: None, items: Items | str, ctx: RuleContext) -> Verdict:
    """Duplicates among the Arabic words of the items (items without Arabic are ignored)."""
    if isinstance(items, str):
        return _NOT_A_LIST
    keys = [" ".join(w) for i in items if (w := arabic_words(i))]
    return _duplicates(keys)


def _repeated(units: list[str]) -> list[str]:
    return [u for u, n in Counter(units).items() if n > 1]


def check_cjk_no_word_repeat(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """No CJK character occurs twice across all items together."""
    repeated = _repeated([c for i in items for c in text.cjk_clean(i, ctx.compat)])
    return Verdict.of(not repeated, f"repeated characters: {repeated}" if repeated else "no repeated character")


def check_each_no_word_repeat(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """No CJK character occurs twice within one item."""
    bad = [(n, r) for n, i in enumerate(items, 1) if (r := _repeated(list(text.cjk_clean(i, ctx.compat))))]
    return Verdict.of(not bad, "; ".join(f"item {n} repeats {r}" for n, r in bad) or "no repeated character")


def _per_item_word_repeat(word_lists: list[list[str]], items: Items) -> Verdict:
    for item, ws in zip(items, word_lists):
        repeated = _repeated(ws)
        if repeated:
            return Verdict.fail(f"{item!r} repeats the words {repeated}")
    return Verdict.ok("no item repeats a word")


def check_latin_no_word_repeat(_: None, items: Items, ctx: RuleContext) -> Verdict:
    return _per_item_word_repeat([text.script_clean(i).lower().split() for i in items], items)


def check_ar_no_word_repeat(_: None, items: Items | str, ctx: RuleContext) -> Verdict:
    """No item repeats an Arabic word (items without Arabic are ignored)."""
    if isinstance(items, str):
        return _NOT_A_LIST
    return _per_item_word_repeat([arabic_words(i) for i in items], items)


def check_no_character_repeat(_: None, items: Items, ctx: RuleContext) -> Verdict:
    for item in items:
        repeated = _repeated(list(item.lower()))
        if repeated:
            return Verdict.fail(f"{item!r} repeats the characters {repeated}")
    return Verdict.ok("no item repeats a character")


def dice(a: set, b: set) -> float:
    """Dice coefficient 2|A∩B| / (|A|+|B|); 0 for two empty sets."""
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 0.0


def _not_similar(units: list[set], items: Items) -> Verdict:
    for (i, a), (j, b) in combinations(enumerate(units), 2):
        score = dice(a, b)
        if score > SIMILARITY_LIMIT:
            return Verdict.fail(
                f"{items[i]!r} and {items[j]!r} are too similar (Dice {score:.2f} > {SIMILARITY_LIMIT})"
            )
    return Verdict.ok(f"no two items have Dice similarity above {SIMILARITY_LIMIT}")


def check_cjk_non_very_similar(_: None, items: Items, ctx: RuleContext) -> Verdict:
    return _not_similar([set(text.cjk_clean(i, ctx.compat)) for i in items], items)


def check_latin_non_very_similar(_: None, items: Items, ctx: RuleContext) -> Verdict:
    return _not_similar([{lemma.lemma(t, ctx.language) for t in lemma.tokens(i)} for i in items], items)


RULES = [
    rule("repeat_each", no_params, check_cjk_repeat_each, dispatchers=("cjk",)),
    rule("repeat_each", no_params, check_latin_repeat_each),
    rule("ar_repeat_each", no_params, check_ar_repeat_each, bare_string="raw"),
    rule("no_word_repeat", no_params, check_cjk_no_word_repeat, dispatchers=("cjk",)),
    rule("no_word_repeat", no_params, check_latin_no_word_repeat),
    rule("ar_no_word_repeat", no_params, check_ar_no_word_repeat, bare_string="raw"),
    rule("each_no_word_repeat", no_params, check_each_no_word_repeat, dispatchers=("cjk",)),
    rule(
        "no_word_eachrepeat", no_params, check_each_no_word_repeat, family="each_no_word_repeat", dispatchers=("cjk",)
    ),
    rule("no_character_repeat", no_params, check_no_character_repeat),
    rule("non_very_similar", no_params, check_cjk_non_very_similar, dispatchers=("cjk",)),
    rule("non_very_similar", no_params, check_latin_non_very_similar, requires=("simplemma",)),
]

"""Items that must start or end with a given text (compared after cleaning)."""

from __future__ import annotations

from .. import text
from .base import ParameterError, RuleContext, Verdict
from .params import string_list_param
from .spec import Items, rule


def _first(label: str) -> str:
    values = string_list_param(label)
    if not values:
        raise ParameterError(f"rule {label!r} has an empty list")
    return values[0]


def _cjk(item: str, ctx: RuleContext) -> str:
    return text.cjk_clean(item, ctx.compat)


def _latin(item: str, ctx: RuleContext) -> str:
    return text.simple_clean(item.lower())


def affix_checker(clean, at_end: bool):
    where = "end" if at_end else "start"

    def check(affix: str, items: Items, ctx: RuleContext) -> Verdict:
        target = clean(affix, ctx)
        for item in items:
            cleaned = clean(item, ctx)
            if not (cleaned.endswith(target) if at_end else cleaned.startswith(target)):
                return Verdict.fail(f"{item!r} does not {where} with {affix!r}")
        return Verdict.ok(f"every item {where}s with {affix!r}")

    return check


def check_endswithany_each(suffixes: list[str], items: Items, ctx: RuleContext) -> Verdict:
    """Every item ends with one of the suffixes (CJK-cleaned)."""
    targets = tuple(_cjk(s, ctx) for s in suffixes)
    bad = [item for item in items if not _cjk(item, ctx).endswith(targets)]
    return Verdict.of(
        not bad, f"items not ending with any of {suffixes}: {bad}" if bad else f"every item ends with one of {suffixes}"
    )


RULES = [
    rule("endswith_each", _first, affix_checker(_cjk, True), dispatchers=("cjk",)),
    rule("startswith_each", _first, affix_checker(_cjk, False), dispatchers=("cjk",)),
    rule("endswith_each", _first, affix_checker(_latin, True)),
    rule("startswith_each", _first, affix_checker(_latin, False)),
    rule("endswithany_each", string_list_param, check_endswithany_each, dispatchers=("cjk",)),
]

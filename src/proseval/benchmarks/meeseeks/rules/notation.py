"""Forbidden and required notations (symbols, line breaks)."""

from __future__ import annotations

from .base import ParameterError, RuleContext, Verdict
from .params import after_colon
from .spec import Items, rule


def _notation(label: str) -> str:
    notation = after_colon(label)
    if not notation:
        raise ParameterError(f"rule {label!r} names no notation")
    return notation


def check_non_special_notation(notation: str, items: Items, ctx: RuleContext) -> Verdict:
    """No item contains the notation (in the data: a line break, i.e. "a single paragraph")."""
    hit = next((item for item in items if notation in item), None)
    if hit is not None:
        return Verdict.fail(f"{notation!r} found in {hit!r}")
    return Verdict.ok(f"{notation!r} found in no item")


def _notations(label: str) -> list[str]:
    symbols = [s.strip() for s in after_colon(label).split(",") if s.strip()]
    if not symbols:
        raise ParameterError(f"rule {label!r} names no symbol")
    return symbols


def check_every_notation_used(symbols: list[str], items: Items, ctx: RuleContext) -> Verdict:
    """Every listed symbol appears at least once in the items."""
    joined = "\n".join(items)
    missing = [s for s in symbols if s not in joined]
    return Verdict.of(not missing, f"missing symbols: {missing}" if missing else f"all of {symbols} used")


RULES = [
    rule("non_special_notation", _notation, check_non_special_notation, dispatchers=("cjk", "latin")),
    rule("french_special_notation", _notations, check_every_notation_used),
]

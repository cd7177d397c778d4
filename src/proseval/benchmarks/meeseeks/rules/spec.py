"""How a rule family is declared: label prefix, parameter parser, pure checker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .base import Dispatcher, RuleContext, Verdict

Items = list[str]
Parser = Callable[[str], Any]
Checker = Callable[[Any, Items, RuleContext], Verdict]


@dataclass(frozen=True)
class RuleSpec:
    """One checker bound to the labels starting with ``prefix`` (case-insensitive).

    ``requires`` names optional modules the checker imports lazily; ``extra`` is the
    proseval extra that installs them.
    """

    prefix: str
    family: str
    parse: Parser
    check: Checker
    dispatchers: tuple[Dispatcher, ...] = ("cjk", "latin")
    requires: tuple[str, ...] = ()
    extra: str | None = None

    def matches(self, label: str) -> bool:
        return label[: len(self.prefix)].lower() == self.prefix.lower()


def no_params(label: str) -> None:
    """Parser of labels without parameters."""
    return None


def rule(
    prefix: str,
    family: str,
    parse: Parser,
    check: Checker,
    *,
    dispatchers: tuple[Dispatcher, ...] = ("cjk", "latin"),
    requires: tuple[str, ...] = (),
    extra: str | None = None,
) -> RuleSpec:
    return RuleSpec(prefix, family, parse, check, dispatchers, requires, extra)

"""How a rule family is declared: label prefix, parameter parser, pure checker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

from .base import Dispatcher, RuleContext, Verdict

Items = list[str]
Parser = Callable[[str], Any]
Checker = Callable[[Any, Items, RuleContext], Verdict]
BareString = Literal["chars", "item", "raw"]


@dataclass(frozen=True)
class RuleSpec:
    """One checker bound to the labels starting with ``prefix`` (case-insensitive).

    ``requires`` names optional modules the checker imports lazily; ``extra`` is the
    proseval extra that installs them. ``bare_string`` says how a string given instead of
    a list is read: as its characters (the reference iterates it), as one item, or passed
    through unchanged (``SCHEMA`` reads the raw response).
    """

    prefix: str
    family: str
    parse: Parser
    check: Checker
    dispatchers: tuple[Dispatcher, ...]
    requires: tuple[str, ...]
    extra: str | None
    bare_string: BareString

    def matches(self, label: str) -> bool:
        return label[: len(self.prefix)].lower() == self.prefix.lower()


def no_params(label: str) -> None:
    """Parser of labels without parameters."""
    return None


def rule(
    prefix: str,
    parse: Parser,
    check: Checker,
    *,
    family: str | None = None,
    dispatchers: tuple[Dispatcher, ...] = ("latin",),
    requires: tuple[str, ...] = (),
    extra: str | None = None,
    bare_string: BareString = "chars",
) -> RuleSpec:
    """The checker of the labels starting with ``prefix``, in the family of that name unless
    ``family`` says otherwise, registered with the non-CJK dispatcher only unless
    ``dispatchers`` says otherwise (most rules belong to one language of that dispatcher)."""
    return RuleSpec(prefix, family or prefix, parse, check, dispatchers, requires, extra, bare_string)

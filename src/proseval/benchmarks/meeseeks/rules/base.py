"""Vocabulary shared by every Meeseeks rule checker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..text import Compat

Dispatcher = Literal["cjk", "latin"]
"""Which official checker module a file belongs to: zh/ja/ko files → ``cjk``, the rest → ``latin``."""

Status = Literal["passed", "failed", "unsupported", "missing_dependency", "undecidable"]


@dataclass(frozen=True)
class Verdict:
    """Outcome of one rule check.

    ``passed`` is ``None`` when the rule could not be decided; ``status`` then says why
    (no checker for the label, an optional dependency is missing, or the input/parameters
    make the check meaningless). Undecided verdicts are counted, never scored as 0.
    """

    passed: bool | None
    reason: str
    status: Status

    @classmethod
    def ok(cls, reason: str) -> Verdict:
        return cls(True, reason, "passed")

    @classmethod
    def fail(cls, reason: str) -> Verdict:
        return cls(False, reason, "failed")

    @classmethod
    def of(cls, passed: bool, reason: str) -> Verdict:
        return cls(passed, reason, "passed" if passed else "failed")

    @classmethod
    def unsupported(cls, reason: str) -> Verdict:
        return cls(None, reason, "unsupported")

    @classmethod
    def missing_dependency(cls, reason: str) -> Verdict:
        return cls(None, reason, "missing_dependency")

    @classmethod
    def undecidable(cls, reason: str) -> Verdict:
        return cls(None, reason, "undecidable")


@dataclass(frozen=True)
class RuleContext:
    """What a checker may know besides its parameters and the extracted parts.

    ``language`` is the file's language code (zh ja ko en de fr es pt ru ar id); it also
    chooses the lemmatiser, so the round-1 prompt or the re-ask prompt never matters;
    ``json_schema`` is the item's schema for ``SCHEMA`` rules.
    """

    language: str = "en"
    json_schema: dict | None = None
    compat: Compat = "fixed"


class ParameterError(ValueError):
    """A rule label whose parameters cannot be parsed."""

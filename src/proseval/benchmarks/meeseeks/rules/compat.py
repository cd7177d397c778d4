"""Checkers whose reference implementation crashes, reproduced under ``compat="head"``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import RuleContext, Verdict
from .spec import Checker, Items


def crashes_under_head(reason: str, *, on_empty: bool = True) -> Callable[[Checker], Checker]:
    """Wrap a checker so that under ``compat="head"`` it fails with ``reason``, as the
    reference pipeline scores a checker that raises; ``on_empty=False`` keeps the checker's
    own verdict on an empty list (the reference crashes only once it reads an item)."""

    def wrap(check: Checker) -> Checker:
        def wrapped(params: Any, items: Items, ctx: RuleContext) -> Verdict:
            if ctx.compat == "head" and (on_empty or items):
                return Verdict.fail(reason)
            return check(params, items, ctx)

        return wrapped

    return wrap

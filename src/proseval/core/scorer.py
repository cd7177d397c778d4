"""The scorer contract: ``@scorer(name, metrics=[...])`` on an async function of (sample, state, ctx).

A scorer returns ``{metric: Score}`` for one sample. The name says where its failures are
recorded (an exception becomes one unscored score under that name); the declared metrics are
the keys it returns, checked by the runtime, so a typo cannot silently create a new metric.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def scorer(name: str, *, metrics: Sequence[str] | None = None) -> Callable[[F], F]:
    """Mark `fn` as a scorer named `name` that returns the scores named in `metrics`."""

    def mark(fn: F) -> F:
        fn.scorer_name = name  # type: ignore[attr-defined]  # a mark set on the function itself
        fn.scorer_metrics = tuple(metrics) if metrics is not None else (name,)  # type: ignore[attr-defined]  # likewise
        return fn

    return mark


def scorer_name(fn: Any) -> str:
    return str(getattr(fn, "scorer_name", None) or getattr(fn, "__name__", "score"))


def declared_metrics(fn: Any) -> tuple[str, ...] | None:
    """The metrics a scorer declared, or None for an undecorated callable (not checked)."""
    return getattr(fn, "scorer_metrics", None)

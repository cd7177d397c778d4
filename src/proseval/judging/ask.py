"""Bounded re-asks: ask a judge-like role, parse each reply, ask again until the answer is usable.

Every benchmark asks its judge (or extractor) the same way: up to `attempts` calls, each reply
parsed, stopping at the first usable one; a failed call (a `ModelError` after the executor's
retries) ends the asking and is returned, never raised, so that the caller records it as an
infrastructure failure. Turn names are ``{turn}#{attempt}``, so each attempt has its own cache
entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..models.base import Message, ModelError

T = TypeVar("T")


@dataclass
class Asked(Generic[T]):
    """The parsed replies, in order, and the error that ended the asking, if any."""

    replies: list[T] = field(default_factory=list)
    error: ModelError | None = None

    @property
    def attempts(self) -> int:
        """Calls made, the failed one included."""
        return len(self.replies) + (self.error is not None)

    @property
    def last(self) -> T | None:
        return self.replies[-1] if self.replies else None


async def ask_until(
    ctx: Any,
    role: str,
    messages: list[Message],
    parse: Callable[[str], T],
    done: Callable[[T], bool],
    *,
    attempts: int,
    turn: str,
    config: dict[str, Any] | None = None,
) -> Asked[T]:
    """Ask `role` up to `attempts` times; stop when ``done(parse(reply))`` or a call fails.

    `config` adds generation settings to every call (e.g. a `response_format`).
    """
    asked: Asked[T] = Asked()
    for attempt in range(attempts):
        try:
            completion = await ctx.generate(role, messages, config, turn=f"{turn}#{attempt}")
        except ModelError as exc:
            asked.error = exc
            break
        parsed = parse(completion.text)
        asked.replies.append(parsed)
        if done(parsed):
            break
    return asked

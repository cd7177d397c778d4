"""Bounded re-asks shared by every benchmark's judge and extractor calls."""

from __future__ import annotations

from proseval.judging.ask import ask_until
from proseval.models.base import Completion, FatalError


class Context:
    def __init__(self, replies):
        self.replies = list(replies)
        self.turns = []
        self.configs = []

    async def generate(self, role, messages, config=None, *, turn):
        self.turns.append((role, turn))
        self.configs.append(config)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Completion(text=reply)


async def test_stops_at_the_first_usable_reply():
    ctx = Context(["no", "7", "9"])
    asked = await ask_until(ctx, "judge", [], lambda r: r, str.isdigit, attempts=3, turn="c1")
    assert asked.replies == ["no", "7"] and asked.last == "7" and asked.attempts == 2 and asked.error is None
    assert ctx.turns == [("judge", "c1#0"), ("judge", "c1#1")]


async def test_gives_up_after_the_bound():
    asked = await ask_until(Context(["a", "b", "c"]), "judge", [], len, lambda n: n > 5, attempts=2, turn="t")
    assert asked.replies == [1, 1] and asked.attempts == 2


async def test_a_failed_call_ends_the_asking_and_is_returned():
    asked = await ask_until(
        Context(["no", FatalError("HTTP 400")]), "extractor", [], lambda r: r, str.isdigit, attempts=3, turn="x"
    )
    assert asked.replies == ["no"] and isinstance(asked.error, FatalError) and asked.attempts == 2


async def test_a_config_is_sent_with_every_attempt():
    context = Context(["no", "7"])
    fmt = {"response_format": {"type": "json_object"}}
    await ask_until(context, "judge", [], lambda r: r, str.isdigit, attempts=3, turn="t", config=fmt)
    assert context.configs == [fmt, fmt]

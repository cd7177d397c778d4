"""Reusable protocols: how the candidate is driven for one sample."""

from __future__ import annotations

from .context import Context
from .sample import Sample
from .state import State


def as_messages(prompt: str | list[dict[str, str]]) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)


async def single_turn(sample: Sample, ctx: Context) -> State:
    """Ask the candidate once; its answer is the output."""
    messages = as_messages(sample.input)
    completion = await ctx.generate("candidate", messages)
    return State(
        messages=[*messages, {"role": "assistant", "content": completion.text}],
        output=completion.text,
        finish_reason=completion.finish_reason,
    )

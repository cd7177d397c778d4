"""Removing reasoning text (``<think>`` blocks and the like) from model answers.

:func:`strip_reasoning` removes every reasoning block written with
  ``<think>``, ``<thinking>``, ``<thought>`` or ``<reasoning>`` tags (any letter case,
  attributes allowed, nested or repeated), everything before a closing tag whose opening
  tag is missing (the opening tag was part of the chat template), and an opening tag that
is never closed together with everything after it (reasoning cut off by the token limit).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

REASONING_TAGS = ("think", "thinking", "thought", "reasoning")

_TAG = re.compile(
    r"<\s*(/?)\s*(?:" + "|".join(REASONING_TAGS) + r")\b[^<>]*>",
    re.IGNORECASE,
)


class CleanedResponse(BaseModel):
    """A response with its reasoning removed, and a record of what was removed."""

    model_config = ConfigDict(frozen=True)

    text: str
    removed: tuple[str, ...] = ()

    @property
    def stripped(self) -> bool:
        return bool(self.removed)


def strip_reasoning(text: str) -> CleanedResponse:
    """Remove reasoning blocks from ``text`` (see the module docstring for the rules)."""
    kept: list[str] = []
    removed: list[str] = []
    depth = 0
    position = 0  # start of the text not yet assigned to `kept` or `removed`
    for tag in _TAG.finditer(text):
        closing = tag.group(1) == "/"
        if not closing:
            if depth == 0:
                kept.append(text[position : tag.start()])
                position = tag.start()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                removed.append(text[position : tag.end()])
                position = tag.end()
        else:
            # A closing tag without an opening one: all text so far was reasoning.
            removed.append("".join(kept) + text[position : tag.end()])
            kept = []
            position = tag.end()
    tail = text[position:]
    if depth > 0:
        removed.append(tail)
    else:
        kept.append(tail)
    if not removed:
        return CleanedResponse(text=text)
    return CleanedResponse(text="".join(kept).strip(), removed=tuple(removed))

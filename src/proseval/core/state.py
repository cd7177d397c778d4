"""What a protocol leaves behind for the scorers: the conversation and the final output."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class State(BaseModel):
    messages: list[dict[str, str]] = Field(default_factory=list)
    output: str = ""
    finish_reason: str | None = None
    turns: list[dict[str, Any]] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)

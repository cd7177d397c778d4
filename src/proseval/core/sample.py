"""The unit of a benchmark's dataset."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Sample(BaseModel):
    """One item of a benchmark's dataset.

    `input` is either the prompt text or a list of chat messages (``{"role", "content"}``).
    `target` holds whatever the scorers need to judge an answer (anchors, expected values).
    `metadata` carries slice labels (domain, language, length, ...) used by aggregation.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    input: str | list[dict[str, str]]
    target: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)

"""Scores: a value, or `None` when the sample could not be scored (never silently 0)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

ParseStatus = Literal[
    "ok", "repaired", "coerced", "partial", "unparsable", "out_of_range", "refused", "error", "empty", "not_applicable"
]


class Score(BaseModel):
    """One named score of one sample.

    `value` is a number, a dict of named sub-scores, or `None` = unscored. `parse_status`
    says how the value was obtained (``repaired`` JSON, ``partial`` when only some of its
    parts could be scored) or why there is none.
    """

    value: float | dict[str, float | None] | None
    explanation: str = ""
    parse_status: ParseStatus = "ok"
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def scored(self) -> bool:
        return self.value is not None

    @classmethod
    def unscored(cls, status: ParseStatus, explanation: str, **metadata: Any) -> Score:
        return cls(value=None, parse_status=status, explanation=explanation, metadata=metadata)

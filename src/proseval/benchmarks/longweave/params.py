"""Options of the `longweave` task (kept light: the registry imports this at start-up)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from proseval.kit import comma_list

TASK_NAMES = ("cf", "biog", "sr", "nw", "kvg", "sms", "pr")
LENGTH_NAMES = ("1k", "2k", "4k", "8k")
JUDGED_TASKS = ("cf", "biog", "sr", "nw")


def _split(value: Any, allowed: tuple[str, ...], what: str) -> list[str]:
    items = [str(item).strip().lower() for item in comma_list(value) if str(item).strip()]
    unknown = [item for item in items if item not in allowed]
    if unknown or not items:
        raise ValueError(f"unknown {what} {', '.join(unknown) or '(none)'}; choose from {','.join(allowed)}")
    return [name for name in allowed if name in items]


class LongWeaveParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: list[str] = Field(list(TASK_NAMES), description="tasks, comma-separated: cf,biog,sr,nw,kvg,sms,pr")
    length: list[str] = Field(list(LENGTH_NAMES), description="target lengths, comma-separated: 1k,2k,4k,8k")
    per_cell: int = Field(200, ge=1, le=100_000, description="samples per task x length cell (official: 200)")
    seed: int = Field(0, description="generator seed (0 reproduces the official KVG/SMS instances)")
    judge_attempts: int = Field(3, ge=1, le=10, description="judge calls per batch while targets stay unjudged")
    official: bool = Field(False, description="score with the official behaviours (documented bugs included)")
    output_budget: str = Field(
        "auto",
        description="candidate max_tokens per sample: auto (measured per task x length so that a "
        "correct answer fits; at least the official 8192), role (the candidate role's setting, "
        "-g candidate.max_tokens), or a number of tokens",
    )
    sms_leaky_example: bool = Field(
        False,
        description="SMS worked example built from the first symbols of the real input, as the "
        "official prompt does (shows the first 3 answer rows); false: an independent example",
    )

    @field_validator("output_budget", mode="before")
    @classmethod
    def _budget(cls, value: Any) -> str:
        text = str(value).strip().lower()
        if text in ("auto", "role") or (text.isdigit() and int(text) >= 1):
            return text
        raise ValueError(f"output budget must be auto, role or a positive number of tokens, got {value!r}")

    @field_validator("task", mode="before")
    @classmethod
    def _tasks(cls, value: Any) -> list[str]:
        return _split(value, TASK_NAMES, "LongWeave task")

    @field_validator("length", mode="before")
    @classmethod
    def _lengths(cls, value: Any) -> list[str]:
        return _split(value, LENGTH_NAMES, "LongWeave length")

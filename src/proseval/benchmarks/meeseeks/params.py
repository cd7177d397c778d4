"""Options of the `meeseeks` task (kept light: the registry imports this at start-up)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, field_validator

from proseval.kit import comma_list

DATA_ENV = "PROSEVAL_MEESEEKS_DIR"
KNOWN_LANGUAGES = ("zh", "ja", "ko", "en", "de", "fr", "es", "pt", "ru", "ar", "id")


def default_data_dir() -> Path:
    """Where `proseval meeseeks download` puts the official files and the task looks by default."""
    return Path(platformdirs.user_data_dir("proseval")) / "meeseeks"


class MeeseeksParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    data_dir: str | None = Field(
        None,
        description=f"folder with input_data/{{english_data,asia_data}}/raw_input/*.json "
        f"(default: ${DATA_ENV}, else the download folder)",
    )
    download: bool = Field(
        False, description="download the official files (pinned commit, SHA-256 checked) when the data folder has none"
    )
    verify: bool = Field(
        True,
        description="check the combined SHA-256 of the official file set (a mismatch is "
        "an error); other file sets are recorded as unverified",
    )
    order: Literal["files", "interleaved"] = Field(
        "files",
        description="item order; interleaved alternates the data files (templates), so that --limit "
        "takes a varied sample",
    )
    language: list[str] | None = Field(
        None,
        description="language code(s) to evaluate, e.g. en or [en, de] or en,de "
        f"(default: all of {', '.join(KNOWN_LANGUAGES)})",
    )
    rounds: int = Field(
        20,
        ge=1,
        le=100,
        description="at most this many rounds per item (paper: up to 20; "
        "the official preset runs 2); an item stops once nothing fails",
    )
    feedback: Literal["reask", "chat"] = Field(
        "reask",
        description="reask: one new message with the failed requirements and the previous answer "
        "(reference implementation); chat: the conversation goes on (paper era)",
    )
    feedback_language: Literal["en", "zh"] = Field("en", description="wording of the chat-mode feedback turn")
    extraction: Literal["code", "general"] = Field(
        "code",
        description="code: #CODE# parts are extracted by model-written code run in the sandbox "
        "(official); general: every model-extracted part asks the extractor for a list",
    )
    compat: Literal["fixed", "head"] = Field(
        "fixed",
        description="fixed: intended behaviour (documented deviations); head: reproduce the "
        "reference commit where the docs say so",
    )
    judge_attempts: int = Field(
        3,
        ge=1,
        le=10,
        description="judge calls per sub-question when no Yes/No verdict can be read (compat=head: always 1)",
    )
    sandbox_seconds: float = Field(10.0, gt=0, le=600, description="wall-clock limit of one extraction-code run")
    sandbox_memory_mb: int = Field(512, ge=64, le=16384, description="address-space limit of the sandbox")
    allow_weak_sandbox: bool = Field(
        False,
        description="run model-written extraction code even where the operating system cannot confine "
        "it (no seccomp: not Linux, or libseccomp missing); you accept the risk",
    )

    @field_validator("language", mode="before")
    @classmethod
    def _languages(cls, value: object) -> object:
        value = comma_list(value)
        if isinstance(value, list):
            unknown = [v for v in value if v not in KNOWN_LANGUAGES]
            if unknown:
                raise ValueError(f"unknown language code(s) {unknown}; known: {', '.join(KNOWN_LANGUAGES)}")
        return value

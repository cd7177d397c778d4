"""Options of the `writingbench` task (kept light: the registry imports this at start-up)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field

DATA_ENV = "PROSEVAL_WRITINGBENCH_DIR"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("proseval")) / "writingbench"


def data_folder(given: str | os.PathLike[str] | None = None) -> Path:
    """The data folder every command reads: the one given, else ${DATA_ENV}, else the download folder."""
    return Path(given or os.environ.get(DATA_ENV) or default_data_dir()).expanduser()


class WritingBenchParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    data_dir: str | None = Field(
        None, description=f"folder with benchmark_query/ (default: ${DATA_ENV}, else the download folder)"
    )
    queries: str | None = Field(
        None,
        description="evaluate your own JSONL queries with 'checklist' criteria "
        "(e.g. from proseval writingbench criteria) instead of the benchmark",
    )
    download: bool = Field(
        False, description="download the official files (pinned commit, SHA-256 checked) when the data folder has none"
    )
    verify: bool = Field(True, description="check every data file's SHA-256 against the official commit")
    domain: str | None = Field(None, description="only this domain1 or domain2 label")
    lang: Literal["en", "zh"] | None = Field(None, description="only queries in this language")
    requirement: Literal["style", "format", "length"] | None = Field(
        None, description="only the queries of this requirement subset"
    )
    order: Literal["benchmark", "interleaved"] = Field(
        "benchmark",
        description="sample order; interleaved alternates domain1 labels so that --limit "
        "takes a balanced sample of every domain",
    )
    judge_mode: Literal["per-criterion", "batched"] = Field(
        "per-criterion", description="one judge call per criterion (official), or all five in one call"
    )
    judge_max_input_tokens: int | None = Field(
        None,
        ge=256,
        description="cut responses so the judge prompt fits (e.g. 30720 for the critic model, "
        "whose 32,768-token window also holds its 2,048-token answer)",
    )
    judge_structured: bool = Field(
        False,
        description="ask the judge for schema-checked JSON (response_format json_schema); the judge's "
        "endpoint must support structured output",
    )
    judge_attempts: int = Field(3, ge=1, le=10, description="judge calls per criterion when replies are unusable")
    reasoning: Literal["robust", "official"] = Field(
        "robust", description="how reasoning text is removed before judging (official: first '</think>\\n\\n')"
    )


class CriteriaParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    in_file: str = Field(description="JSONL of requests (query / instruction / prompt), one per line")


class CurateParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    in_file: str = Field(
        description="JSONL of request + response pairs (query / instruction / prompt and response / output / answer)"
    )
    judge_mode: Literal["per-criterion", "batched"] = "per-criterion"
    judge_attempts: int = Field(3, ge=1, le=10)

"""The run folder's files as pydantic models; their JSON Schemas are exported to docs/."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.ratings import Rating
from ..core.results import Counts, MetricSummary, ModelFailure, Results, ScoredSample
from ..core.score import Score
from ..core.state import State
from ..models.base import GenerateConfig, Usage

# `results.json` and a record's light view are defined in core, where a task's `aggregate` and
# `artifacts` name them; they are files of the run folder all the same.
__all__ = [
    "Call",
    "Counts",
    "MetricSummary",
    "ModelFailure",
    "PromptInfo",
    "RatingsInfo",
    "Reasoning",
    "Results",
    "ResumeEvent",
    "RoleBinding",
    "RunHeader",
    "SampleRecord",
    "ScoredSample",
]


class RoleBinding(BaseModel):
    """Which model plays a role, with the parameters it is sent. Never holds keys."""

    spec: str
    base_urls: list[str] = Field(default_factory=list)
    config: GenerateConfig = Field(default_factory=GenerateConfig)
    concurrency: int = 1
    rules: list[str] = Field(
        default_factory=list,
        description="the model-family rules that shaped its requests (`proseval describe-model`, proseval docs models)",
    )
    not_sent: list[dict[str, Any]] = Field(
        default_factory=list,
        description="settings the task or preset asked "
        "for that the model does not take, left out of `config`: setting, value, "
        "reason, rule",
    )
    structured_output: str | None = Field(
        None,
        description="how its endpoint takes schema-held answers, as the "
        "probe found: json_schema, json_object or prompt",
    )


class ResumeEvent(BaseModel):
    at: str
    forced: bool = False
    config_hash: str


class PromptInfo(BaseModel):
    """A prompt a run sent: "builtin" or the file it came from, and the SHA-256 of its text."""

    source: str
    sha256: str


class RatingsInfo(BaseModel):
    """What the judge-reliability analysis needs of a run's task (`Task.ratings`), recorded so that
    `proseval agreement` reads a run's verdicts without building its task (or loading its data)."""

    recorded: bool = Field(
        description="the task declares judged verdicts: each finished record lists them in `ratings`"
    )
    slice_keys: list[str] = Field(
        default_factory=list, description="the sample metadata agreement is also given per value of"
    )
    swapped: bool = Field(
        False,
        description="judged with the texts of each judge prompt in the other order (`proseval score --swap-order`)",
    )


class RunHeader(BaseModel):
    """`header.json`: what was run, with what, from which data."""

    run_id: str
    task: str
    task_version: str
    task_params: dict[str, Any] = Field(default_factory=dict)
    dataset: dict[str, Any] = Field(default_factory=dict)
    roles: dict[str, RoleBinding]
    seed: int | None = None
    limit: int | None = None
    epochs: int = 1
    config_hash: str
    package_version: str
    git_commit: str | None = None
    python: str
    platform: str
    started_at: str
    demo_models: bool = False
    rescored_from: str | None = None
    repeat: int = Field(
        0,
        description="a re-score's repeat number (`proseval score --repeats`): repeats of one "
        "judge on the same answers have their own cache entries and seeds",
    )
    resumes: list[ResumeEvent] = Field(default_factory=list)
    prompts: dict[str, PromptInfo] = Field(default_factory=dict)
    preset: dict[str, Any] | None = None
    scorer_plugin: dict[str, Any] | None = None
    batch: list[str] = Field(
        default_factory=list,
        description="the roles whose requests went through the "
        "provider's batch API (`--batch`; batches.jsonl records each batch); a resume "
        "keeps them in batch mode",
    )
    ratings: RatingsInfo | None = Field(
        None,
        description="what the run's judges rate; absent in runs made before "
        "it was recorded (the analysis then builds the task to read them)",
    )


class Call(BaseModel):
    """One answer of a role other than the candidate (a judge's raw reply, an extractor's
    code, a tool's text), or the error its request ended with: what a score was read from.
    The candidate's answers are the sample's `state`."""

    role: str
    turn: str | int = 0
    text: str | None = None
    finish_reason: str | None = None
    cached: bool = False
    error: str | None = None


class Reasoning(BaseModel):
    """The reasoning of one call of a role (the candidate's included), kept apart from its answer:
    a record's answers and every judge's input hold none of it."""

    role: str
    turn: str | int = 0
    text: str | None = Field(
        None, description="the reasoning text the provider returned (none when it reports only the tokens)"
    )
    tokens: int = Field(0, description="reasoning tokens, as the provider reported them (0: not reported)")


class SampleRecord(BaseModel):
    """One line of `samples.jsonl`: a finished sample, successful or failed.

    `status` "error" is an infrastructure failure (unscored, retryable) unless `model_failure`
    is "context_overflow": the candidate's endpoint rejected the prompt as too long, which
    retrying cannot fix. An answer left empty because its token budget went to reasoning is such
    a failure (retryable once the role's settings change). `model_failure` also marks finished
    samples whose answer was empty, cut at `max_tokens`, or refused; they are scored as the
    benchmark defines and counted apart.
    """

    id: str
    epoch: int = 0
    status: Literal["ok", "error"]
    model_failure: ModelFailure | None = None
    input: Any = None
    target: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    state: State | None = None
    scores: dict[str, Score] = Field(default_factory=dict)
    usage: dict[str, Usage] = Field(default_factory=dict)
    calls: list[Call] = Field(default_factory=list)
    reasoning: list[Reasoning] = Field(
        default_factory=list,
        description="the reasoning of every role's calls, in order; never part of an answer or of a judge's input",
    )
    cache_hits: int = 0
    duration_s: float = 0.0
    error: str | None = None
    ratings: list[Rating] | None = Field(
        None,
        description="the verdicts the task's judges gave here "
        "(`Task.ratings`): criterion, value (null: unscored), scale, role; absent "
        "when the task declares none, and in runs made before they were recorded",
    )

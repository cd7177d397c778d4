"""The run folder's files as pydantic models; their JSON Schemas are exported to docs/."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.ratings import Rating
from ..core.score import Score
from ..core.state import State
from ..models.base import GenerateConfig, Usage
from .outcome import Outcome, outcome_of


class RoleBinding(BaseModel):
    """Which model plays a role, with the parameters it is sent. Never holds keys."""

    spec: str
    base_urls: list[str] = Field(default_factory=list)
    config: GenerateConfig = Field(default_factory=GenerateConfig)
    concurrency: int = 1


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

    recorded: bool = Field(description="the task declares judged verdicts: each finished record lists them in "
                           "`ratings`")
    slice_keys: list[str] = Field(default_factory=list, description="the sample metadata agreement is also given "
                                  "per value of")
    swapped: bool = Field(False, description="judged with the texts of each judge prompt in the other order "
                          "(`proseval score --swap-order`)")


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
    repeat: int = Field(0, description="a re-score's repeat number (`proseval score --repeats`): repeats of one "
                        "judge on the same answers have their own cache entries and seeds")
    resumes: list[ResumeEvent] = Field(default_factory=list)
    prompts: dict[str, PromptInfo] = Field(default_factory=dict)
    preset: dict[str, Any] | None = None
    scorer_plugin: dict[str, Any] | None = None
    batch: list[str] = Field(default_factory=list, description="the roles whose requests went through the "
                             "provider's batch API (`--batch`; batches.jsonl records each batch); a resume "
                             "keeps them in batch mode")
    ratings: RatingsInfo | None = Field(None, description="what the run's judges rate; absent in runs made before "
                                        "it was recorded (the analysis then builds the task to read them)")


ModelFailure = Literal["empty", "truncated", "refusal", "context_overflow"]


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


class SampleRecord(BaseModel):
    """One line of `samples.jsonl`: a finished sample, successful or failed.

    `status` "error" is an infrastructure failure (unscored, retryable) unless `model_failure`
    is "context_overflow": the candidate's endpoint rejected the prompt as too long, which
    retrying cannot fix. `model_failure` also marks finished samples whose answer was empty,
    cut at `max_tokens`, or refused by the provider's filter; they are scored as the benchmark
    defines and counted apart.
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
    cache_hits: int = 0
    duration_s: float = 0.0
    error: str | None = None
    ratings: list[Rating] | None = Field(None, description="the verdicts the task's judges gave here "
                                         "(`Task.ratings`): criterion, value (null: unscored), scale, role; absent "
                                         "when the task declares none, and in runs made before they were recorded")


class ScoredSample(BaseModel):
    """The light view of a record that aggregation needs (no texts)."""

    id: str
    epoch: int = 0
    status: Literal["ok", "error"]
    model_failure: ModelFailure | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    scores: dict[str, Score] = Field(default_factory=dict)
    usage: dict[str, Usage] = Field(default_factory=dict)
    error: str | None = None

    @property
    def retryable_failure(self) -> bool:
        """A failed sample that `--retry-failed` runs again (not a prompt too long for the candidate)."""
        return self.status == "error" and self.model_failure != "context_overflow"

    @property
    def failed_scores(self) -> dict[str, str]:
        """Scores of a finished sample left unscored because their requests failed after retries
        (or their scorer raised): metric name -> why."""
        if self.status != "ok":
            return {}
        return {name: score.explanation for name, score in self.scores.items() if score.parse_status == "error"}

    @property
    def needs_retry(self) -> bool:
        """Whether `--retry-failed` runs this sample again: it failed, or one of its scores' requests did."""
        return self.retryable_failure or bool(self.failed_scores)


class MetricSummary(BaseModel):
    mean: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n_scored: int = 0
    n_unscored: int = 0
    n_failed: int = 0


class Counts(BaseModel):
    total: int
    finished: int
    ok: int
    failed: int
    unscored: int = Field(description="finished samples with at least one unscored score, or a score only "
                          "partly scored (some of its criteria unscored)")
    scoring_failed: int = Field(0, description="finished samples with a score whose request failed after its "
                                "retries (unscored; --retry-failed runs them again)")
    failure_reasons: dict[str, int] = Field(
        default_factory=dict, description="why the samples that --retry-failed runs again failed: each reason "
        "(the first line of a failed sample's error, or `metric: why` for a failed score) with the number of "
        "samples it occurred in, most common first")
    duplicates: int = Field(0, description="extra records of a (sample, epoch) that were set aside")
    model_failures: dict[str, int] = Field(
        default_factory=dict, description="samples whose candidate answer was empty, truncated at max_tokens, "
        "refused, or whose prompt overflowed its context (scored as the benchmark defines)")


class Results(BaseModel):
    """`results.json`: headline metrics, per-slice tables, counts, per-role usage."""

    run_id: str
    task: str
    finished_at: str
    complete: bool
    outcome: Outcome | None = Field(None, description="complete, failed_samples (every sample finished, some "
                                    "failed) or stopped (samples missing: the cost limit, an interrupt); "
                                    "see runtime.outcome")
    counts: Counts
    metrics: dict[str, MetricSummary]
    headline: str | None = Field(None, description="the metric that sums the run up (the task's choice)")
    slices: dict[str, dict[str, dict[str, MetricSummary]]] = Field(default_factory=dict)
    roles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)
    epochs: list[dict[str, MetricSummary]] = Field(
        default_factory=list, description="with several epochs: the metrics of each epoch (the headline "
        "metrics are over each sample's mean across its epochs)")
    extra_epochs: list[dict[str, Any]] = Field(
        default_factory=list, description="with several epochs: the task's own figures for each epoch "
        "(`extra` then holds their element-wise mean)")

    @property
    def retryable_failures(self) -> int:
        """The samples that --retry-failed runs again: failed ones (but a prompt too long for the
        candidate) and finished ones with a failed score."""
        overflows = self.counts.model_failures.get("context_overflow", 0)
        return self.counts.failed - overflows + self.counts.scoring_failed

    def final_outcome(self) -> Outcome:
        """The stored outcome, or the one these counts imply (results written before it was stored)."""
        return self.outcome or outcome_of(complete=self.complete, retryable_failures=self.retryable_failures)

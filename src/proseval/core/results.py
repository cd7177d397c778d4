"""What a run's results are made of: the light view of each record that a task's `aggregate`
reads, and `results.json`, which its `artifacts` read. Pure data, in core because a `Task` names
them; the runtime writes them (`runtime.records` holds the run folder's other files) and
`runtime.outcome` says what each outcome means for the exit status.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..models.base import Usage
from .score import Score

Outcome = Literal["complete", "failed_samples", "stopped"]
ModelFailure = Literal["empty", "truncated", "refusal", "context_overflow"]


def outcome_of(*, complete: bool, retryable_failures: int) -> Outcome:
    """The outcome of a run with every planned sample recorded (`complete`) or not."""
    if not complete:
        return "stopped"
    return "failed_samples" if retryable_failures else "complete"


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
    unscored: int = Field(
        description="finished samples with at least one unscored score, or a score only "
        "partly scored (some of its criteria unscored)"
    )
    scoring_failed: int = Field(
        0,
        description="finished samples with a score whose request failed after its "
        "retries (unscored; --retry-failed runs them again)",
    )
    failure_reasons: dict[str, int] = Field(
        default_factory=dict,
        description="why the samples that --retry-failed runs again failed: each reason "
        "(the first line of a failed sample's error, or `metric: why` for a failed score) with the number of "
        "samples it occurred in, most common first",
    )
    duplicates: int = Field(0, description="extra records of a (sample, epoch) that were set aside")
    model_failures: dict[str, int] = Field(
        default_factory=dict,
        description="samples whose candidate answer was empty, truncated at max_tokens, "
        "refused, or whose prompt overflowed its context (scored as the benchmark defines)",
    )


class Results(BaseModel):
    """`results.json`: headline metrics, per-slice tables, counts, per-role usage."""

    run_id: str
    task: str
    finished_at: str
    complete: bool
    outcome: Outcome | None = Field(
        None,
        description="complete, failed_samples (every sample finished, some "
        "failed) or stopped (samples missing: the cost limit, an interrupt); "
        "see runtime.outcome",
    )
    counts: Counts
    metrics: dict[str, MetricSummary]
    headline: str | None = Field(None, description="the metric that sums the run up (the task's choice)")
    slices: dict[str, dict[str, dict[str, MetricSummary]]] = Field(default_factory=dict)
    roles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)
    epochs: list[dict[str, MetricSummary]] = Field(
        default_factory=list,
        description="with several epochs: the metrics of each epoch (the headline "
        "metrics are over each sample's mean across its epochs)",
    )
    extra_epochs: list[dict[str, Any]] = Field(
        default_factory=list,
        description="with several epochs: the task's own figures for each epoch "
        "(`extra` then holds their element-wise mean)",
    )

    @property
    def retryable_failures(self) -> int:
        """The samples that --retry-failed runs again: failed ones (but a prompt too long for the
        candidate) and finished ones with a failed score."""
        overflows = self.counts.model_failures.get("context_overflow", 0)
        return self.counts.failed - overflows + self.counts.scoring_failed

    def final_outcome(self) -> Outcome:
        """The stored outcome, or the one these counts imply (results written before it was stored)."""
        return self.outcome or outcome_of(complete=self.complete, retryable_failures=self.retryable_failures)

"""The analysis as data (`results.json` of `proseval agreement`): evaluator cards, judge pairs,
human labels; its JSON Schema is exported to docs/schema like the run folder's files."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr


class Interval(BaseModel):
    """A 95 % percentile bootstrap interval over resampled items; low and high are None when it
    cannot be given (a single item, or too few resamples where the statistic is defined: `note`)."""

    low: float | None = None
    high: float | None = None
    resamples: int = Field(0, description="resamples in which the statistic was defined")
    note: str = Field("", description="why there is no interval")


class PairStats(BaseModel):
    """Two raters over the items both rated (None where a statistic does not apply or is undefined)."""

    n: int = 0
    spearman: float | None = None
    kendall_tau_b: float | None = None
    pearson: float | None = None
    exact: float | None = Field(None, description="share of equal verdicts (integer scales)")
    within_one: float | None = Field(None, description="share of verdicts at most 1 point apart (integer scales)")
    weighted_kappa: float | None = Field(None, description="Cohen's kappa, quadratic weights (integer scales)")
    alpha: float | None = Field(None, description="Krippendorff's alpha at the scale's level")
    mean_difference: float | None = Field(None, description="mean of first minus second")
    ci_low: float | None = Field(None, description="95 % bootstrap interval of mean_difference")
    ci_high: float | None = None
    intervals: dict[str, Interval] = Field(
        default_factory=dict,
        description="statistic (spearman, kendall_tau_b, "
        "pearson, weighted_kappa, alpha) -> its 95 % bootstrap interval, the "
        "items resampled jointly",
    )


class Consistency(BaseModel):
    repeats: int
    n_items: int
    mean_variance: float | None = None
    mean_sd: float | None = None
    changed_share: float | None = Field(
        None, description="share of items whose verdict is not the same in every repeat"
    )
    alpha: float | None = Field(None, description="Krippendorff's alpha (interval) with repeats as raters")
    note: str = Field("", description="why alpha is missing")


class LengthBias(BaseModel):
    slope_per_doubling: float | None = Field(
        None,
        description="score points per doubling of the answer's length, "
        "net of candidate and sample effects (the beta of the length-controlled "
        "fit): a better candidate that also writes longer is not taken for bias",
    )
    within_sample_slope: float | None = Field(
        None, description="the plain within-sample slope (candidate quality differences included)"
    )
    n: int = 0
    systems: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="candidate -> raw and length-controlled mean"
    )
    note: str = Field("", description="why slope_per_doubling is missing")
    within_run_slope: float | None = Field(
        None,
        description="score points per doubling of the answer's length, "
        "from each run's verdicts net of each criterion's level (criterion fixed "
        "effects; criteria rated on one answer only share one): needs no second "
        "candidate, but takes prompts that call for long answers and are easier "
        "(or harder) for length bias",
    )
    n_within_run: int = Field(0, description="verdicts the within-run slope is fitted on")
    slope_per_doubling_ci: Interval | None = Field(None, description="bootstrap interval over the answers")
    within_run_slope_ci: Interval | None = Field(None, description="bootstrap interval over the verdicts")
    within_run_note: str = Field("", description="why within_run_slope is missing")


class PositionBias(BaseModel):
    n: int
    flip_rate: float | None = Field(None, description="share of verdicts that change when the order is swapped")
    mean_shift: float | None = None
    first_position_share: float | None = None
    flip_rate_ci: Interval | None = Field(None, description="bootstrap interval over the items")


class SelfPreference(BaseModel):
    judge_family: str
    own_family_candidates: list[str] = Field(default_factory=list)
    gap_own: float | None = Field(None, description="mean of (this judge - the other judges) on its family's answers")
    n_own: int = 0
    gap_other: float | None = Field(None, description="the same on the other candidates' answers")
    n_other: int = 0
    difference: float | None = Field(None, description="gap_own - gap_other: the self-preference measured")
    difference_ci: Interval | None = Field(None, description="bootstrap interval over the items")

    @property
    def flagged(self) -> bool:
        return bool(self.own_family_candidates)


class Cost(BaseModel):
    items: int
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_per_1000: float | None = None
    price_per_1000: float | None = None
    currency: str | None = None
    seconds_per_1000: float | None = Field(None, description="request time (sum of latencies, not wall time)")


class RaterVsRest(BaseModel):
    """One rater, and the judge, each against the mean of the other raters on the same items."""

    n: int
    rater: PairStats
    judge: PairStats


class HumanAgreement(BaseModel):
    n_items: int = 0
    vs_human_mean: PairStats | None = None
    per_rater: dict[str, PairStats] = Field(default_factory=dict)
    leave_one_out: dict[str, RaterVsRest] = Field(
        default_factory=dict,
        description="rater -> that rater and the judge against the mean of the other raters "
        "(items rated by the judge, the rater and at least one other rater)",
    )
    pairwise_consistency: float | None = Field(
        None,
        description="share of pairs of answers to the same instruction "
        "(sample, epoch, criterion) the humans score differently that the "
        "judge orders the same way",
    )
    n_pairs: int = Field(0, description="pairs of answers to the same instruction the humans score differently")
    pairwise_consistency_ci: Interval | None = Field(
        None, description="bootstrap interval over the instructions (each with all its pairs)"
    )
    n_preferences: int = 0
    preference_agreement: float | None = Field(
        None, description="share of human A/B/tie preferences the judge's scores imply"
    )
    preference_agreement_ci: Interval | None = Field(None, description="bootstrap interval over the preferences")


class RaterAgreement(BaseModel):
    """How much the human raters agree with each other: context for a judge's agreement with them,
    not a bound on it (a judge can agree with the raters' mean more than any one rater does)."""

    raters: list[str]
    n_items: int = Field(description="items rated by two or more raters")
    alpha: float | None = None
    alpha_ci: Interval | None = Field(None, description="bootstrap interval over the items")
    mean_pairwise_spearman: float | None = None
    mean_pairwise_spearman_ci: Interval | None = Field(None, description="bootstrap interval over the items")
    note: str = Field("", description="why alpha is missing")


class TopDisagreement(BaseModel):
    answers: str
    sample_id: str
    epoch: int
    criterion: str
    a: float
    b: float


class SystemAgreement(BaseModel):
    n_models: int
    kendall_tau_b: float | None
    kendall_tau_b_ci: Interval | None = Field(
        None, description="bootstrap interval over the items (the models' means recomputed in each resample)"
    )
    ranking_a: list[str]
    ranking_b: list[str]
    means_a: dict[str, float]
    means_b: dict[str, float]


class JudgePair(BaseModel):
    task: str
    role: str
    a: str
    b: str
    overall: PairStats
    slices: dict[str, dict[str, PairStats]] = Field(default_factory=dict)
    system: SystemAgreement | None = None
    top_disagreements: list[TopDisagreement] = Field(default_factory=list)


class GroupAgreement(BaseModel):
    task: str
    role: str
    judges: list[str]
    n_items: int = Field(description="items scored by two or more of the judges: those alpha is computed on")
    alpha: float | None
    alpha_ci: Interval | None = Field(None, description="bootstrap interval over those items")
    note: str = Field("", description="why alpha is missing")


class PanelItem(BaseModel):
    """One item's panel score and every judge's verdict on it (None: that judge's verdict is unscored
    or missing; it is left out of the panel score, never counted as 0)."""

    answers: str
    sample_id: str
    epoch: int
    criterion: str
    score: float | None
    judges_scored: int
    values: dict[str, float | None]


class PanelSummary(BaseModel):
    """Several judges on the same answers read as one panel."""

    task: str
    role: str
    judges: list[str]
    aggregate: str = Field(description="how an item's panel score is made from the judges' verdicts that scored")
    n_items: int
    n_unscored: int = Field(description="items no judge of the panel could score")
    n_partial: int = Field(description="items some judge of the panel could not score (scored by the others)")
    candidates: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="candidate -> the panel's mean and each judge's mean on its items"
    )
    most_disagreed: list[PanelItem] = Field(default_factory=list, description="items with the widest range of verdicts")


class EvaluatorCard(BaseModel):
    """Everything known about one judge on one benchmark."""

    task: str
    role: str
    judge: str
    scale: str = ""
    runs: list[str] = Field(default_factory=list)
    candidates: list[str] = Field(default_factory=list)
    n_ratings: int = 0
    n_unscored: int = 0
    unscored_rate: float | None = None
    mean: float | None = None
    humans: HumanAgreement | None = None
    other_judges: dict[str, PairStats] = Field(default_factory=dict)
    consistency: Consistency | None = None
    length: LengthBias | None = None
    position: PositionBias | None = None
    self_preference: SelfPreference | None = None
    cost: Cost | None = None
    missing: dict[str, str] = Field(default_factory=dict, description="figure -> why it is missing (shown as —)")


class RunInfo(BaseModel):
    index: int
    run_id: str
    path: str
    task: str
    answers: str
    candidate: str
    judges: dict[str, str]


class LabelSummary(BaseModel):
    file: str
    labels: int
    matched: int
    unmatched: int = Field(description="labels of an answer and criterion no judge rated")
    ambiguous: int
    replaced: int = 0
    raters: list[str] = Field(default_factory=list)
    unmatched_examples: list[str] = Field(default_factory=list)
    unrated_criteria: list[str] = Field(default_factory=list, description="criteria of labels that no judge rated")


class SetAsideRun(BaseModel):
    """A run left out because it repeats another's judging (see `reliability.repeats`)."""

    run_id: str
    path: str
    reason: Literal["duplicate", "replay"] = Field(
        description="duplicate (the same judging identity) or replay "
        "(every reply from the cache, byte-identical to the kept run's)"
    )
    kept: str = Field(description="the folder of the run analysed in its place")


class Analysis(BaseModel):
    """`results.json` of `proseval agreement`."""

    created_at: str
    package_version: str
    runs: list[RunInfo]
    cards: list[EvaluatorCard] = Field(default_factory=list)
    pairs: list[JudgePair] = Field(default_factory=list)
    groups: list[GroupAgreement] = Field(default_factory=list)
    panels: list[PanelSummary] = Field(default_factory=list)
    labels: LabelSummary | None = None
    rater_agreement: RaterAgreement | None = None
    tasks_without_ratings: list[str] = Field(default_factory=list)
    set_aside: list[SetAsideRun] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
    # Every panel item (written to panel.jsonl beside results.json; not part of results.json).
    _panel_items: list[PanelItem] = PrivateAttr(default_factory=list)

    @property
    def panel_items(self) -> list[PanelItem]:
        return self._panel_items

"""The profile report's content (`profile.json`): one row per benchmark and model, read from the
run folders; paired differences against the first model; the tiers per benchmark (a model ranks
above another only where their paired difference's interval excludes 0: `runtime.paired`); the papers'
figures with whether they are comparable. Never one number over the benchmarks: each keeps its
own metric and scale."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ..runtime.paired import Values, compare_values, higher, per_sample_values, tiers
from ..runtime.runlog import RunFolder, RunFolderError
from ..runtime.usage import run_usage
from .comparable import PaperSetting, benchmark_comparability, paper_settings, run_comparability
from .figures import Figure, paper_figures
from .plan import ProfilePlan
from .references import Comparability, PaperUnit, Reference, paper_unit, read_references

PROFILE_JSON = "profile.json"

State = Literal["complete", "failed samples", "unfinished", "not run", "skipped"]


class BenchmarkRow(BaseModel):
    """One benchmark's run of one model: its headline with the 95% interval and the counts behind it."""

    benchmark: str
    model: str
    state: State
    run_dir: str | None = None
    reason: str | None = None
    metric: str | None = None
    unit: str | None = Field(None, description="the headline's unit (mean and interval are in it)")
    mean: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = Field(0, description="samples whose headline scored")
    unscored: int = 0
    failed: int = Field(0, description="samples that failed (no answer to score)")
    samples: int = 0
    model_failures: dict[str, int] = Field(
        default_factory=dict, description="empty, truncated, refused answers, context overflows"
    )
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    currency: str | None = None
    seconds: float | None = Field(
        None,
        description="time spent running: the sum of the run's sessions (from each "
        "start or resume to its last recorded usage), never the time between them",
    )
    comparability: Comparability | None = Field(
        None, description="whether this run's figures can be read beside the paper's, decided from what ran"
    )


class Difference(BaseModel):
    """The paired difference `model` − `baseline` of a benchmark's headline, over the samples both scored."""

    benchmark: str
    metric: str
    baseline: str
    model: str
    paired: int
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    verdict: str = Field(
        "no difference shown",
        description="which is higher where the 95% interval excludes 0 "
        "(the model or the baseline), else no difference shown",
    )
    note: str | None = None


class Dimension(BaseModel):
    """One benchmark as a dimension of the profile: what it measures, its scale and direction."""

    benchmark: str
    dimension: str
    metric: str | None
    scale: tuple[float, float] | None
    unit: str | None = Field(None, description="the headline's unit")
    lower_is_better: bool
    roles: dict[str, str]
    ranking: list[list[str]] = Field(
        default_factory=list,
        description="models with a complete run by tier, best "
        "first; within a tier by mean (they are not shown to differ)",
    )
    tiers: dict[str, int] = Field(
        default_factory=dict,
        description="model -> tier: 1 + the ranked models whose "
        "paired difference with it has a 95% interval excluding 0 in their favour",
    )
    references: list[Reference] = Field(default_factory=list)
    paper_unit: PaperUnit | None = Field(
        None,
        description="the papers' unit the headline converts to (value × "
        "factor); None: the figures are in other units, never converted",
    )
    comparability: Comparability | None = Field(
        None, description="the benchmark's verdict over its models' runs (`comparable.benchmark_comparability`)"
    )
    figures: list[Figure] = Field(
        default_factory=list,
        description="each finished run's headline at the paper's "
        "granularity (C3EBench and LongWeave per task), in the paper's unit where it "
        "converts",
    )


class Profile(BaseModel):
    """A writing profile: one row per benchmark and model, never averaged into one number."""

    size: str
    folder: str
    models: list[str]
    dimensions: list[Dimension]
    rows: list[BenchmarkRow]
    differences: list[Difference] = Field(default_factory=list)
    skipped: dict[str, str] = Field(default_factory=dict, description="benchmark -> why it did not run")


def running_seconds(starts: list[str], ends: list[str]) -> float | None:
    """The time a run spent running: per session, from its start (the run's start, then each resume)
    to the last end recorded before the next start (a `usage.jsonl` line, the results), summed. A
    process killed and resumed later adds only the time it ran, not the time it lay dead; a session
    that recorded no end adds nothing. None when a time cannot be read."""
    try:
        opened = sorted(datetime.fromisoformat(t) for t in starts)
        closed = sorted(datetime.fromisoformat(t) for t in ends)
    except ValueError:
        return None
    total = 0.0
    for start, following in zip(opened, [*opened[1:], None]):
        within = [t for t in closed if t >= start and (following is None or t < following)]
        if within:
            total += (within[-1] - start).total_seconds()
    return total


def read_row(benchmark: str, model: str, path: Path, unit: str | None = None) -> BenchmarkRow:
    """The row of one run folder (`not run` when there is none, `unfinished` without results), its
    headline in `unit`."""
    folder = RunFolder(path)
    row = BenchmarkRow(benchmark=benchmark, model=model, state="not run", unit=unit)
    if not folder.exists():
        return row
    row.run_dir = str(path.resolve())
    try:
        header = folder.read_header()
        results = folder.read_results() if folder.has_results else None
    except RunFolderError as exc:
        row.reason = str(exc)
        return row
    if results is None or not results.complete:
        row.state = "unfinished"
        return row
    row.state = "complete" if results.final_outcome() == "complete" else "failed samples"
    summary = results.metrics.get(results.headline or "")
    row.metric = results.headline
    if summary is not None:
        row.mean, row.ci_low, row.ci_high = summary.mean, summary.ci_low, summary.ci_high
        row.n, row.unscored = summary.n_scored, summary.n_unscored
    row.failed, row.samples = results.counts.failed, results.counts.total
    row.model_failures = dict(results.counts.model_failures)
    usage = run_usage(results.roles)
    row.requests, row.prompt_tokens, row.completion_tokens = (
        usage["requests"],
        usage["prompt_tokens"],
        usage["completion_tokens"],
    )
    row.cost, row.currency = usage["cost"], usage["currency"]
    ends = [session["at"] for session in folder.read_usage() if "at" in session]
    row.seconds = running_seconds([header.started_at, *(r.at for r in header.resumes)], [*ends, results.finished_at])
    return row


def sample_values(row: BenchmarkRow) -> Values:
    """The per-sample values of a finished row's run (empty without a run folder)."""
    return per_sample_values(RunFolder(Path(row.run_dir)).unique_scored()[0])[0] if row.run_dir else {}


def ranking(
    rows: list[BenchmarkRow], values: dict[str, Values], lower_is_better: bool, *, seed: int = 0
) -> dict[str, int]:
    """The tier of each model with a complete run and a headline (a run with failed samples is not
    ranked), on the headline's per-sample values."""
    ranked = [r for r in rows if r.state == "complete" and r.mean is not None and r.metric]
    if not ranked:
        return {}
    found = tiers([values[r.model] for r in ranked], ranked[0].metric or "", lower_is_better=lower_is_better, seed=seed)
    return {r.model: tier for r, tier in zip(ranked, found)}


def places(rows: list[BenchmarkRow], tier_of: dict[str, int], lower_is_better: bool) -> list[list[str]]:
    """The ranked models grouped by tier, best first; within a tier by mean (not shown to differ)."""
    sign = 1.0 if lower_is_better else -1.0
    ordered = sorted(
        ((r, r.mean) for r in rows if r.model in tier_of and r.mean is not None),
        key=lambda pair: (tier_of[pair[0].model], sign * pair[1]),
    )
    grouped: dict[int, list[str]] = {}
    for row, _ in ordered:
        grouped.setdefault(tier_of[row.model], []).append(row.model)
    return list(grouped.values())


def units_text(dimension: Dimension) -> str:
    """How the headline's unit stands to the paper's figures' units."""
    theirs = ", ".join(dict.fromkeys(r.unit or "unit not stated" for r in dimension.references))
    ours = dimension.unit or "unit not stated"
    converted = dimension.paper_unit
    if converted is None:
        return f"the paper's figures are in {theirs}, the headline in {ours}: not converted"
    if converted.factor == 1.0:
        return f"the headline is in {ours}, as the paper's {converted.unit} figures"
    return f"the headline is in {ours}; × {converted.factor:g} gives the paper's {converted.unit}"


def ranking_text(dimension: Dimension) -> str:
    """ "tier 1: a, b; tier 3: c": models in one tier are not shown to differ."""
    return "; ".join(f"tier {dimension.tiers[place[0]]}: {', '.join(place)}" for place in dimension.ranking)


def differences(
    benchmark: str, rows: list[BenchmarkRow], values: dict[str, Values], *, seed: int = 0
) -> list[Difference]:
    """Each model against the first model with a finished run, paired on the samples both scored
    (`runtime.paired`: bootstrap interval and sign-flip p-value)."""
    finished = [r for r in rows if r.state in ("complete", "failed samples") and r.metric and r.run_dir]
    if len(finished) < 2:
        return []
    base = finished[0]
    values_a = values[base.model]
    made = []
    for other in finished[1:]:
        values_b = values[other.model]
        metric = base.metric or ""
        (d,) = compare_values(values_a, values_b, [metric], seed=seed)
        note = None
        if not d.paired and base.n and other.n:
            whole = not any(metric in v for v in (*values_a.values(), *values_b.values()))
            note = (
                "no sample has the headline on its own (it is computed over the whole run)"
                if whole
                else "no sample scored in both"
            )
        elif not d.paired:
            note = "no sample scored in both"
        side = higher(d)
        shown = "no difference shown" if side is None else f"{other.model if side == 'B' else base.model} higher"
        made.append(
            Difference(
                benchmark=benchmark,
                metric=metric,
                baseline=base.model,
                model=other.model,
                paired=d.paired,
                diff=d.diff,
                ci_low=d.ci_low,
                ci_high=d.ci_high,
                p_value=d.p_value,
                verdict=shown,
                note=note,
            )
        )
    return made


def build_profile(profile: ProfilePlan, *, seed: int = 0) -> Profile:
    """The profile of the run folders `profile` names, as they are now."""
    references = read_references()
    labels = profile.labels()
    rows: list[BenchmarkRow] = []
    dimensions: list[Dimension] = []
    diffs: list[Difference] = []
    skipped = {s.benchmark: s.reason for s in profile.skipped}
    for bench in profile.suite.benchmarks:
        own = [r for r in references if r.benchmark == bench.task]
        roles = profile.roles.get(bench.name, {})
        dimension = Dimension(
            benchmark=bench.name,
            dimension=bench.dimension,
            metric=None,
            scale=bench.scale,
            unit=bench.unit,
            lower_is_better=bench.lower_is_better,
            roles=roles,
            references=own,
            paper_unit=paper_unit(bench.unit, own),
        )
        if bench.name in skipped:
            rows += [
                BenchmarkRow(benchmark=bench.name, model=m, state="skipped", reason=skipped[bench.name]) for m in labels
            ]
        else:
            these = [read_row(bench.name, m, profile.run_path(bench.name, m), bench.unit) for m in labels]
            rows += these
            dimension.metric = next((r.metric for r in these if r.metric), None)
            values = {r.model: sample_values(r) for r in these if r.state in ("complete", "failed samples")}
            dimension.tiers = ranking(these, values, bench.lower_is_better, seed=seed)
            dimension.ranking = places(these, dimension.tiers, bench.lower_is_better)
            diffs += differences(bench.name, these, values, seed=seed)
        judging = {role: roles[role] for role in profile.judging.get(bench.name, [])}
        judged_by_paper(dimension, [r for r in rows if r.benchmark == bench.name], bench.task, judging, seed=seed)
        dimensions.append(dimension)
    return Profile(
        size=profile.size,
        folder=str(profile.folder.resolve()),
        models=labels,
        dimensions=dimensions,
        rows=rows,
        differences=diffs,
        skipped=skipped,
    )


def judged_by_paper(
    dimension: Dimension, rows: list[BenchmarkRow], task: str, judging: dict[str, str], *, seed: int = 0
) -> None:
    """Each finished run's comparability with the paper's figures and its figures at the paper's
    granularity; the benchmark's verdict over them."""
    setting = paper_settings().benchmarks.get(task, PaperSetting())
    per_model: dict[str, Comparability] = {}
    for row in rows:
        if row.run_dir is None or row.state not in ("complete", "failed samples"):
            continue
        folder = RunFolder(Path(row.run_dir))
        try:
            header, results = folder.read_header(), folder.read_results()
        except RunFolderError:
            continue
        if dimension.references:
            row.comparability = run_comparability(
                task, dimension.references, header, results, judging, dimension.paper_unit, dimension.unit
            )
            per_model[row.model] = row.comparability
            dimension.figures += paper_figures(
                row.model, Path(row.run_dir), results, setting, dimension.paper_unit, dimension.unit, seed=seed
            )
    dimension.comparability = benchmark_comparability(task, dimension.references, per_model)


def write_profile_json(report: Profile, folder: Path) -> Path:
    path = folder / PROFILE_JSON
    path.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    return path

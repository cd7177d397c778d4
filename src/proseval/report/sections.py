"""The report's tables: cells that know where their numbers come from, leaderboards, epochs, slices,
the benchmark's own tables and the paired comparisons."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..commandline.units import headed, metric_units
from ..registry import tasks
from ..runtime.outcome import reasons_text
from ..runtime.paired import MetricDiff, per_sample_values, tiers
from ..runtime.usage import COUNTS, run_usage, total_usage
from .compare import Comparison, compare_runs
from .fmt import DASH, ci_text, num
from .richtable import plain_table
from .runs import ReportRun, metric_names
from .samples import anchor

if TYPE_CHECKING:
    from .sets import SetMember


@dataclass(frozen=True)
class Cell:
    """A table cell. `src` lists the results.json paths ([run index, key, ...]) of the numbers in
    `text`, in order (a missing value is shown as a dash); a number that is a sum has the list of
    its terms' paths in its place. `href` is an anchor in the page."""

    text: str
    src: list[list[Any]] | None = None
    href: str | None = None
    kind: str = "num"


@dataclass
class HtmlTable:
    id: str
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    caption: str = ""


@dataclass
class ComparisonPart:
    a: ReportRun
    b: ReportRun
    overall: HtmlTable
    slices: list[HtmlTable]
    changed: HtmlTable | None
    warning: str


def slug(text: str) -> str:
    """An HTML id part for a name that may hold spaces or any other character."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")
    return cleaned if cleaned == text else f"{cleaned}-{hashlib.sha256(text.encode()).hexdigest()[:6]}"


def unranked_reason(run: ReportRun) -> str | None:
    """Why a run is left out of its leaderboard's ranking (it is still shown), or None."""
    results = run.results
    if not results.complete:
        return f"incomplete ({results.counts.finished} of {results.counts.total} samples)"
    failed = results.retryable_failures
    if failed:
        reasons = reasons_text(results.counts.failure_reasons)
        return f"{failed} of {results.counts.total} samples failed" + (f": {reasons}" if reasons else "")
    return None


def run_state(run: ReportRun) -> str:
    """A run's outcome for the runs table: complete, with failed samples, or stopped before its end."""
    results, counts = run.results, run.results.counts
    outcome = results.final_outcome()
    if outcome == "stopped":
        return f"stopped ({counts.finished} of {counts.total} samples)"
    if outcome == "failed_samples":
        return f"FAILED samples ({results.retryable_failures} of {counts.total})"
    return "complete"


def leaderboard_tiers(runs: Sequence[ReportRun], metric: str) -> dict[int, int]:
    """Each ranked run's tier on `metric`, higher being better (`runtime.paired`), by run index."""
    ranked = [run for run in runs if unranked_reason(run) is None]
    found = tiers([per_sample_values(run.samples)[0] for run in ranked], metric)
    return {run.index: tier for run, tier in zip(ranked, found)}


def leaderboard(task: str, runs: Sequence[ReportRun], rank_by: str | None = None) -> HtmlTable:
    """Models as rows by tier on `rank_by` (default: the runs' headline metric), higher being better,
    then by mean; a run with failed samples or missing ones is shown below the ranked ones, unranked,
    with the reason. Each metric's mean, CI and unscored count, the failed samples and the model
    failures."""
    metrics = metric_names(runs)
    rank_by = rank_by or next((run.results.headline for run in runs if run.results.headline), None)
    ranked = rank_by in metrics
    reasons = {run.index: unranked_reason(run) for run in runs}
    tier_of = leaderboard_tiers(runs, rank_by) if rank_by is not None and ranked else {}

    def rank(run: ReportRun) -> tuple[bool, int, bool, float, int]:
        summary = run.results.metrics.get(rank_by) if rank_by is not None and ranked else None
        mean = summary.mean if summary is not None else None
        return (reasons[run.index] is not None, tier_of.get(run.index, 0), mean is None, -(mean or 0.0), run.index)

    units = metric_units(task, metrics)
    columns = ["tier", "model", "run", "other roles"]
    for metric in metrics:
        columns += [headed(metric, units[metric]), "95% CI", "unscored"]
    columns += ["failed", "finished / total", "model failures"]
    rows = []
    for run in sorted(runs, key=rank):
        i, counts = run.index, run.results.counts
        place = "not ranked" if reasons[i] is not None else str(tier_of[i]) if ranked else ""
        row = [
            Cell(place, kind="label"),
            Cell(run.model, kind="label"),
            Cell(run.header.run_id, href=f"#run-{i}", kind="label"),
            Cell(run.other_roles, kind="label"),
        ]
        for metric in metrics:
            summary = run.results.metrics.get(metric)
            if summary is None:
                row += [Cell(""), Cell(""), Cell("")]
                continue
            path = [i, "metrics", metric]
            row += [
                Cell(num(summary.mean), [[*path, "mean"]]),
                Cell(ci_text(summary), [[*path, "ci_low"], [*path, "ci_high"]]),
                Cell(str(summary.n_unscored), [[*path, "n_unscored"]]),
            ]
        failures = counts.model_failures
        row += [
            Cell(str(counts.failed), [[i, "counts", "failed"]]),
            Cell(f"{counts.finished} / {counts.total}", [[i, "counts", "finished"], [i, "counts", "total"]]),
            Cell(
                ", ".join(f"{kind} {n}" for kind, n in failures.items()) or "none",
                [[i, "counts", "model_failures", kind] for kind in failures] or None,
            ),
        ]
        rows.append(row)
    caption = (
        (
            f"Tiers on {rank_by}, higher being better: a run's tier is 1 + the number of ranked runs whose "
            "paired difference with it, on the samples both scored, has a 95% bootstrap interval excluding 0 "
            "in their favour; runs in one tier are not shown to differ, whatever their means. "
            if ranked
            else "In the order given. "
        )
        + "Unscored: answers the judge or checker could not score (never counted as 0); failed: samples "
        "whose candidate call failed; model failures: empty, truncated or refused answers, scored as the "
        "benchmark defines. Runs with failed or missing samples are not ranked."
    )
    left_out = [
        f"{run.model} ({run.header.run_id}): {reasons[run.index]}"
        for run in sorted(runs, key=rank)
        if reasons[run.index]
    ]
    if left_out:
        caption += " Not ranked: " + "; ".join(left_out) + "."
    return HtmlTable(f"leaderboard-{slug(task)}", f"Leaderboard: {task}", columns, rows, caption)


def usage_table(runs: Sequence[ReportRun]) -> HtmlTable:
    """One row per run: requests, tokens in and out over its roles and, when any run recorded a
    spend (--prices), its cost; with several runs, their total."""
    usages = [run_usage(run.results.roles) for run in runs]
    total = total_usage(usages)
    priced = any(u["cost"] is not None for u in usages)
    currency = total["currency"]

    def cells(usage: dict[str, Any], parts: list[ReportRun]) -> list[Cell]:
        row = [
            Cell(str(usage[key]), [[[r.index, "roles", role, key] for r in parts for role in r.results.roles]])
            for key in COUNTS
        ]
        if priced:
            terms = [
                [r.index, "roles", role, "cost"]
                for r in parts
                for role, stats in r.results.roles.items()
                if stats.get("cost") is not None
            ]
            row.append(
                Cell(DASH)
                if usage["cost"] is None
                else Cell(num(usage["cost"], 4) + ("" if currency else f" {usage['currency']}"), [terms])
            )
        return row

    rows = [
        [
            Cell(run.header.run_id, href=f"#run-{run.index}", kind="label"),
            Cell(run.model, kind="label"),
            *cells(usage, [run]),
        ]
        for run, usage in zip(runs, usages)
    ]
    if len(runs) > 1:
        rows.append([Cell("total", kind="label"), Cell("", kind="label"), *cells(total, list(runs))])
    columns = ["run", "model", "requests", "tokens in", "tokens out"]
    if priced:
        columns.append(f"cost ({currency})" if currency else "cost")
    caption = (
        "Over every role of each run and every session that worked on it: requests (cache hits "
        "included), prompt and completion tokens"
        + ("; cost: the spend recorded with a prices file (--prices), a dash where none was given" if priced else "")
        + "."
    )
    return HtmlTable("usage", "Usage and cost", columns, rows, caption)


def _usage_cells(usage: dict[str, Any] | None, run: ReportRun | None, priced: bool, currency: str | None) -> list[Cell]:
    """A member's requests, tokens in and out and (when `priced`) spend; traced to its run's
    `results.json` when the figures are its finished run's (`runtime.usage.folder_usage`)."""
    if usage is None:
        return [Cell(DASH) for _ in range(len(COUNTS) + int(priced))]
    finished = run if run is not None and run.results.complete else None
    roles = finished.results.roles if finished is not None else {}
    cells = [
        Cell(str(usage[key]), [[[finished.index, "roles", role, key] for role in roles]] if finished else None)
        for key in COUNTS
    ]
    if priced:
        terms = [
            [finished.index, "roles", role, "cost"]
            for role, stats in roles.items()
            if finished is not None and stats.get("cost") is not None
        ]
        cells.append(
            Cell(DASH)
            if usage["cost"] is None
            else Cell(
                num(usage["cost"], 4) + ("" if currency else f" {usage['currency']}"), [terms] if finished else None
            )
        )
    return cells


def set_usage_table(members: Sequence[SetMember]) -> HtmlTable:
    """A set's usage and cost: one row per member, its run finished or not (`report.sets`), and the
    total over every member: the set's whole recorded spend."""
    usages = [m.usage for m in members if m.usage is not None]
    total = total_usage(usages)
    priced = any(u["cost"] is not None for u in usages)
    currency = total["currency"]
    rows = [
        [
            Cell(m.name, href=f"#run-{m.run.index}" if m.run is not None else None, kind="label"),
            Cell(m.model, kind="label"),  # the member's model label, as in the members table
            *_usage_cells(m.usage, m.run, priced, currency),
        ]
        for m in members
    ]
    if len(members) > 1:
        rows.append(
            [
                Cell("total", kind="label"),
                Cell("", kind="label"),
                *_usage_cells(total if usages else None, None, priced, currency),
            ]
        )
    columns = ["run", "model", "requests", "tokens in", "tokens out"]
    if priced:
        columns.append(f"cost ({currency})" if currency else "cost")
    caption = (
        "Every member of the set, its run finished or not: requests (cache hits included), prompt and "
        "completion tokens"
        + (", and the spend recorded with a prices file (--prices)" if priced else "")
        + ", over every role and every session that worked on it; a finished run's figures are its "
        "results.json's, an unfinished one's what its sessions recorded (the answers of samples left "
        "without a record, which were paid, included). The total is over every member."
    )
    return HtmlTable("usage", "Usage and cost", columns, rows, caption)


def members_table(members: Sequence[SetMember]) -> HtmlTable:
    """A set's members: each one's task, model, state, samples and the reason for its state."""
    rows = []
    for m in members:
        samples = m.samples
        text = (
            ""
            if samples is None
            else f"{samples['finished']}/{samples['total']}"
            + (f", {samples['failed']} failed" if samples.get("failed") else "")
        )
        rows.append(
            [
                Cell(m.name, href=f"#run-{m.run.index}" if m.run is not None else None, kind="label"),
                Cell(m.task, kind="label"),
                Cell(m.model, kind="label"),
                Cell(m.state, kind="label"),
                Cell(text, kind="label"),
                Cell(m.reason or "", kind="label"),
            ]
        )
    caption = (
        "Every member of the set and its state: done (finished now), skipped (finished before), resumed, "
        "partial (finished with failed samples: not ranked), failed (no run: the reason says why), "
        "stopped (at the set's cost limit; running the set again with a higher limit continues it). A "
        "member with a run folder holding results has its run below, unfinished ones not ranked."
    )
    return HtmlTable("members", "Members", ["member", "task", "model", "state", "samples", "reason"], rows, caption)


def epochs_table(task: str, runs: Sequence[ReportRun]) -> HtmlTable | None:
    with_epochs = [run for run in runs if run.results.epochs]
    if not with_epochs:
        return None
    metrics = metric_names(with_epochs)
    rows = []
    for run in with_epochs:
        for number, summaries in enumerate(run.results.epochs):
            row = [Cell(run.header.run_id, href=f"#run-{run.index}", kind="label"), Cell(str(number), kind="label")]
            for metric in metrics:
                summary = summaries.get(metric)
                path = [run.index, "epochs", number, metric]
                row += (
                    [
                        Cell(num(summary.mean), [[*path, "mean"]]),
                        Cell(ci_text(summary), [[*path, "ci_low"], [*path, "ci_high"]]),
                    ]
                    if summary is not None
                    else [Cell(""), Cell("")]
                )
            rows.append(row)
    columns = ["run", "epoch", *(c for m in metrics for c in (m, "95% CI"))]
    return HtmlTable(
        f"epochs-{slug(task)}",
        "Each epoch",
        columns,
        rows,
        "The leaderboard is over each sample's mean across its epochs.",
    )


def slice_tables(task: str, runs: Sequence[ReportRun]) -> list[HtmlTable]:
    """Slice labels as rows, mean [CI] and n / unscored per column: one table per slice key and metric
    with a column per run, or for a single run one table per slice key with a column per metric."""
    tables = []
    for key in dict.fromkeys(k for run in runs for k in run.results.slices):
        labels = list(dict.fromkeys(label for run in runs for label in run.results.slices.get(key, {})))
        present = [
            m
            for m in metric_names(runs)
            if any(m in g for run in runs for g in run.results.slices.get(key, {}).values())
        ]
        units = metric_units(task, present)
        if len(runs) == 1:
            tables.append(
                _slice_table(
                    f"slice-{slug(task)}-{slug(key)}",
                    f"By {key}",
                    key,
                    labels,
                    [(runs[0], metric, headed(metric, units[metric])) for metric in present],
                )
            )
            continue
        for metric in present:
            tables.append(
                _slice_table(
                    f"slice-{slug(task)}-{slug(key)}-{slug(metric)}",
                    f"By {key}: {headed(metric, units[metric])}",
                    key,
                    labels,
                    [(run, metric, f"{run.model} ({run.header.run_id})") for run in runs],
                )
            )
    return tables


def _slice_table(
    table_id: str, title: str, key: str, labels: list[str], columns: list[tuple[ReportRun, str, str]]
) -> HtmlTable:
    rows = []
    for label in labels:
        row = [Cell(label, kind="label")]
        for run, metric, _ in columns:
            group = run.results.slices.get(key, {}).get(label)
            summary = group.get(metric) if group is not None else None
            if summary is None:  # a dash: the run has the slice but nothing scored in it (all failed)
                row += [Cell(DASH if group is not None else ""), Cell("")]
                continue
            path = [run.index, "slices", key, label, metric]
            row += [
                Cell(
                    f"{num(summary.mean)} {ci_text(summary)}" if summary.mean is not None else DASH,
                    [[*path, "mean"], [*path, "ci_low"], [*path, "ci_high"]],
                ),
                Cell(f"{summary.n_scored} / {summary.n_unscored}", [[*path, "n_scored"], [*path, "n_unscored"]]),
            ]
        rows.append(row)
    header = [key, *(name for _, _, heading in columns for name in (heading, "n / unscored"))]
    return HtmlTable(table_id, title, header, rows, "mean [95% CI]; n = scored samples")


def benchmark_tables(run: ReportRun) -> tuple[list[HtmlTable], list[str]]:
    entry = tasks().get(run.header.task)
    if entry is None or entry.render is None:
        return [], []
    try:
        rendered = entry.render(run.results)
    except Exception as exc:  # a benchmark's table hook must not cost the user the whole report
        return [], [f"the benchmark's own tables could not be built ({type(exc).__name__}: {exc})"]
    tables = []
    for number, table in enumerate(rendered):
        flat = plain_table(table)
        rows = [[Cell(text, kind="bench") for text in row] for row in flat.rows]
        tables.append(
            HtmlTable(
                f"bench-{run.index}-{number}", flat.title or f"Table {number + 1}", flat.columns, rows, flat.caption
            )
        )
    return tables, []


DIFF_COLUMNS = ["metric", "paired", "A", "B", "B − A", "95% CI", "p", "only A", "only B"]


def diff_row(d: MetricDiff) -> list[Cell]:
    ci = DASH if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
    return [
        Cell(d.metric, kind="label"),
        Cell(str(d.paired), kind="cmp"),
        Cell(num(d.mean_a), kind="cmp"),
        Cell(num(d.mean_b), kind="cmp"),
        Cell(DASH if d.diff is None else f"{d.diff:+.3f}", kind="cmp"),
        Cell(ci, kind="cmp"),
        Cell(num(d.p_value, 4), kind="cmp"),
        Cell(str(d.only_a), kind="cmp"),
        Cell(str(d.only_b), kind="cmp"),
    ]


def comparison_part(
    a: ReportRun, b: ReportRun, top: int, metric: str | None = None
) -> tuple[ComparisonPart, Comparison]:
    """B against A; the samples that changed most are ranked by `metric` when both runs have it."""
    known = set(a.results.metrics) & set(b.results.metrics)
    result = compare_runs(
        a.samples,
        b.samples,
        slice_keys=sorted(a.results.slices),
        top=top,
        seed=a.header.seed or 0,
        metric=metric if metric in known else None,
    )
    base = f"cmp-{a.index}-{b.index}"
    overall = HtmlTable(
        base,
        f"B − A on the samples both scored (A = {a.header.run_id}, B = {b.header.run_id})",
        DIFF_COLUMNS,
        [diff_row(d) for d in result.metrics],
        "Paired bootstrap 95% CI of the mean difference and a sign-flip permutation p-value; "
        "samples scored in one run only are counted (only A, only B), never paired.",
    )
    slices = [
        HtmlTable(
            f"{base}-{slug(key)}",
            f"By {key}",
            [key, *DIFF_COLUMNS],
            [[Cell(label, kind="label"), *diff_row(d)] for label, diffs in groups.items() for d in diffs],
        )
        for key, groups in result.slices.items()
    ]
    changed = None
    if result.changed:
        changed = HtmlTable(
            f"{base}-changed",
            f"Samples that changed most ({result.metric})",
            ["sample", "A", "B", "B − A"],
            [
                [
                    Cell(s.id, kind="label"),
                    Cell(num(s.a), href=f"#{anchor(a, s.id)}", kind="cmp"),
                    Cell(num(s.b), href=f"#{anchor(b, s.id)}", kind="cmp"),
                    Cell(f"{s.change:+.3f}", kind="cmp"),
                ]
                for s in result.changed
            ],
        )
    warning = ""
    if a.header.task_version != b.header.task_version:
        warning = (
            f"task versions differ ({a.header.task_version} vs {b.header.task_version}): scores may not mean the same"
        )
    return ComparisonPart(a, b, overall, slices, changed, warning), result

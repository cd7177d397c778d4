"""`proseval report`: one self-contained HTML file over one or more run folders.

Everything shown comes from the run folders: the leaderboard and slice tables from each
`results.json`, the benchmark's own tables from its `render` hook, its charts from the PNG files
it wrote beside the results (redrawn with its `artifacts` hook when they are missing), the
paired comparison from `report.compare`, and the samples from `samples.jsonl`. The page is
rendered by Jinja2 with autoescaping (every model and dataset text is untrusted) and refers to
nothing outside itself: styles inline, charts as PNG data URIs, no script, and a content
security policy that forbids loading anything.
"""

from __future__ import annotations

import base64
import hashlib
import re
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from .. import __version__
from ..registry import get_task, tasks
from ..runtime.aggregate import flatten_scores
from ..runtime.records import MetricSummary, SampleRecord
from .compare import Comparison, MetricDiff, compare_runs
from .plots import chart, ci_errors
from .richtable import plain_table
from .runs import ReportRun

DASH = "—"


@dataclass(frozen=True)
class Cell:
    """A table cell. `src` lists the results.json paths ([run index, key, ...]) of the numbers in
    `text`, in order (a missing value is shown as a dash); `href` is an anchor in the page."""

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


@dataclass(frozen=True)
class Figure:
    title: str
    uri: str


@dataclass
class SampleRow:
    anchor: str
    id: str
    epoch: int
    status: str
    slices: list[str]
    scores: list[tuple[str, str, float | None]]  # metric, text shown, value
    input: str = ""
    output: str = ""
    error: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class RunPart:
    run: ReportRun
    benchmark_tables: list[HtmlTable]
    figures: list[Figure]
    notes: list[str]
    slice_keys: list[str]
    metrics: list[str]
    samples: list[SampleRow]
    sample_note: str


@dataclass
class ComparisonPart:
    a: ReportRun
    b: ReportRun
    overall: HtmlTable
    slices: list[HtmlTable]
    changed: HtmlTable | None
    warning: str


@dataclass
class TaskPart:
    task: str
    runs: list[ReportRun]
    leaderboard: HtmlTable
    epochs: HtmlTable | None
    slice_tables: list[HtmlTable]
    figures: list[Figure]
    comparisons: list[ComparisonPart]
    parts: list[RunPart]


def num(value: float | None, digits: int = 3) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def ci_text(summary: MetricSummary) -> str:
    if summary.ci_low is None or summary.ci_high is None:
        return DASH
    return f"[{summary.ci_low:.3f}, {summary.ci_high:.3f}]"


def slug(text: str) -> str:
    """An HTML id part for a name that may hold spaces or any other character."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")
    return cleaned if cleaned == text else f"{cleaned}-{hashlib.sha256(text.encode()).hexdigest()[:6]}"


def anchor(run: ReportRun, sample_id: str, epoch: int = 0) -> str:
    digest = hashlib.sha256(f"{sample_id}\0{epoch}".encode()).hexdigest()[:16]
    return f"r{run.index}-{digest}"


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def clip(text: str, limit: int) -> str:
    if limit <= 0 or len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters; see samples.jsonl)"


# leaderboard, epochs and slices -------------------------------------------------------------
def metric_names(runs: Sequence[ReportRun]) -> list[str]:
    names: list[str] = []
    for run in runs:
        names += [m for m in run.results.metrics if m not in names]
    return names


def leaderboard(task: str, runs: Sequence[ReportRun], rank_by: str | None = None) -> HtmlTable:
    """Models as rows (ranked by `rank_by`, highest first, when the task has it; else as given), each
    metric's mean, CI and unscored count, and the failed samples."""
    metrics = metric_names(runs)
    ranked = rank_by in metrics

    def rank(run: ReportRun) -> tuple[int, float, int]:
        summary = run.results.metrics.get(rank_by) if ranked else None
        mean = summary.mean if summary is not None else None
        return (mean is None, -(mean or 0.0), run.index)

    columns = ["model", "run", "other roles"]
    for metric in metrics:
        columns += [metric, "95% CI", "unscored"]
    columns += ["failed", "finished / total", "model failures"]
    rows = []
    for run in sorted(runs, key=rank):
        i, counts = run.index, run.results.counts
        row = [Cell(run.model, kind="label"), Cell(run.header.run_id, href=f"#run-{i}", kind="label"),
               Cell(run.other_roles, kind="label")]
        for metric in metrics:
            summary = run.results.metrics.get(metric)
            if summary is None:
                row += [Cell(""), Cell(""), Cell("")]
                continue
            path = [i, "metrics", metric]
            row += [Cell(num(summary.mean), [[*path, "mean"]]),
                    Cell(ci_text(summary), [[*path, "ci_low"], [*path, "ci_high"]]),
                    Cell(str(summary.n_unscored), [[*path, "n_unscored"]])]
        failures = counts.model_failures
        row += [Cell(str(counts.failed), [[i, "counts", "failed"]]),
                Cell(f"{counts.finished} / {counts.total}", [[i, "counts", "finished"], [i, "counts", "total"]]),
                Cell(", ".join(f"{kind} {n}" for kind, n in failures.items()) or "none",
                     [[i, "counts", "model_failures", kind] for kind in failures] or None)]
        rows.append(row)
    caption = ((f"Ranked by {rank_by}. " if ranked else "In the order given. ") +
               "Unscored: answers the judge or checker could not score (never counted as 0); failed: samples "
               "whose candidate call failed; model failures: empty, truncated or refused answers, scored as the "
               "benchmark defines.")
    return HtmlTable(f"leaderboard-{slug(task)}", f"Leaderboard: {task}", columns, rows, caption)


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
                row += ([Cell(num(summary.mean), [[*path, "mean"]]),
                         Cell(ci_text(summary), [[*path, "ci_low"], [*path, "ci_high"]])]
                        if summary is not None else [Cell(""), Cell("")])
            rows.append(row)
    columns = ["run", "epoch", *(c for m in metrics for c in (m, "95% CI"))]
    return HtmlTable(f"epochs-{slug(task)}", "Each epoch", columns, rows,
                     "The leaderboard is over each sample's mean across its epochs.")


def slice_tables(task: str, runs: Sequence[ReportRun]) -> list[HtmlTable]:
    """Slice labels as rows, mean [CI] and n / unscored per column: one table per slice key and metric
    with a column per run, or for a single run one table per slice key with a column per metric."""
    tables = []
    for key in dict.fromkeys(k for run in runs for k in run.results.slices):
        labels = list(dict.fromkeys(label for run in runs for label in run.results.slices.get(key, {})))
        present = [m for m in metric_names(runs)
                   if any(m in g for run in runs for g in run.results.slices.get(key, {}).values())]
        if len(runs) == 1:
            tables.append(_slice_table(f"slice-{slug(task)}-{slug(key)}", f"By {key}", key, labels,
                                       [(runs[0], metric, metric) for metric in present]))
            continue
        for metric in present:
            tables.append(_slice_table(f"slice-{slug(task)}-{slug(key)}-{slug(metric)}", f"By {key}: {metric}",
                                       key, labels,
                                       [(run, metric, f"{run.model} ({run.header.run_id})") for run in runs]))
    return tables


def _slice_table(table_id: str, title: str, key: str, labels: list[str],
                 columns: list[tuple[ReportRun, str, str]]) -> HtmlTable:
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
            row += [Cell(f"{num(summary.mean)} {ci_text(summary)}",
                         [[*path, "mean"], [*path, "ci_low"], [*path, "ci_high"]]),
                    Cell(f"{summary.n_scored} / {summary.n_unscored}", [[*path, "n_scored"], [*path, "n_unscored"]])]
        rows.append(row)
    header = [key, *(name for _, _, heading in columns for name in (heading, "n / unscored"))]
    return HtmlTable(table_id, title, header, rows, "mean [95% CI]; n = scored samples")


# charts ----------------------------------------------------------------------------------
Point = tuple[float | None, float | None, float | None]  # mean, CI low, CI high


def slice_figures(runs: Sequence[ReportRun]) -> list[Figure]:
    """A grouped bar chart per slice key and metric (one bar per run, 95% CI whiskers)."""
    figures = []
    for key in dict.fromkeys(k for run in runs for k in run.results.slices):
        labels = list(dict.fromkeys(label for run in runs for label in run.results.slices.get(key, {})))
        for metric in metric_names(runs):
            series: list[tuple[str, list[Point]]] = []
            for run in runs:
                groups = run.results.slices.get(key, {})
                summaries = [groups.get(label, {}).get(metric) for label in labels]
                series.append((f"{run.model} ({run.header.run_id})",
                               [(s.mean, s.ci_low, s.ci_high) if s is not None else (None, None, None)
                                for s in summaries]))
            if all(mean is None for _, points in series for mean, _, _ in points):
                continue
            with warnings.catch_warnings():  # a label in a script the default font lacks is drawn as boxes
                warnings.filterwarnings("ignore", message="Glyph .* missing from font")
                width = min(12.0, max(5.0, 0.5 * len(labels) * len(runs) + 2))
                png = chart(_bars(labels, series, metric), size=(width, 3.6))
            if png is not None:
                figures.append(Figure(f"{metric} by {key}", data_uri(png)))
    return figures


def _bars(labels: list[str], series: list[tuple[str, list[Point]]], metric: str) -> Any:
    width = 0.8 / max(1, len(series))
    tilt = len(labels) > 4

    def draw(axes: Any) -> None:
        for position, (name, points) in enumerate(series):
            shown = [(m, lo, hi) if m is not None else (0.0, None, None) for m, lo, hi in points]
            xs = [i + (position - (len(series) - 1) / 2) * width for i in range(len(labels))]
            axes.bar(xs, [m for m, _, _ in shown], width, yerr=ci_errors(shown), capsize=2, label=name)
        axes.set_xticks(range(len(labels)))
        axes.set_xticklabels(labels, rotation=30 if tilt else 0, ha="right" if tilt else "center", fontsize="small")
        axes.set_ylabel(metric)
        axes.grid(axis="y", alpha=0.3)

    return draw


def benchmark_figures(run: ReportRun) -> tuple[list[Figure], list[str]]:
    """The charts the benchmark drew for this run: its PNG files, or drawn again by its `artifacts` hook."""
    files = sorted(run.path.glob("*.png"))
    if files:
        return [Figure(f.stem.replace("_", " "), data_uri(f.read_bytes())) for f in files], []
    if run.header.task not in tasks():  # a task built in Python, not registered: nothing to redraw with
        return [], []
    try:
        made = get_task(run.header.task, run.header.task_params)
        produced = made.artifacts(run.results) if made.artifacts is not None else {}
    except Exception as exc:  # the task's data may be missing here: the report goes on without its charts
        return [], [f"the benchmark's charts could not be drawn again ({type(exc).__name__}: {exc})"]
    return [Figure(Path(name).stem.replace("_", " "), data_uri(content))
            for name, content in sorted(produced.items()) if name.endswith(".png") and isinstance(content, bytes)], []


# benchmark tables -------------------------------------------------------------------------
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
        tables.append(HtmlTable(f"bench-{run.index}-{number}", flat.title or f"Table {number + 1}", flat.columns,
                                rows, flat.caption))
    return tables, []


# comparison ---------------------------------------------------------------------------------
DIFF_COLUMNS = ["metric", "paired", "A", "B", "B − A", "95% CI", "p", "only A", "only B"]


def diff_row(d: MetricDiff) -> list[Cell]:
    ci = DASH if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
    return [Cell(d.metric, kind="label"), Cell(str(d.paired), kind="cmp"), Cell(num(d.mean_a), kind="cmp"),
            Cell(num(d.mean_b), kind="cmp"), Cell(DASH if d.diff is None else f"{d.diff:+.3f}", kind="cmp"),
            Cell(ci, kind="cmp"), Cell(num(d.p_value, 4), kind="cmp"), Cell(str(d.only_a), kind="cmp"),
            Cell(str(d.only_b), kind="cmp")]


def comparison_part(a: ReportRun, b: ReportRun, top: int) -> tuple[ComparisonPart, Comparison]:
    result = compare_runs(a.samples, b.samples, slice_keys=sorted(a.results.slices), top=top,
                          seed=a.header.seed or 0)
    base = f"cmp-{a.index}-{b.index}"
    overall = HtmlTable(base, f"B − A on the samples both scored (A = {a.header.run_id}, B = {b.header.run_id})",
                        DIFF_COLUMNS, [diff_row(d) for d in result.metrics],
                        "Paired bootstrap 95% CI of the mean difference and a sign-flip permutation p-value; "
                        "samples scored in one run only are counted (only A, only B), never paired.")
    slices = [HtmlTable(f"{base}-{slug(key)}", f"By {key}", [key, *DIFF_COLUMNS],
                        [[Cell(label, kind="label"), *diff_row(d)] for label, diffs in groups.items() for d in diffs])
              for key, groups in result.slices.items()]
    changed = None
    if result.changed:
        changed = HtmlTable(f"{base}-changed", f"Samples that changed most ({result.metric})",
                            ["sample", "A", "B", "B − A"],
                            [[Cell(s.id, kind="label"), Cell(num(s.a), href=f"#{anchor(a, s.id)}", kind="cmp"),
                              Cell(num(s.b), href=f"#{anchor(b, s.id)}", kind="cmp"),
                              Cell(f"{s.change:+.3f}", kind="cmp")] for s in result.changed])
    warning = ""
    if a.header.task_version != b.header.task_version:
        warning = (f"task versions differ ({a.header.task_version} vs {b.header.task_version}): "
                   "scores may not mean the same")
    return ComparisonPart(a, b, overall, slices, changed, warning), result


# samples -------------------------------------------------------------------------------------
def sample_rows(run: ReportRun, metrics: list[str], slice_keys: list[str], *, limit: int | None,
                forced: set[str], text_chars: int) -> tuple[list[SampleRow], str]:
    """The run's samples, failed and unscored ones first; `limit` per run (None: all), plus `forced` ids."""
    def trouble(sample: Any) -> int:
        if sample.status != "ok":
            return 0
        return 1 if any(v is None for v in flatten_scores(sample).values()) else 2

    ordered = sorted(run.samples, key=trouble)  # stable: record order within each group
    kept = ordered if limit is None else ordered[:limit]
    kept += [s for s in ordered[len(kept):] if s.id in forced]
    keys = {(s.id, s.epoch) for s in kept}
    records = {(r.id, r.epoch): r for r in run.records(keys)}
    rows = [_sample_row(run, records[(s.id, s.epoch)], metrics, slice_keys, text_chars)
            for s in kept if (s.id, s.epoch) in records]
    note = ""
    if len(rows) < len(run.samples):
        note = (f"Showing {len(rows):,} of {len(run.samples):,} samples (failed and unscored ones first, then in "
                f"record order); every sample is in {run.path / 'samples.jsonl'}, and "
                "`proseval report --all-samples` includes them all.")
    return rows, note


def _sample_row(run: ReportRun, record: SampleRecord, metrics: list[str], slice_keys: list[str],
                text_chars: int) -> SampleRow:
    flat: dict[str, float | None] = {}
    statuses: dict[str, tuple[str, str]] = {}
    for name, score in record.scores.items():
        subs = score.value.items() if isinstance(score.value, dict) else [(None, score.value)]
        for sub, value in subs:
            metric = name if sub is None else f"{name}.{sub}"
            flat[metric] = value
            statuses[metric] = (score.parse_status, score.explanation)
    scores = []
    notes = []
    for metric in metrics:
        if metric not in flat:
            scores.append((metric, "", None))
        elif flat[metric] is None:
            status, why = statuses[metric]
            scores.append((metric, f"unscored ({status})", None))
            notes.append(f"{metric} unscored ({status}): {why}")
        else:
            scores.append((metric, num(flat[metric]), flat[metric]))
    if record.status != "ok":
        status = "failed" + (f" ({record.model_failure})" if record.model_failure else "")
    else:
        status = "ok" + (f", model failure: {record.model_failure}" if record.model_failure else "")
    prompt = record.input if isinstance(record.input, str) else "\n\n".join(
        f"[{m.get('role', '?')}] {m.get('content', '')}" for m in record.input or [] if isinstance(m, dict))
    return SampleRow(anchor(run, record.id, record.epoch), record.id, record.epoch, status,
                     [str(record.metadata.get(key, "")) for key in slice_keys], scores,
                     clip(str(prompt or ""), text_chars), clip(record.state.output if record.state else "", text_chars),
                     record.error or "", notes)


# the page ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportOptions:
    baseline: Path | None = None
    max_samples: int | None = 200
    text_chars: int = 2000
    top: int = 10
    title: str = "proseval report"
    rank_by: str | None = None


def build(runs: Sequence[ReportRun], options: ReportOptions = ReportOptions()) -> str:
    """The report as one HTML string."""
    by_task: dict[str, list[ReportRun]] = defaultdict(list)
    for run in runs:
        by_task[run.header.task].append(run)
    baseline = next((r for r in runs if options.baseline is not None
                     and r.path.resolve() == Path(options.baseline).resolve()), None)
    sections = [_task_part(task, members, baseline, options) for task, members in by_task.items()]
    env = Environment(loader=PackageLoader("proseval.report", "templates"), autoescape=select_autoescape(default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return env.get_template("report.html.j2").render(
        title=options.title, runs=runs, sections=sections, generated=generated, version=__version__,
        demo=any(r.header.demo_models for r in runs))


def _task_part(task: str, runs: list[ReportRun], baseline: ReportRun | None, options: ReportOptions) -> TaskPart:
    comparisons: list[ComparisonPart] = []
    forced: dict[int, set[str]] = defaultdict(set)
    if len(runs) > 1:
        a = baseline if baseline in runs else runs[0]
        for b in runs:
            if b is a:
                continue
            part, result = comparison_part(a, b, options.top)
            comparisons.append(part)
            for changed in result.changed:
                forced[a.index].add(changed.id)
                forced[b.index].add(changed.id)
    metrics = metric_names(runs)
    parts = []
    own_charts = False
    for run in runs:
        tables, table_notes = benchmark_tables(run)
        figures, figure_notes = benchmark_figures(run)
        own_charts = own_charts or bool(figures)
        keys = list(run.results.slices)
        rows, note = sample_rows(run, metrics, keys, limit=options.max_samples, forced=forced[run.index],
                                 text_chars=options.text_chars)
        parts.append(RunPart(run, tables, figures, table_notes + figure_notes, keys, metrics, rows, note))
    return TaskPart(task, runs, leaderboard(task, runs, options.rank_by), epochs_table(task, runs),
                    slice_tables(task, runs), [] if own_charts and len(runs) == 1 else slice_figures(runs),
                    comparisons, parts)


def write_report(runs: Sequence[ReportRun], output: Path, options: ReportOptions = ReportOptions()) -> int:
    """Write the report to `output`; returns its size in bytes."""
    text = build(runs, options)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))

"""`proseval report`: one self-contained HTML file over one or more run folders.

Everything shown comes from the run folders: the usage, leaderboard and slice tables from each
`results.json`, the benchmark's own tables from its `render` hook, its charts from the PNG files
it wrote beside the results (redrawn with its `artifacts` hook when they are missing), the
paired comparison from `report.compare`, and the samples from `samples.jsonl`. The page is
rendered by Jinja2 with autoescaping (every model and dataset text is untrusted) and refers to
nothing outside itself: styles inline, charts as PNG data URIs, no script, and a content
security policy that forbids loading anything.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from .. import __version__
from ..core.prices import read_prices
from ..reliability.analysis import analyse
from ..reliability.labels import read_labels
from .figures import Figure, benchmark_figures, slice_figures
from .judges import JudgesPart, judges_part
from .runs import ReportRun, metric_names
from .samples import SampleRow, sample_rows
from .sections import (
    ComparisonPart,
    HtmlTable,
    benchmark_tables,
    comparison_part,
    epochs_table,
    leaderboard,
    members_table,
    run_state,
    set_usage_table,
    slice_tables,
    usage_table,
)
from .sets import SetMember


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
class TaskPart:
    task: str
    runs: list[ReportRun]
    leaderboard: HtmlTable
    epochs: HtmlTable | None
    slice_tables: list[HtmlTable]
    figures: list[Figure]
    comparisons: list[ComparisonPart]
    parts: list[RunPart]


@dataclass(frozen=True)
class ReportOptions:
    baseline: Path | None = None
    max_samples: int | None = 200
    text_chars: int = 2000
    top: int = 10
    title: str = "proseval report"
    rank_by: str | None = None
    labels: Path | None = None  # human labels for the judges' section
    prices: Path | None = None  # prices file for the judges' cost per 1,000 ratings


def build(
    runs: Sequence[ReportRun], options: ReportOptions = ReportOptions(), members: Sequence[SetMember] | None = None
) -> str:
    """The report as one HTML string; with `members`, an evaluation set's (`report.sets`): every member
    with its state, and the usage and cost of every member."""
    by_task: dict[str, list[ReportRun]] = defaultdict(list)
    for run in runs:
        by_task[run.header.task].append(run)
    baseline = next(
        (r for r in runs if options.baseline is not None and r.path.resolve() == Path(options.baseline).resolve()), None
    )
    sections = [_task_part(task, members, baseline, options) for task, members in by_task.items()]
    env = Environment(
        loader=PackageLoader("proseval.report", "templates"),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return env.get_template("report.html.j2").render(
        title=options.title,
        runs=runs,
        usage=usage_table(runs) if members is None else set_usage_table(members),
        members=None if members is None else members_table(members),
        states={r.index: run_state(r) for r in runs},
        sections=sections,
        generated=generated,
        version=__version__,
        demo=any(r.header.demo_models for r in runs),
        judges=_judges(runs, options),
    )


def judged_twice(runs: Sequence[ReportRun]) -> bool:
    """Whether some answers were judged by more than one run (other judges, or repeats)."""
    sources = [Path(r.header.rescored_from).name if r.header.rescored_from else r.header.run_id for r in runs]
    return len(set(sources)) < len(sources)


def _judges(runs: Sequence[ReportRun], options: ReportOptions) -> JudgesPart | None:
    """The judges' section: when some answers were judged more than once, or labels were given."""
    if not (judged_twice(runs) or options.labels is not None):
        return None
    labels = read_labels(options.labels) if options.labels is not None else None
    prices = read_prices(options.prices) if options.prices is not None else None
    analysis = analyse([r.path for r in runs], labels=labels, prices=prices)
    return judges_part(analysis) if analysis.cards else None


def _task_part(task: str, runs: list[ReportRun], baseline: ReportRun | None, options: ReportOptions) -> TaskPart:
    comparisons: list[ComparisonPart] = []
    forced: dict[int, set[str]] = defaultdict(set)
    if len(runs) > 1:
        a = baseline if baseline in runs else runs[0]
        for b in runs:
            if b is a:
                continue
            part, result = comparison_part(a, b, options.top, options.rank_by)
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
        rows, note = sample_rows(
            run, metrics, keys, limit=options.max_samples, forced=forced[run.index], text_chars=options.text_chars
        )
        parts.append(RunPart(run, tables, figures, table_notes + figure_notes, keys, metrics, rows, note))
    return TaskPart(
        task,
        runs,
        leaderboard(task, runs, options.rank_by),
        epochs_table(task, runs),
        slice_tables(task, runs),
        [] if own_charts and len(runs) == 1 else slice_figures(runs),
        comparisons,
        parts,
    )


def write_report(
    runs: Sequence[ReportRun],
    output: Path,
    options: ReportOptions = ReportOptions(),
    members: Sequence[SetMember] | None = None,
) -> int:
    """Write the report to `output` (with `members`: an evaluation set's); returns its size in bytes."""
    text = build(runs, options, members)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))

"""Results as rich tables, for `proseval show`, the end of a run and a benchmark's own commands."""

from __future__ import annotations

import shlex
from pathlib import Path

from rich.console import Console, Group
from rich.markup import escape
from rich.table import Table

from ..runtime.cost import money
from ..runtime.outcome import reasons_text
from ..runtime.records import MetricSummary, Results, RunHeader


def _fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _ci(summary: MetricSummary) -> str:
    if summary.ci_low is None or summary.ci_high is None:
        return "—"
    return f"[{summary.ci_low:.3f}, {summary.ci_high:.3f}]"


def metrics_table(results: Results, title: str = "Results") -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("metric", "mean", "95% CI", "scored", "unscored", "failed"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for name, summary in results.metrics.items():
        table.add_row(
            name,
            _fmt(summary.mean),
            _ci(summary),
            str(summary.n_scored),
            str(summary.n_unscored),
            str(summary.n_failed),
        )
    return table


def slice_tables(results: Results) -> list[Table]:
    tables = []
    for key, groups in results.slices.items():
        metrics = sorted({name for group in groups.values() for name in group})
        table = Table(title=f"By {key}", title_justify="left")
        table.add_column(key)
        for name in metrics:
            table.add_column(name, justify="right")
        table.add_column("n", justify="right")
        for label, group in groups.items():
            n = max((s.n_scored + s.n_unscored for s in group.values()), default=0)
            cells = []
            for name in metrics:
                summary = group.get(name)
                cell = _fmt(summary.mean) if summary else "—"
                if summary and summary.n_unscored:
                    cell += f" ({summary.n_unscored} unscored)"
                cells.append(cell)
            table.add_row(label, *cells, str(n))
        tables.append(table)
    return tables


def header_table(header: RunHeader) -> Table:
    table = Table(show_header=False, box=None, title=f"Run {header.run_id}", title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    table.add_row("task", f"{header.task} (version {header.task_version})")
    if header.task_params:
        table.add_row("parameters", ", ".join(f"{k}={v}" for k, v in header.task_params.items()))
    for role, binding in header.roles.items():
        urls = f" @ {', '.join(binding.base_urls)}" if binding.base_urls else ""
        table.add_row(role, binding.spec + urls)
    if header.rescored_from:
        table.add_row("re-scored from", header.rescored_from)
    table.add_row("started", header.started_at)
    return table


OUTCOME_WORDS = {
    "complete": "complete",
    "failed_samples": "complete with FAILED samples",
    "stopped": "INCOMPLETE (resume to finish)",
}


def counts_line(results: Results) -> str:
    c = results.counts
    line = (
        f"samples: {c.finished}/{c.total} finished ({OUTCOME_WORDS[results.final_outcome()]}); ok {c.ok}, "
        f"failed {c.failed}, with unscored scores {c.unscored}"
    )
    if c.model_failures:
        line += "; model failures: " + ", ".join(f"{kind} {n}" for kind, n in c.model_failures.items())
    if c.duplicates:
        line += f"; duplicate records set aside {c.duplicates}"
    return line


def usage_table(results: Results) -> Table:
    table = Table(title="Model usage", title_justify="left")
    priced = any(stats.get("cost") is not None for stats in results.roles.values())  # recorded with --prices
    currency = next((stats.get("currency") for stats in results.roles.values() if stats.get("currency")), None)
    # the counts of roles in batch mode (`runtime.batch.BATCH_COUNTS`): columns only when a role was
    batch_columns = {
        "batch_lines": "batch lines",
        "batch_failed": "batch failed",
        "batch_expired": "batch expired",
        "rebatched": "rebatched",
        "realtime_fallbacks": "real-time fallbacks",
    }
    batched = any("batch_lines" in stats for stats in results.roles.values())
    columns = ["role", "calls", "cached", "retries", "errors", "tok in", "tok out", "latency s"]
    keys = ["requests", "cache_hits", "retries", "errors", "prompt_tokens", "completion_tokens", "mean_latency_s"]
    # parts of the token counts, shown when some role has them: input read from the provider's prompt
    # cache (after "tok in"; "cached" counts the response cache's hits) and output spent on reasoning
    for part_of, key, column in (
        ("prompt_tokens", "cached_tokens", "tok cached"),
        ("completion_tokens", "reasoning_tokens", "tok reasoning"),
    ):
        if any(stats.get(key) for stats in results.roles.values()):
            at = keys.index(part_of) + 1
            keys.insert(at, key)
            columns.insert(at + 1, column)  # after "role"
    if batched:
        columns += batch_columns.values()
        keys += batch_columns
    if priced:
        columns.append(f"cost ({currency})" if currency else "cost")
    for column in columns:
        table.add_column(column, justify="left" if column == "role" else "right")
    for role, stats in results.roles.items():
        cells = ["—" if stats.get(k) is None else str(stats[k]) for k in keys]
        if priced:
            cells.append("—" if stats.get("cost") is None else money(float(stats["cost"])))
        table.add_row(role, *cells)
    return table


def failures_line(results: Results, folder: Path | None = None) -> str | None:
    """What failed and how to run it again, when samples failed (markup)."""
    failed = results.retryable_failures
    if not failed:
        return None
    reasons = reasons_text(results.counts.failure_reasons)
    line = (
        f"[bold red]failed:[/] {failed} of {results.counts.total} samples — "
        f"{escape(reasons) if reasons else 'see samples.jsonl'}"
    )
    if folder is not None:
        line += f"; run them again with: proseval resume {escape(shlex.quote(str(folder)))} --retry-failed"
    return line


def print_results(
    console: Console, header: RunHeader, results: Results, extra: list | None = None, folder: Path | None = None
) -> None:
    parts = [header_table(header), metrics_table(results), *slice_tables(results), *(extra or [])]
    if results.roles:
        parts.append(usage_table(results))
    console.print(Group(*parts))
    console.print(counts_line(results), soft_wrap=True)
    failures = failures_line(results, folder)
    if failures:
        console.print(failures, highlight=False, soft_wrap=True)  # one line: the command stays copyable
    if header.demo_models:
        console.print("[yellow]Demo models (embedded 135M model in every role): not a meaningful evaluation.[/]")

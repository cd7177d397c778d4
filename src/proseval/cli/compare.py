"""`proseval compare RUN_A RUN_B`: paired differences on the samples both runs scored."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..commandline.console import console, errors, fail
from ..report.compare import Comparison, compare_runs
from ..runtime.paired import MetricDiff, verdict
from ..runtime.runlog import RunFolder


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _diff_table(title: str, diffs: list[MetricDiff]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("metric", "paired", "A", "B", "B − A", "95% CI", "p", "verdict", "only A", "only B"):
        table.add_column(column, justify="left" if column in ("metric", "verdict") else "right")
    for d in diffs:
        ci = "—" if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
        table.add_row(
            escape(d.metric),
            str(d.paired),
            _num(d.mean_a),
            _num(d.mean_b),
            "—" if d.diff is None else f"{d.diff:+.3f}",
            ci,
            _num(d.p_value, 4),
            verdict(d),
            str(d.only_a),
            str(d.only_b),
        )
    return table


def _print(comparison: Comparison, name_a: str, name_b: str) -> None:
    console.print(_diff_table(f"B − A on the samples both scored (A = {name_a}, B = {name_b})", comparison.metrics))
    console.print(
        "verdict: A or B higher only where the 95% interval of B − A excludes 0; otherwise no difference "
        "is shown (a tie), whatever the means",
        highlight=False,
    )
    for key, groups in comparison.slices.items():
        for label, diffs in groups.items():
            console.print(_diff_table(f"{key} = {label}", diffs))
    if comparison.changed:
        table = Table(title=f"Samples that changed most ({comparison.metric})", title_justify="left")
        for column in ("sample", "A", "B", "B − A"):
            table.add_column(column, justify="left" if column == "sample" else "right")
        for sample in comparison.changed:
            table.add_row(escape(sample.id), _num(sample.a), _num(sample.b), f"{sample.change:+.3f}")
        console.print(table)


app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command("compare")
def compare_cmd(
    run_a: Path = typer.Argument(..., help="Baseline run folder (A)."),
    run_b: Path = typer.Argument(..., help="Run folder compared with it (B)."),
    metric: Optional[str] = typer.Option(None, "--metric", help="Metric that ranks the samples that changed most."),
    top: int = typer.Option(10, "--top", min=0, help="How many changed samples to list."),
    slices: bool = typer.Option(True, "--slices/--no-slices", help="Also compare per slice (domain, language, ...)."),
    output: Optional[Path] = typer.Option(None, "--json", help="Also write the comparison as JSON to this file."),
) -> None:
    """Compare two runs of one task sample by sample: mean difference, paired bootstrap CI, p-value."""
    header_a, header_b = RunFolder(run_a).read_header(), RunFolder(run_b).read_header()
    if header_a.task != header_b.task:
        fail(f"{run_a} ran {header_a.task} and {run_b} ran {header_b.task}: compare runs of one task")
    if header_a.task_version != header_b.task_version:
        errors.print(
            f"[yellow]warning:[/] task versions differ ({header_a.task_version} vs "
            f"{header_b.task_version}): scores may not mean the same",
            highlight=False,
        )
    samples_a = RunFolder(run_a).unique_scored()[0]
    samples_b = RunFolder(run_b).unique_scored()[0]
    keys = sorted(RunFolder(run_a).read_results().slices) if slices else []
    comparison = compare_runs(samples_a, samples_b, slice_keys=keys, metric=metric, top=top, seed=header_a.seed or 0)
    if metric is not None and metric not in {d.metric for d in comparison.metrics}:
        fail(f"no metric {metric!r} in these runs (they have: {', '.join(d.metric for d in comparison.metrics)})")
    _print(comparison, header_a.run_id, header_b.run_id)
    if output is not None:
        payload = asdict(comparison)
        for found, diff in zip(payload["metrics"], comparison.metrics):
            found["verdict"] = verdict(diff)
        output.write_text(
            json.dumps({"a": str(run_a), "b": str(run_b), **payload}, indent=2, ensure_ascii=False), encoding="utf-8"
        )

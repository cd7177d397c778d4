"""`proseval report RUN_DIR... -o report.html`: one self-contained HTML page over run folders."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..commandline.console import console, fail, run_folders
from ..report.runs import open_runs

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command("report")
def report_cmd(
    run_dirs: list[Path] = typer.Argument(..., help="Run folders (any tasks; runs of one task are compared)."),
    output: Path = typer.Option(Path("report.html"), "--output", "-o", help="HTML file to write."),
    baseline: Optional[Path] = typer.Option(
        None,
        "--baseline",
        help="Run folder every other run of its task is compared with (A); default: the first run of each task.",
    ),
    max_samples: int = typer.Option(
        200,
        "--max-samples",
        min=0,
        help="Samples listed per run (failed and unscored first); the samples that changed most are always listed.",
    ),
    all_samples: bool = typer.Option(False, "--all-samples", help="List every sample of every run."),
    text_chars: int = typer.Option(
        2000, "--text-chars", min=0, help="Characters of each input and output shown (0: all)."
    ),
    rank_by: Optional[str] = typer.Option(
        None,
        "--rank-by",
        help="Metric that ranks each leaderboard (highest first); default: the runs in the order given.",
    ),
    top: int = typer.Option(10, "--top", min=0, help="Samples that changed most, per comparison."),
    title: str = typer.Option("proseval report", "--title", help="Title of the page."),
    labels: Optional[Path] = typer.Option(
        None,
        "--labels",
        help="Human labels: adds the judges' agreement with "
        "them to the judges' section (see: proseval agreement --help).",
    ),
    prices: Optional[Path] = typer.Option(
        None, "--prices", help="Prices file for the judges' price per 1,000 ratings."
    ),
) -> None:
    """Write one HTML file (no network needed to view it): leaderboards, slices, charts, comparisons, samples."""
    if baseline is not None and baseline.resolve() not in {p.resolve() for p in run_dirs}:
        run_dirs = [baseline, *run_dirs]
    if len({p.resolve() for p in run_dirs}) != len(run_dirs):
        fail("a run folder is given twice")
    run_dirs = run_folders(run_dirs)
    try:
        from ..report.html import ReportOptions, write_report
    except ImportError as exc:
        fail(f"proseval report needs {exc.name}: pip install 'proseval[report]'")
    runs = open_runs(run_dirs)
    options = ReportOptions(
        baseline=baseline,
        max_samples=None if all_samples else max_samples,
        text_chars=text_chars,
        top=top,
        title=title,
        rank_by=rank_by,
        labels=labels,
        prices=prices,
    )
    size = write_report(runs, output, options)
    console.print(f"wrote {output} ({size / 1024:,.0f} KiB, {len(runs)} run(s))", highlight=False)

"""`proseval export RUN_DIR --format inspect|csv|parquet`: a run for other tools."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..commandline.console import console, fail
from ..report.export import FORMATS, write_inspect, write_tables
from ..report.runs import open_runs

NEEDS = {
    "parquet": ("pyarrow", "proseval[report]"),
    "csv": ("pandas", "proseval[report]"),
    "inspect": ("inspect_ai", "proseval[inspect]"),
}


app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command("export")
def export_cmd(
    run_dir: Path = typer.Argument(..., help="Run folder."),
    fmt: str = typer.Option(
        ...,
        "--format",
        "-f",
        help="inspect (an Inspect AI log for `inspect view`), csv or parquet (a scores table and a metrics table).",
    ),
    output: Optional[Path] = typer.Option(
        None,
        "--output",
        "-o",
        help="File to write (csv/parquet: the scores "
        "table; the metrics table goes beside it as NAME.metrics.EXT). "
        "Default: RUN_ID.eval or RUN_ID.EXT in the current folder.",
    ),
) -> None:
    """Export a run: flat tables (one row per sample and score, plus the metrics) or an Inspect AI log."""
    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    module, extra = NEEDS[fmt]
    try:
        __import__(module)
    except ImportError:
        fail(f"--format {fmt} needs {module}: pip install '{extra}'")
    (run,) = open_runs([run_dir])
    target = output or Path(f"{run.header.run_id}.{'eval' if fmt == 'inspect' else fmt}")
    if fmt == "inspect":
        path = write_inspect(run, target)
        console.print(
            f"wrote {path} ({len(run.samples)} samples); view it with: inspect view --log-dir {path.parent}",
            highlight=False,
        )
        return
    scores, metrics = write_tables(run, target, fmt)
    console.print(f"wrote {scores} (scores) and {metrics} (metrics)", highlight=False)

"""`proseval show RUN_DIR`: print a run's tables."""

from __future__ import annotations

from pathlib import Path

import typer

from ..commandline.console import console
from ..commandline.results import print_results
from ..commandline.running import task_tables
from ..runtime.runlog import RunFolder

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command()
def show(run_dir: Path = typer.Argument(..., help="Run folder.")) -> None:
    """Print a run's results tables."""
    folder = RunFolder(run_dir)
    header = folder.read_header()
    results = folder.read_results()
    print_results(console, header, results, task_tables(header.task, results))

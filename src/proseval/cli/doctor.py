"""`proseval doctor`: environment report and self-check."""

from __future__ import annotations

from typing import Optional

import typer
from rich.markup import escape

from ..commandline.console import console, fail
from ..doctor import components

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command()
def doctor(
    require: Optional[list[str]] = typer.Option(
        None,
        "--require",
        help=f"A component that must work here ({', '.join(components())}); repeatable. Exit status 1 if it does not.",
    ),
    no_model: bool = typer.Option(False, "--no-model", help="Do not load and run the embedded model."),
) -> None:
    """What a bug report needs: versions, CPU, llama.cpp build, extras, sandbox; checks each part."""
    from rich.table import Table

    from ..doctor import exit_status, run_checks

    required = set(require or [])
    known = components()
    unknown = required - set(known)
    if unknown:
        fail(f"unknown component(s) for --require: {', '.join(sorted(unknown))} (choose from {', '.join(known)})")
    checks = run_checks(run_model=not no_model)
    table = Table(show_header=True, header_style="bold", box=None)
    table.add_column("check")
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    colours = {"ok": "green", "warn": "yellow", "fail": "bold red", "info": "dim"}
    for check in checks:
        table.add_row(check.name, f"[{colours[check.status]}]{check.status}[/]", escape(check.detail))
    console.print(table)
    raise typer.Exit(exit_status(checks, required))

"""`proseval c3ebench ...`: the benchmark's own commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="C3EBench tools: build items from your own texts.", no_args_is_help=True)

"""`proseval generate NAME`: the dataset writers that benchmarks register (`kit.generate_command`)."""

from __future__ import annotations

import typer

from ..registry import generate_commands

app = typer.Typer(no_args_is_help=True)  # its help: its summary in cli/commands.py
for _name, _load in generate_commands().items():
    app.command(_name)(_load())

"""Where commands print: results on stdout (`console`), errors on stderr (`errors`), and `fail`,
which ends a command with one `error:` line."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from ..runtime.secrets import scrub

console = Console()
errors = Console(stderr=True)


def print_error(message: str) -> None:
    """One `error:` line on stderr, secrets scrubbed."""
    errors.print(f"[bold red]error:[/] {escape(scrub(message))}", highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one `error:` line and exit with `code` (2: a usage error)."""
    print_error(message)
    raise typer.Exit(code)

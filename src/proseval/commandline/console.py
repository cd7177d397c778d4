"""Where commands print: results on stdout (`console`), errors on stderr (`errors`), and `fail`,
which ends a command with one `error:` line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape

from ..runtime.secrets import scrub

LOG_WIDTH = 240  # columns when the output is not a terminal and COLUMNS is not set


class LogFriendlyConsole(Console):
    """A console whose tables keep every column when the output goes to a file, a pipe or a CI log:
    there rich would assume 80 columns and squeeze or drop columns; here it gets `LOG_WIDTH` (or
    `COLUMNS` when set), and lines are not broken at that width (`soft_wrap`). On a terminal, the
    terminal's width as usual. Decided at each print, so a redirected stream (tests, `| tee`) is seen
    as it is."""

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        if self._width is None and not self.is_terminal and "COLUMNS" not in os.environ:
            return ConsoleDimensions(max(size.width, LOG_WIDTH), size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]  # rich's own setter

    @property
    def soft_wrap(self) -> bool:
        """Whether a printed line is left whole rather than broken at the width: always where the
        output is not a terminal, so a log or a file keeps a command to copy (`proseval resume …`
        with a long path) on one line. On a terminal, lines are wrapped at its width as usual."""
        return self._soft_wrap or not self.is_terminal

    @soft_wrap.setter
    def soft_wrap(self, value: bool) -> None:
        self._soft_wrap = value


def terminal_size_variables() -> None:
    """`COLUMNS` or `LINES` that is not a usable size (`COLUMNS=0`, empty, a word) is ignored as if
    unset, rather than making every table and error message zero columns wide (printing nothing)."""
    for name, least in (("COLUMNS", 20), ("LINES", 1)):
        value = os.environ.get(name)
        if value is not None and not (value.strip().isdigit() and int(value) >= least):
            del os.environ[name]


terminal_size_variables()  # before the consoles read them
console = LogFriendlyConsole()
errors = LogFriendlyConsole(stderr=True)


def print_error(message: str) -> None:
    """One `error:` line on stderr, secrets scrubbed."""
    errors.print(f"[bold red]error:[/] {escape(scrub(message))}", highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one `error:` line and exit with `code` (2: a usage error)."""
    print_error(message)
    raise typer.Exit(code)


def run_folders(paths: list[Path]) -> list[Path]:
    """The run folders among the paths a command was given (`runs/*`), proseval's own outputs that
    are not runs (a panel's analysis, the viewer's labels, a set's summary) set aside with one line
    naming them (`runtime.runlog.select_runs`)."""
    from ..runtime.runlog import select_runs

    runs, aside = select_runs(paths)
    if aside:
        named = ", ".join(f"{path} ({what})" for path, what in aside)
        errors.print(f"[yellow]not runs, skipped:[/] {escape(named)}", highlight=False, soft_wrap=True)
    return runs

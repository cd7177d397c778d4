"""Commands imported when they run.

A `LazyCommand` is known by its name and one-line summary, which is all `proseval --help` lists;
its module — and whatever that imports: the runtime, scipy, a benchmark's code — is imported only
when the command is invoked (or its own `--help` is asked for), and the real command takes over.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from importlib import import_module
from typing import Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup


class LazyCommand(TyperCommand):
    """A placeholder listed by `summary` until it runs; then `loaded` builds the real command."""

    def __init__(self, name: str, load: Callable[[], Any], summary: str | None) -> None:
        super().__init__(name=name, help=summary)
        self._load = load

    @cached_property
    def loaded(self) -> Any:
        """The real click command, named as listed; the summary is its help if it has none of its own."""
        command = self._load()
        command.name = self.name
        if not command.help:
            command.help = self.help
        return command

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        """Parsing hands over to the real command, so the context invoked is the real command's."""
        return self.loaded.make_context(info_name, args, parent=parent, **extra)


def command_in(module: str, name: str) -> Callable[[], Any]:
    """The loader of command `name`, declared on the typer app `app` of `module`."""
    return lambda: typer.main.get_group(import_module(module).app).commands[name]


def group_of(load: Callable[[], typer.Typer]) -> Callable[[], Any]:
    """The loader of a command group from a function returning its typer app."""
    return lambda: typer.main.get_group(load())


class LazyGroup(TyperGroup):
    """A group that lists `lazy_commands()` before typer's own commands and imports each when it runs."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        declared = dict(self.commands)
        self.commands = {str(command.name): command for command in self.lazy_commands()} | declared

    def lazy_commands(self) -> list[LazyCommand]:
        return []

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if isinstance(command, LazyCommand) and command.help is None:
            return command.loaded  # nothing to list it by without importing it
        return command

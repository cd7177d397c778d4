"""`proseval list` and `proseval describe TASK`."""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Sequence
from typing import Any, Optional

import typer
from rich.markup import escape

from ..commandline.console import console, errors, fail
from ..registry import get_entry, load_errors, tasks

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command("list")
def list_tasks() -> None:
    """List the tasks proseval can run."""
    from rich.table import Table

    table = Table(title="Tasks")
    table.add_column("task")
    table.add_column("what it is")
    for entry in tasks().values():
        table.add_row(entry.name, entry.summary)
    console.print(table)
    for problem in load_errors:
        errors.print(f"[bold yellow]warning:[/] {escape(problem)}", highlight=False, soft_wrap=True)


@app.command("describe")
def describe(
    task: str = typer.Argument(..., help="Task name."),
    show_prompt: Optional[str] = typer.Option(
        None,
        "--show-prompt",
        metavar="NAME",
        help="Print the text of the built-in prompt NAME and exit (a starting point for a --prompt file).",
    ),
) -> None:
    """Show a task's metrics, prompts, presets and options (pass them to run as --name value)."""
    from rich.table import Table

    try:
        entry = get_entry(task)
    except KeyError as exc:
        fail(str(exc).strip("'\""))
    if show_prompt is not None:
        prompts = entry.prompts() if entry.prompts is not None else {}
        if show_prompt not in prompts:
            fail(f"{task} has no prompt {show_prompt!r} (its prompts: {', '.join(prompts) or 'none'})")
        sys.stdout.write(prompts[show_prompt].text)
        return
    console.print(f"[bold]{entry.name}[/]: {entry.summary}")
    _describe_metrics(entry)
    _describe_prompts(entry)
    _describe_presets(entry)
    fields = entry.params.model_fields
    if not fields:
        console.print("This task has no options.")
        return
    table = Table(title="Options", title_justify="left")
    for column in ("option", "type", "default", "meaning"):
        table.add_column(column)
    taken = RUN_OPTIONS
    for name, info in fields.items():
        default = "required" if info.is_required() else repr(info.get_default(call_default_factory=True))
        meaning = info.description or ""
        if option_form(name, taken).startswith("-T"):
            meaning += f" (give it as -T {name}=VALUE: --{name.replace('_', '-')} is run's own option)"
        cells = (option_form(name, taken), _type_label(info.annotation), default, meaning)
        table.add_row(*map(escape, cells))
    console.print(table)


# The long options of `proseval run` itself: a task option of the same name can only be given as
# `-T NAME=VALUE`. Kept here, not read from the run command, so that `describe` imports no runtime
# (a test checks the list against the command's own options).
RUN_OPTIONS = frozenset(
    {
        "--base-url",
        "--batch",
        "--concurrency",
        "--config",
        "--display",
        "--dry-run",
        "--epochs",
        "--estimate-output",
        "--force",
        "--gen",
        "--limit",
        "--max-cost",
        "--model",
        "--no-cache",
        "--no-probe",
        "--out",
        "--panel",
        "--panel-score",
        "--param",
        "--preset",
        "--prices",
        "--prompt",
        "--resume",
        "--role",
        "--role-base-url",
        "--role-concurrency",
        "--run-dir",
        "--seed",
    }
)


def option_form(name: str, taken: frozenset[str]) -> str:
    """How a task option is given to `run`: `--name`, or `-T name=` where run has an option of that name."""
    flag = "--" + name.replace("_", "-")
    return f"-T {name}=" if flag in taken else flag


def _print_table(title: str, columns: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    from rich.table import Table

    if not rows:
        return
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*map(escape, row))
    console.print(table)


def _describe_metrics(entry: Any) -> None:
    metrics = entry.metrics() if entry.metrics is not None else {}
    _print_table("Metrics", ("metric", "definition"), list(metrics.items()))


def _describe_prompts(entry: Any) -> None:
    prompts = entry.prompts() if entry.prompts is not None else {}
    rows = [
        (
            name,
            ", ".join(["{" + p + "}" for p in t.placeholders] + ["{" + p + "} (optional)" for p in t.optional])
            or "none",
            t.description,
        )
        for name, t in prompts.items()
    ]
    _print_table("Prompts (replace with --prompt NAME=FILE)", ("name", "placeholders", "what it is"), rows)


def _describe_presets(entry: Any) -> None:
    presets = entry.presets() if entry.presets is not None else {}
    rows = []
    for name, preset in presets.items():
        taken = RUN_OPTIONS
        sets = [
            f"{option_form(k, taken)}{'' if option_form(k, taken).endswith('=') else ' '}{v}"
            for k, v in preset.params.items()
        ]
        sets += [f"-g {role}.{k}={v}" for role, values in preset.gen.items() for k, v in values.items()]
        rows.append(
            (name, preset.description + (f" ({preset.notes})" if preset.notes else ""), "\n".join(sets) or "nothing")
        )
    _print_table("Presets (--preset NAME; your own options win)", ("name", "what it reproduces", "sets"), rows)


def _type_label(annotation: Any) -> str:
    """A reader's name for an option type: `int`, `str | None`, `batched | per-criterion`, `list[str]`."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(map(str, args))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_label(arg) for arg in args)
    if origin is not None:
        return f"{getattr(origin, '__name__', origin)}[{', '.join(map(_type_label, args))}]"
    return "None" if annotation is type(None) else getattr(annotation, "__name__", str(annotation))

"""Running a task from a command: build and check it, run it in the event loop, print its results."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import Any, Optional

import typer

from ..planning import Plan, plan
from ..registry import tasks
from ..runtime.interrupts import SignalStop
from ..runtime.loop import run_async
from ..runtime.options import RunOptions
from ..runtime.outcome import EXIT_FAILED_SAMPLES
from ..runtime.records import Results
from ..runtime.roles import RoleRequest
from ..runtime.runlog import RunFolder
from ..runtime.runner import start_run
from .console import LogFriendlyConsole, console, errors
from .cost import CostRequest
from .requests import checked
from .results import print_results


def run_in_loop(coro: Any) -> Any:
    """Run `coro` to its end. Ctrl-C (SIGINT) or SIGTERM stops it (`runtime.interrupts`): the
    command names the run folder and the command that continues it, and exits with 130 or 143."""
    stop = SignalStop()
    try:
        return run_async(stop.run(coro))
    except (asyncio.CancelledError, KeyboardInterrupt):
        run = stop.interrupted
        message = (
            "interrupted before any sample started"
            if run is None
            else (
                f"interrupted: {run.saved} of {run.total} samples are saved in {run.folder}; "
                f"continue with: proseval resume {shlex.quote(str(run.folder))}"
            )
        )
    last_words(stop, message)
    raise typer.Exit(stop.exit_status)


def last_words(stop: SignalStop, message: str) -> None:
    """Print an interrupted command's `message` on stderr: on the stderr the command started with
    when a library points the process's elsewhere at this moment (`runtime.interrupts`)."""
    kept = stop.stderr
    if kept is None or not kept.moved():
        errors.print(message, style="yellow", markup=False, highlight=False, soft_wrap=True)
        return
    with kept.opened() as stream:
        LogFriendlyConsole(file=stream).print(message, style="yellow", markup=False, highlight=False, soft_wrap=True)


def task_tables(task_name: str, results: Any) -> list[Any]:
    """The task's own result tables (its `render` hook), if it is registered and has one."""
    entry = tasks().get(task_name)
    return entry.render(results) if entry is not None and entry.render is not None else []


def report_run(folder: RunFolder, results: Any, *, resumable: bool = True) -> None:
    """Print a finished run's tables, the task's own among them, what failed (with the command that
    runs it again when the run is `resumable`), and where its folder is."""
    header = folder.read_header()
    print_results(
        console, header, results, task_tables(header.task, results), folder=folder.path if resumable else None
    )
    console.print(f"run folder: {folder.path}")


def exit_if_failed(*results: Results) -> None:
    """End the command with status 4 when any of these runs has failed samples (docs/runtime.md)."""
    if any(r.final_outcome() == "failed_samples" for r in results):
        raise typer.Exit(EXIT_FAILED_SAMPLES)


def execute(
    task_name: str,
    params: dict[str, Any],
    request: RoleRequest,
    options: RunOptions,
    run_dir: Optional[Path] = None,
    prompts: Optional[dict[str, Path]] = None,
    preset: Optional[str] = None,
    cost: Optional[CostRequest] = None,
) -> tuple[RunFolder, Any]:
    """Build the task, check the roles and prompts (before any call), run it (`execute_plan`)."""
    planned = checked(lambda: plan(task_name, request, params=params, prompts=prompts, preset=preset))
    return execute_plan(planned, options, run_dir=run_dir, cost=cost)


def execute_plan(
    planned: Plan, options: RunOptions, *, run_dir: Optional[Path] = None, cost: Optional[CostRequest] = None
) -> tuple[RunFolder, Any]:
    """Run a planned task, its warnings shown first.

    With `cost` (--prices, --max-cost), `options.cost` is set to the run's meter, checked
    against the bound models before anything is written."""
    for warning in planned.warnings:
        errors.print(f"[bold yellow]warning:[/] {warning}", highlight=False)
    if cost is not None:
        options.cost = cost.meter(planned.bindings.values())
    return run_in_loop(start_run(planned.task, planned.bindings, options, demo=planned.demo, run_dir=run_dir))

"""`proseval score RUN_DIR`: score stored answers again with other roles."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from ..api import rescore_setup
from ..commandline.console import console, errors, fail
from ..commandline.cost import (
    STOPPED_AT_COST_LIMIT,
    EstimateOutputOpt,
    MaxCostOpt,
    PricesOpt,
    cost_request,
    stop_if_limited,
)
from ..commandline.envfile import load_env_file
from ..commandline.options import ROLE_DEFAULTS, BatchOpt, DisplayOpt, NoProbeOpt, RoleArgs, with_role_options
from ..commandline.requests import checked, display_mode, prompt_files
from ..commandline.running import exit_if_failed, report_run, run_in_loop
from ..core.task import Task
from ..registry import scorer_plugins
from ..runtime.cost import money
from ..runtime.options import RunOptions
from ..runtime.records import RoleBinding
from ..runtime.rescore import rescore_run
from ..runtime.roles import parse_assignments, parse_value
from ..runtime.runlog import RunFolder


def not_started(first: int, repeats: int) -> str:
    """What to do about the repeats a cost limit left unstarted."""
    return (
        f"repeats {first} to {repeats} not started; to judge all {repeats}, run this command again with a "
        "higher --max-cost (what was judged comes back from the response cache)"
    )


def print_scorers() -> None:
    """The registered scorers (`--list-scorers`): each one's name, roles and summary."""
    for entry in scorer_plugins().values():
        console.print(f"[bold]{escape(entry.name)}[/] (roles: {', '.join(entry.roles)}): {escape(entry.summary)}")


app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command("score")
@with_role_options
def score_cmd(
    run_dir: Optional[Path] = typer.Argument(None, help="Run folder whose stored outputs are scored again."),
    roles: RoleArgs = ROLE_DEFAULTS,  # --role, --base-url, ... --prompt (`with_role_options`)
    scorer: Optional[str] = typer.Option(
        None,
        "--scorer",
        help="Score with this registered scorer instead of the "
        "task's own (e.g. revision-distance; see: proseval score --list-scorers).",
    ),
    scorer_option: Optional[list[str]] = typer.Option(
        None, "--scorer-option", "-O", help="KEY=VALUE option of --scorer, e.g. setting=reference-free. Repeatable."
    ),
    list_scorers: bool = typer.Option(False, "--list-scorers", help="List the registered scorers and exit."),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Folder for the new run folder (default: beside RUN_DIR)."
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the response cache."),
    no_probe: bool = NoProbeOpt,
    repeats: int = typer.Option(
        0,
        "--repeats",
        min=0,
        max=100,
        help="Judge the stored answers N times (repeats "
        "1..N, each a run folder with its own cache entries and seeds), to measure the "
        "judge's consistency with: proseval agreement. Running it again replays the "
        "same N repeats from the cache; raise N for more.",
    ),
    swap_order: bool = typer.Option(
        False,
        "--swap-order",
        help="Judge with the texts of each judge prompt in the "
        "other order (tasks that compare two texts: the candidate and a reference, or "
        "two answers), to measure position bias with: proseval agreement.",
    ),
    display: Optional[str] = DisplayOpt,
    batch: Optional[list[str]] = BatchOpt,
    prices: Optional[Path] = PricesOpt,
    max_cost: Optional[float] = MaxCostOpt,
    estimate_output: Optional[list[str]] = EstimateOutputOpt,
) -> None:
    """Re-score a run's stored outputs with other judge-like roles or prompts; the candidate is not called."""
    if list_scorers:
        print_scorers()
        return
    if run_dir is None:
        fail("name the run folder to re-score (see: proseval score --help)")
    load_env_file()
    cost = cost_request(prices, max_cost, estimate_output)
    if batch and "candidate" in batch:
        fail("--batch candidate: a re-score keeps the stored answers and never calls the candidate")
    source = RunFolder(run_dir)
    files = prompt_files(roles.prompt, {})
    source.read_header()  # not a run folder: refused before anything else

    def rebound_task() -> tuple[Task, dict[str, RoleBinding], list[str]]:
        options = {
            k.replace("-", "_"): parse_value(v)
            for k, v in parse_assignments(scorer_option or [], "--scorer-option").items()
        }
        if options and scorer is None:
            fail("--scorer-option goes with --scorer")
        request = roles.request({}, None)
        if not request.roles and not files and scorer is None and not repeats and not swap_order:
            fail(
                "name the role(s) or prompt(s) to re-score with, e.g. --role judge=openai/gpt-4o-mini, "
                "or --repeats N to judge again with the run's own judge"
            )
        return rescore_setup(
            source, request, prompts=files, scorer=scorer, scorer_options=options, swap_order=swap_order
        )

    the_task, bindings, warnings = checked(rebound_task)
    # one meter for every repeat: --max-cost limits what the command spends
    options = RunOptions(
        out_dir=out or run_dir.parent,
        use_cache=not no_cache,
        display=display_mode(display),
        batch_roles=tuple(batch or ()),
        cost=cost.meter(bindings.values()),
        probe=not no_probe,
    )
    for warning in warnings:
        errors.print(f"[bold yellow]warning:[/] {warning}", highlight=False)
    meter = options.cost
    made = []
    judged = []
    for repeat in range(1, repeats + 1) if repeats else (0,):
        if meter is not None and meter.full():  # the repeats before spent the limit
            errors.print(
                f"[bold yellow]stopped at the cost limit:[/] spent {money(meter.spent, meter.currency)} of "
                f"{money(meter.limit or 0.0, meter.currency)}; {not_started(repeat, repeats)}",
                highlight=False,
            )
            raise typer.Exit(STOPPED_AT_COST_LIMIT)
        if repeats:
            console.print(f"[bold]repeat {repeat} of {repeats}[/]")
        folder, results = run_in_loop(rescore_run(source, the_task, bindings, replace(options, repeat=repeat)))
        report_run(folder, results, resumable=False)
        made.append(folder.path)
        judged.append(results)
        if repeat < repeats and not results.complete and meter is not None and meter.full():
            errors.print(not_started(repeat + 1, repeats), highlight=False)
        stop_if_limited(meter, folder, results, cost)  # a re-score folder is resumed like any run
    if repeats:
        listed = " ".join(str(p) for p in [run_dir, *made])
        console.print(f"consistency of the judge across repeats: proseval agreement {listed}", highlight=False)
    exit_if_failed(*judged)  # a re-score with failed samples ends with status 4, as a run does

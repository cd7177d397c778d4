"""`proseval run-set FILE.yaml`: models × tasks into one folder; what is missing runs, one leaderboard per task."""

from __future__ import annotations

import asyncio
import shlex
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ..commandline.console import console, errors, fail
from ..commandline.cost import (
    STOPPED_AT_COST_LIMIT,
    CostRequest,
    DryRunOpt,
    EstimateOutputOpt,
    PricesOpt,
    cost_left,
    cost_request,
    limit_reason,
    print_set_estimates,
    run_progress,
    suggested_limit,
)
from ..commandline.envfile import load_env_file
from ..commandline.options import DisplayOpt, NoCacheOpt, NoProbeOpt
from ..commandline.requests import display_mode
from ..commandline.running import last_words
from ..commandline.sets import plan_set
from ..errors import ProsevalError
from ..report.runs import ReportRun
from ..report.sections import HtmlTable, leaderboard
from ..runtime.cost import CostMeter, money
from ..runtime.interrupts import SignalStop
from ..runtime.loop import run_async
from ..runtime.outcome import EXIT_ENVIRONMENT, EXIT_FAILED_SAMPLES
from ..runtime.progress import Display
from ..runtime.runlog import RunFolder
from ..runtime.sets import (
    MemberResult,
    SetPlan,
    SetResult,
    describe_plan,
    recorded_spend,
    run_set_async,
)
from ..runtime.usage import total_usage

STATE_STYLE = {
    "done": "green",
    "skipped": "dim",
    "resumed": "cyan",
    "partial": "bold red",
    "failed": "bold red",
    "stopped": "yellow",
}
REPORT = "report.html"


@dataclass
class Leaderboard:
    """The report's leaderboard of one task entry's finished members (ranked, then unranked)."""

    task: str
    table: HtmlTable | None
    models: dict[str, str]  # run id -> the model's label in the set
    missing: list[str]  # members without a finished run
    unranked: list[str]  # members whose run finished with failed samples


def leaderboards(result: SetResult) -> list[Leaderboard]:
    boards = []
    for ranking in result.rankings:
        shown = [*ranking.ranked, *ranking.unranked]
        runs = [
            ReportRun(
                i,
                m.path,
                RunFolder(m.path).read_header(),
                m.results,  # type: ignore[arg-type]  # a ranked or unranked member has results
                RunFolder(m.path).unique_scored()[0],
            )
            for i, m in enumerate(shown)
        ]
        table = leaderboard(ranking.task, runs, ranking.metric) if runs else None
        models = {run.header.run_id: member.model for run, member in zip(runs, shown)}
        boards.append(
            Leaderboard(
                ranking.task, table, models, [m.name for m in ranking.missing], [m.name for m in ranking.unranked]
            )
        )
    return boards


def finish_set(result: SetResult, *, report: bool) -> None:
    """What the command adds to a set's result before `set.json` is written: the report."""
    if report:
        write_set_report(result)


def write_set_report(result: SetResult) -> None:
    """`report.html` in the set folder: every member with its state and usage, the runs that have results
    (`report.sets`; a note when it cannot be written)."""
    if not result.members:
        return
    try:
        from ..report.html import write_report  # noqa: F401 - the report extra is installed
        from ..report.sets import write_set_report as write
    except ImportError as exc:
        result.notes.append(f"no {REPORT}: it needs {exc.name} (pip install 'proseval[report]')")
        return
    try:
        output = result.path / REPORT
        write(result, output, f"proseval set: {result.file.stem}")
        result.report = output
    except (ProsevalError, OSError, ValueError) as exc:
        result.notes.append(f"no {REPORT}: {exc}")


def leaderboard_table(board: Leaderboard) -> Table | None:
    """One leaderboard for the terminal, from the report's: the tier (runs with failed samples are
    not ranked; runs in one tier are not shown to differ), the model, each metric's mean with its
    95% CI (and the unscored count when any),
    failed samples, finished / total, model failures."""
    if board.table is None:
        return None
    columns = board.table.columns
    at = {
        name: columns.index(name)
        for name in ("tier", "model", "run", "other roles", "failed", "finished / total", "model failures")
    }
    first = at["other roles"] + 1
    metrics = [(i, columns[i]) for i in range(first, at["failed"], 3)]  # each metric: mean, 95% CI, unscored
    others = {row[at["other roles"]].text for row in board.table.rows}
    caption = f"other roles: {others.pop()}" if len(others) == 1 and "" not in others else None
    table = Table(title=f"Leaderboard: {board.task}", title_justify="left", caption=caption, caption_justify="left")
    table.add_column("tier", justify="right")
    table.add_column("model", overflow="fold")
    for _, name in metrics:
        table.add_column(f"{name} (95% CI)", justify="right")
    for name in ("failed", "finished", "model failures"):
        table.add_column(name, justify="left" if name == "model failures" else "right")
    for row in board.table.rows:
        cells = [row[at["tier"]].text, board.models.get(row[at["run"]].text, row[at["model"]].text)]
        for i, _ in metrics:
            mean, ci, unscored = (row[i].text, row[i + 1].text, row[i + 2].text)
            cells.append(
                " ".join(
                    part
                    for part in (
                        mean,
                        ci if ci != mean else "",
                        f"({unscored} unscored)" if unscored not in ("", "0") else "",
                    )
                    if part
                )
            )
        cells += [row[at["failed"]].text, row[at["finished / total"]].text, row[at["model failures"]].text]
        table.add_row(*(escape(cell) for cell in cells), style="red" if cells[0] == "not ranked" else None)
    return table


def usage_cells(usage: dict[str, Any] | None, cost: bool, currency: str | None) -> list[str]:
    """A run's (or the set's) requests, tokens in and out, and with `cost` its recorded spend (in
    `currency` when the column names none)."""
    if usage is None:
        return [""] * (4 if cost else 3)
    cells = [f"{usage[key]:,}" for key in ("requests", "prompt_tokens", "completion_tokens")]
    if cost:
        cells.append("—" if usage["cost"] is None else money(usage["cost"], "" if currency else usage["currency"]))
    return cells


def summary_table(result: SetResult) -> Table:
    """Each member's state, samples, headline, usage and (when any member recorded one) spend; the
    set's total usage and spend."""
    infos = [member.summary() for member in result.members]
    total = total_usage(info["usage"] for info in infos if info["usage"] is not None)
    cost = any(info["usage"] is not None and info["usage"]["cost"] is not None for info in infos)
    currency = total["currency"]
    table = Table(title=f"Set {result.path}", title_justify="left")
    usage = ["requests", "tok in", "tok out"] + ([f"cost ({currency})" if currency else "cost"] if cost else [])
    for name in ("member", "state", "samples", "headline", *usage, "reason"):
        table.add_column(name, justify="left" if name in ("member", "state", "reason") else "right", overflow="fold")
    for member, info in zip(result.members, infos):
        samples = info["samples"]
        text = (
            ""
            if samples is None
            else f"{samples['finished']}/{samples['total']}"
            + (f", {samples['failed']} failed" if samples["failed"] else "")
        )
        headline = info["headline"]
        shown = "" if headline is None or headline["mean"] is None else f"{headline['metric']} {headline['mean']:.3f}"
        style = STATE_STYLE[member.state]
        table.add_row(
            escape(member.name),
            f"[{style}]{member.state}[/]",
            text,
            shown,
            *usage_cells(info["usage"], cost, currency),
            escape(member.reason or ""),
        )
    if len(infos) > 1:
        table.add_section()
        table.add_row("[bold]total[/]", "", "", "", *usage_cells(total, cost, currency), "")
    return table


def print_set(result: SetResult) -> None:
    console.print(summary_table(result))
    for board in leaderboards(result):
        table = leaderboard_table(board)
        if table is not None:
            console.print(table)
        if board.unranked:
            console.print(
                f"[bold red]not ranked in {escape(board.task)} (failed samples):[/] "
                f"{escape(', '.join(board.unranked))}",
                highlight=False,
            )
        if board.missing:
            console.print(
                f"[yellow]not in the leaderboard of {escape(board.task)} (no finished run):[/] "
                f"{escape(', '.join(board.missing))}",
                highlight=False,
            )
    for key, numbers in result.endpoints.items():
        console.print(
            f"endpoint {escape(key)}: limit {numbers['limit']}, at most {numbers['peak_in_flight']} "
            f"in flight, {numbers['requests']} requests",
            highlight=False,
        )
    for note in result.notes:
        console.print(f"note: {escape(note)}", highlight=False)
    console.print(
        f"set folder: {result.path}" + (f"; report: {result.report}" if result.report else ""), highlight=False
    )


def dry_run_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="Members (nothing run)", title_justify="left")
    for name in ("member", "would", "samples", "roles", "reason"):
        table.add_column(name, justify="right" if name == "samples" else "left", overflow="fold")
    for row in rows:
        roles = ", ".join(f"{role}={spec} (c={row['concurrency'][role]})" for role, spec in row["roles"].items())
        table.add_row(
            escape(row["member"]), row["action"], str(row["samples"]), escape(roles), escape(row["reason"] or "")
        )
    return table


app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command("run-set")
def run_set_cmd(
    set_file: Path = typer.Argument(
        ..., help="The set's YAML file: models, tasks, defaults, endpoint limits (see proseval docs many-models)."
    ),
    dry_run_list: bool = typer.Option(
        False,
        "--dry-run-list",
        help="List the members and what running the set "
        "would do to each (start, skip, resume, refuse); send and write nothing.",
    ),
    max_runs: Optional[int] = typer.Option(
        None, "--max-runs", help="Runs going at once (default: the file's max_runs, else 4)."
    ),
    retry_failed: bool = typer.Option(
        False, "--retry-failed", help="Also run again the failed samples of finished runs."
    ),
    no_cache: Optional[bool] = NoCacheOpt,
    no_probe: bool = NoProbeOpt,
    no_report: bool = typer.Option(False, "--no-report", help="Do not write report.html into the set folder."),
    display: Optional[str] = DisplayOpt,
    dry_run: bool = DryRunOpt,
    prices: Optional[Path] = PricesOpt,
    max_cost: Optional[float] = typer.Option(
        None,
        "--max-cost",
        help="Stop starting new work in any member once "
        "the spend recorded in the set's run folders (plus what requests in "
        "flight may cost) would pass this amount, in the prices file's "
        "currency; running the set again with a higher limit continues. "
        "Needs --prices (or prices: in the set file); wins over the file's "
        "max_cost:.",
    ),
    estimate_output: Optional[list[str]] = EstimateOutputOpt,
) -> None:
    """Run an evaluation set: every missing run is started, finished ones skipped, unfinished ones resumed;
    then one leaderboard per task."""
    load_env_file()
    if max_runs is not None and max_runs < 1:
        fail(f"--max-runs must be at least 1 (got {max_runs})")
    mode = display_mode(display)
    setplan = plan_set(
        set_file,
        max_runs=max_runs,
        use_cache=False if no_cache else None,
        report=False if no_report else None,
        probe=not no_probe,
    )
    cost = cost_request(prices, max_cost, estimate_output, setplan.file)
    print_warnings(setplan.warnings)
    if dry_run_list or dry_run:
        print_dry_run(setplan, cost, listing=dry_run_list, retry_failed=retry_failed)
        return
    meter = set_meter(setplan, cost)
    result = run_members(setplan, set_file, mode=mode, retry_failed=retry_failed, meter=meter)
    print_set(result)
    stopped = [m for m in result.members if m.state == "stopped"]
    if meter is not None:
        print_spend(setplan, meter, stopped, retry_command(set_file, prices))
    exit_for(result, stopped, set_file)


def print_warnings(warnings: list[str]) -> None:
    for warning in warnings:
        errors.print(f"[bold yellow]warning:[/] {escape(warning)}", highlight=False)


def set_meter(setplan: SetPlan, cost: CostRequest) -> CostMeter | None:
    """The meter of the whole set (None without prices), starting from the spend its run folders recorded."""
    return cost.meter([b for m in setplan.members for b in m.bindings.values()], previous=recorded_spend(setplan))


def print_dry_run(setplan: SetPlan, cost: CostRequest, *, listing: bool, retry_failed: bool) -> None:
    """What running the set would do, sending and writing nothing: each member's action (`listing`),
    else each member's cost estimate."""
    if listing:
        console.print(dry_run_table(describe_plan(setplan, retry_failed=retry_failed)))
        console.print(f"set folder: {setplan.folder}; {setplan.max_runs} run(s) at once", highlight=False)
        return
    print_set_estimates(setplan, cost, retry_failed=retry_failed)
    console.print(f"set folder: {setplan.folder}", highlight=False)


def run_members(
    setplan: SetPlan, set_file: Path, *, mode: Display, retry_failed: bool, meter: CostMeter | None
) -> SetResult:
    """Run the set's members (notes on the terminal unless the display is none); on Ctrl-C or SIGTERM
    every member's run stops and keeps its usage (`runtime.interrupts`) and the command exits."""

    def notify(text: str) -> None:
        if mode != "none":
            errors.print(escape(text), highlight=False)

    stop = SignalStop()
    try:
        return run_async(
            stop.run(
                run_set_async(
                    setplan,
                    display=mode,
                    retry_failed=retry_failed,
                    notify=notify,
                    report=partial(finish_set, report=setplan.report),
                    cost=meter,
                )
            )
        )
    except (asyncio.CancelledError, KeyboardInterrupt):
        last_words(
            stop,
            f"interrupted: finished samples are saved in {setplan.folder}; run it again to continue: "
            f"proseval run-set {shlex.quote(str(set_file))}",
        )
        raise typer.Exit(stop.exit_status) from None


def retry_command(set_file: Path, prices: Path | None) -> str:
    """The command that runs the set again with the same prices file (markup escaped)."""
    return f"proseval run-set {escape(str(set_file))}" + (
        f" --prices {escape(str(prices))}" if prices is not None else ""
    )


def print_spend(setplan: SetPlan, meter: CostMeter, stopped: list[MemberResult], again: str) -> None:
    """The spend recorded in the set's run folders; with members stopped at the cost limit, a higher
    --max-cost (`again` plus it) that should let the set finish."""
    if meter.spent:
        console.print(
            f"spend recorded in the set's run folders: {money(meter.spent, meter.currency)}"
            + (f" of {money(meter.limit, meter.currency)}" if meter.limit is not None else ""),
            highlight=False,
        )
    if not stopped:
        return
    suggestion = suggested_limit(
        meter,
        cost_left(
            run_progress(RunFolder(m.path), meter.prices, len(m.keys), meter.estimates, m.task) for m in setplan.members
        ),
    )
    errors.print(
        f"[bold yellow]stopped at the cost limit:[/] {limit_reason(meter)}; {len(stopped)} member(s) left "
        f"unfinished; run it again to continue: {again} --max-cost {suggestion:g}",
        highlight=False,
    )


def exit_for(result: SetResult, stopped: list[MemberResult], set_file: Path) -> None:
    """Exit with the status the worst outcome asks for: a failed run (the environment), members stopped
    at the cost limit, runs with failed samples; return when every run finished."""
    if result.failed:
        errors.print(
            f"[bold red]{len(result.failed)} of {len(result.members)} run(s) failed[/] (see the reason "
            "column); running the set again retries them",
            highlight=False,
        )
        raise typer.Exit(EXIT_ENVIRONMENT)
    if stopped:
        raise typer.Exit(STOPPED_AT_COST_LIMIT)
    if result.partial:
        errors.print(
            f"[bold red]{len(result.partial)} of {len(result.members)} run(s) finished with failed "
            f"samples[/] (see the reason column); run them again with: proseval run-set "
            f"{escape(shlex.quote(str(set_file)))} --retry-failed",
            highlight=False,
        )
        raise typer.Exit(EXIT_FAILED_SAMPLES)

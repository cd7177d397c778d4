"""`proseval runs [FOLDER]`: the run folders under a folder, one line each, in the terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from ..commandline.console import console, fail
from ..runtime.runlog import HEADER
from ..view.runs import RunInfo, read_info

app = typer.Typer()
DEPTH = 3  # a profile keeps its runs two levels down (OUT/revision/MODEL/RUN)


def runs_below(root: Path, depth: int = DEPTH) -> list[Path]:
    """The run folders at `root` and below it, `depth` levels at most, in name order; a run folder's
    own sub-folders (checkpoints) are not searched."""
    if (root / HEADER).is_file():
        return [root]
    if depth == 0 or not root.is_dir():
        return []
    found: list[Path] = []
    for child in sorted(p for p in root.iterdir() if p.is_dir()):
        found += runs_below(child, depth - 1)
    return found


def state(info: RunInfo) -> str:
    """running, complete, failed samples, stopped (unfinished, resumable) or unreadable."""
    if info.status in ("running", "unreadable"):
        return info.status
    if info.results is None:
        return "stopped"
    return {"complete": "complete", "failed_samples": "failed samples"}.get(info.results.final_outcome(), "stopped")


def describe(info: RunInfo, root: Path) -> dict[str, Any]:
    """One run as `runs --json` lists it."""
    header, results = info.header, info.results
    headline = info.headline()
    total = results.counts.total if results is not None else None
    return {
        "folder": str(info.path),
        "name": str(info.path.relative_to(root)) if info.path != root else info.path.name,
        "task": header.task if header else None,
        "models": info.models,
        "state": state(info),
        "finished": results.counts.finished if results is not None else None,
        "samples": total,
        "failed": results.counts.failed if results is not None else None,
        "headline": {"metric": headline[0], "mean": headline[1]} if headline else None,
        "started_at": header.started_at if header else None,
        "problem": info.problem or None,
    }


@app.command("runs")
def runs(
    folder: Path = typer.Argument(
        Path("runs"), help="Folder of run folders (searched three levels deep), or one run folder."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON instead of a table."),
) -> None:
    """List past runs: task, models, state, samples, headline, start time and folder."""
    if not folder.exists():
        fail(f"{folder}: no such folder (runs go to runs/ unless --out or --run-dir said otherwise)")
    listed = [describe(read_info(path.name, path), folder) for path in runs_below(folder)]
    if as_json:
        typer.echo(json.dumps(listed, indent=2, ensure_ascii=False))
        return
    if not listed:
        console.print(f"no run folders in {escape(str(folder))}", highlight=False)
        return
    table = Table(title=f"Runs in {escape(str(folder))}", title_justify="left")
    for column in ("run", "task", "models", "state", "samples", "headline", "started"):
        table.add_column(column, justify="right" if column == "samples" else "left", overflow="fold")
    for run in listed:
        models = ", ".join(f"{role}={spec}" for role, spec in run["models"].items())
        samples = (
            ""
            if run["samples"] is None
            else f"{run['finished']:,}/{run['samples']:,}" + (f" ({run['failed']:,} failed)" if run["failed"] else "")
        )
        headline = (
            ""
            if run["headline"] is None
            else (
                f"{run['headline']['metric']} "
                + ("—" if run["headline"]["mean"] is None else f"{run['headline']['mean']:.3f}")
            )
        )
        colour = {"complete": "green", "failed samples": "red", "running": "cyan"}.get(run["state"], "yellow")
        table.add_row(
            escape(run["name"]),
            escape(run["task"] or ""),
            escape(models),
            f"[{colour}]{run['state']}[/]",
            samples,
            escape(headline),
            (run["started_at"] or "")[:19],
        )
    console.print(table)

"""`proseval meeseeks ...`: data download, rule coverage of a data set, new items from a template."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import typer
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TransferSpeedColumn,
)
from rich.table import Table

from proseval.benchmarks.meeseeks.data import MeeseeksDataError, input_root, load_items
from proseval.benchmarks.meeseeks.download import (
    OFFICIAL_COMMIT,
    OFFICIAL_REPOSITORY,
    combined_sha256,
    has_data,
)
from proseval.benchmarks.meeseeks.download import download as download_data
from proseval.benchmarks.meeseeks.params import DATA_ENV, default_data_dir
from proseval.benchmarks.meeseeks.rules.coverage import (
    CoverageRow,
    format_coverage_table,
    rule_coverage,
)
from proseval.benchmarks.meeseeks.template import (
    TemplateError,
    data_file_name,
    expand_template,
    load_template,
)
from proseval.kit.cli import console

app = typer.Typer(no_args_is_help=True)  # its help: the summary it is registered with

STATUS_TEXT = {"implemented": "yes", "needs_extra": "yes, needs extra", "unsupported": "no"}


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def coverage_summary(rows: list[CoverageRow]) -> str:
    total = sum(r.occurrences for r in rows)
    implemented = sum(r.occurrences for r in rows if r.implemented)
    ready = sum(r.occurrences for r in rows if r.status == "implemented")
    share = implemented / total * 100 if total else 0.0
    return (
        f"{implemented} of {total} rule sub-questions have a checker ({share:.1f} %); {ready} can run with "
        f"the installed extras; {len({r.label for r in rows})} distinct labels"
    )


def label_table(rows: list[CoverageRow]) -> Table:
    total = sum(r.occurrences for r in rows) or 1
    table = Table(title="Meeseeks rule labels")
    for column in ("label", "dispatcher", "family", "implemented", "occurrences", "% of rule sub-questions"):
        table.add_column(column, justify="right" if column in ("occurrences", "% of rule sub-questions") else "left")
    for row in rows:
        implemented = STATUS_TEXT[row.status] + (f" ({row.extra})" if row.status == "needs_extra" and row.extra else "")
        table.add_row(
            row.label,
            row.dispatcher,
            row.family,
            implemented,
            str(row.occurrences),
            f"{row.occurrences / total * 100:.2f}",
        )
    return table


@app.command()
def download(
    dest: Optional[Path] = typer.Option(
        None, "--dest", help="Target folder (default: the folder proseval looks in when no data folder is given)."
    ),
) -> None:
    """Download the official data files at the pinned commit and check their combined SHA-256."""
    target = (dest or default_data_dir()).expanduser()
    present = has_data(target)
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task(f"{OFFICIAL_REPOSITORY}@{OFFICIAL_COMMIT[:7]}", total=None)
            path = download_data(
                target, progress=lambda done, total: progress.update(task, completed=done, total=total)
            )
    except (OSError, ValueError) as exc:  # the network or the files: the environment must change (exit 1)
        _fail(str(exc), code=1)
    console.print(
        f"Meeseeks data {'already present' if present else 'downloaded'}: {input_root(path)}", highlight=False
    )
    console.print(
        f"verified: combined SHA-256 {combined_sha256(path)} ({OFFICIAL_REPOSITORY} at {OFFICIAL_COMMIT})",
        highlight=False,
    )


@app.command()
def rules(
    data_dir: Optional[Path] = typer.Option(
        None, "--data-dir", help=f"Meeseeks data folder (default: ${DATA_ENV}, else the download folder)."
    ),
    language: Optional[list[str]] = typer.Option(None, "--language", "-l", help="Only these languages. Repeatable."),
    by_family: bool = typer.Option(False, "--by-family", help="One line per rule family instead of per label."),
) -> None:
    """Which rule labels of the data have a checker, with their occurrences."""
    folder = data_dir or Path(os.environ.get(DATA_ENV) or default_data_dir()).expanduser()
    if not has_data(folder):
        _fail(
            f"no Meeseeks data in {folder}: pass --data-dir PATH, set ${DATA_ENV} or run `proseval meeseeks download`"
        )
    try:
        items = load_items(folder, language or None)
    except (MeeseeksDataError, ValueError) as exc:
        _fail(str(exc))
    rows = rule_coverage(items)
    console.print(format_coverage_table(rows) if by_family else label_table(rows))
    console.print(coverage_summary(rows))


@app.command()
def generate(
    template: Path = typer.Option(..., "--template", "-t", help="Item template (JSON).", exists=True, dir_okay=False),
    output: Path = typer.Option(..., "--output", "-o", help="Output JSON file (an array of items)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Keep at most this many combinations."),
    seed: Optional[int] = typer.Option(None, "--seed", help="With --limit: a seeded sample of combinations."),
) -> None:
    """Expand an item template into items in the official item schema."""
    try:
        spec = load_template(template)
        items = expand_template(spec, source=str(template), limit=limit, seed=seed)
    except (TemplateError, MeeseeksDataError, ValueError) as exc:
        _fail(str(exc))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(items, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    console.print(
        f"wrote {len(items)} items to {output}; to evaluate them, place the file in a raw_input/ folder "
        f"under a name the loader reads as {spec.language!r}, e.g. {data_file_name(spec.name, spec.language)}"
    )


@app.command("stats")
def stats(
    round_files: list[Path] = typer.Argument(
        ...,
        help="Official per-item round files, in round order (round_1.json round_2.json ...).",
        exists=True,
        dir_okay=False,
    ),
    english: bool = typer.Option(
        False, "--english", help="English capability names (as the official English statistics)."
    ),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for round_N_stats.json files."),
) -> None:
    """Round statistics of an official run, computed from its per-item round files as the official
    statistics code does (with carry-forward of items not re-asked in a later round)."""
    from proseval.benchmarks.meeseeks.metrics import checks_from_sub_questions
    from proseval.benchmarks.meeseeks.report import rounds_report

    rounds, ids = [], []
    for path in round_files:
        try:
            items = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(items, list):
                raise ValueError("expected a JSON list of items")
            processed = {}
            for index, item in enumerate(items):
                key = item.get("og_question") or item.get("question")
                processed[key] = checks_from_sub_questions(item["sub_questions"], where=f"{path} item {index}")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            _fail(f"{path}: {exc}")
        ids += [key for key in processed if key not in ids]
        rounds.append(processed)
    table = Table(title="Meeseeks statistics (official counting, carry-forward)", title_justify="left")
    for column in ("round", "items", "meeseeks_score", "utility_score"):
        table.add_column(column, justify="right")
    for entry in rounds_report(rounds, ids, english=english):
        official = entry["official"]
        table.add_row(
            str(official["round"]),
            str(official["total_items"]),
            f"{official['meeseeks_score']:.6f}",
            f"{official['utility_score']:.6f}",
        )
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            (out / f"round_{official['round']}_stats.json").write_text(
                json.dumps(official, ensure_ascii=False, indent=4), encoding="utf-8"
            )
    console.print(table)

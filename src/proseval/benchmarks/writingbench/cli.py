"""`proseval writingbench ...`: data download, criteria for your own queries, SFT data curation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from proseval import cli as main_cli
from proseval.benchmarks.writingbench import data as wb_data
from proseval.benchmarks.writingbench.params import default_data_dir
from proseval.benchmarks.writingbench.userdata import criteria_output, histogram, read_lines, select_top
from proseval.runtime.runlog import RunFolder
from proseval.runtime.runner import RunOptions

app = typer.Typer(help="WritingBench tools: download the data, write criteria, curate training data.",
                  no_args_is_help=True)

InOpt = typer.Option(..., "--in", help="Input JSON Lines file.", exists=True, dir_okay=False)
OutOpt = typer.Option(..., "--output", "-o", help="Output JSON Lines file.")
RunsOpt = typer.Option(Path("runs"), "--runs", help="Folder for the run folder (resumable, cached).")


def _request(role: Optional[list[str]], base_url: Optional[list[str]], concurrency: Optional[int]):
    return main_cli._safe(lambda: main_cli._role_request({}, None, role, base_url, None, concurrency, None, None))


def _records_in_input_order(folder: RunFolder, in_file: Path) -> list:
    records = {r.id.split("/", 1)[1]: r for r in folder.iter_records()}
    return [records[key] for key, _ in read_lines(in_file) if key in records]


@app.command()
def download(dest: Path = typer.Option(None, "--dest", help="Target folder (default: the folder proseval "
                                                            "looks in by default).")) -> None:
    """Download the official query files at the pinned commit and check their SHA-256."""
    target = dest or default_data_dir()
    try:
        path = wb_data.download(target)
    except (OSError, ValueError) as exc:
        main_cli._fail(str(exc))
    main_cli.console.print(f"WritingBench data ready in {path}")


@app.command()
def criteria(
    in_file: Path = InOpt,
    output: Path = OutOpt,
    role: Optional[list[str]] = typer.Option(None, "--role", "-r", help="criteria=PROVIDER/MODEL (the model "
                                             "that writes the criteria)."),
    base_url: Optional[list[str]] = main_cli.BaseUrlOpt,
    concurrency: Optional[int] = main_cli.ConcurrencyOpt,
    runs: Path = RunsOpt,
    display: Optional[str] = main_cli.DisplayOpt,
) -> None:
    """Write five query-specific criteria (name, description, five score bands) for each query.

    The output keeps every input field and adds `checklist`; use it with
    `proseval run writingbench --queries OUTPUT` to evaluate models on your own prompts.
    """
    options = RunOptions(out_dir=runs, display=main_cli._display(display))
    folder, results = main_cli.execute("writingbench-criteria", {"in_file": str(in_file)},
                                       _request(role, base_url, concurrency), options)
    text, failed = criteria_output(_records_in_input_order(folder, in_file))
    output.write_text(text, encoding="utf-8")
    main_cli.console.print(f"wrote {output}: {results.counts.finished - failed} queries with criteria, "
                           f"{failed} without (see criteria_error); run folder {folder.path}")


@app.command()
def curate(
    in_file: Path = InOpt,
    output: Path = OutOpt,
    keep: float = typer.Option(0.5, "--keep", min=0.0, max=1.0, help="Fraction of scored pairs to keep."),
    judge_mode: str = typer.Option("per-criterion", "--judge-mode", help="per-criterion or batched."),
    role: Optional[list[str]] = typer.Option(None, "--role", "-r", help="criteria=... and judge=... bindings."),
    base_url: Optional[list[str]] = main_cli.BaseUrlOpt,
    concurrency: Optional[int] = main_cli.ConcurrencyOpt,
    runs: Path = RunsOpt,
    display: Optional[str] = main_cli.DisplayOpt,
) -> None:
    """Keep the best-scoring instruction/response pairs (the WritingBench data-filtering recipe).

    Criteria are written for each instruction, the judge scores the response against them,
    and the top `--keep` fraction by mean score is written out. Pairs that could not be
    scored are counted and never kept.
    """
    options = RunOptions(out_dir=runs, display=main_cli._display(display))
    folder, results = main_cli.execute("writingbench-curate", {"in_file": str(in_file), "judge_mode": judge_mode},
                                       _request(role, base_url, concurrency), options)
    scored = []
    for record in _records_in_input_order(folder, in_file):
        score = record.scores.get("writingbench")
        value = score.value if (record.status == "ok" and score is not None) else None
        scored.append((dict(record.target or {}), value))
    kept, unscored = select_top(scored, keep)
    output.write_text("".join(json.dumps({**r, "writingbench_score": s}, ensure_ascii=False) + "\n"
                              for r, s in kept), encoding="utf-8")
    table = Table(title="Score distribution (mean over criteria)", title_justify="left")
    table.add_column("score")
    table.add_column("pairs", justify="right")
    for label, count in histogram([s for _, s in scored if s is not None]):
        table.add_row(label, str(count))
    main_cli.console.print(table)
    threshold = f"{kept[-1][1]:.2f}" if kept else "—"
    main_cli.console.print(f"kept {len(kept)} of {len(scored) - unscored} scored pairs (score >= {threshold}); "
                           f"{unscored} unscored pairs left out; wrote {output}; run folder {folder.path}")

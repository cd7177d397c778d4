"""`proseval writingbench ...`: data download, criteria for your own queries, SFT data curation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from proseval import kit
from proseval.benchmarks.writingbench import data as wb_data
from proseval.benchmarks.writingbench.aggregate_official import official_table
from proseval.benchmarks.writingbench.export import official_table_to_csv
from proseval.benchmarks.writingbench.params import data_folder, default_data_dir
from proseval.benchmarks.writingbench.scorefile import ResponseRecord, ScoreLine, load_score_dir, to_json_lines
from proseval.benchmarks.writingbench.userdata import criteria_output, histogram, read_lines, select_top

app = typer.Typer(no_args_is_help=True)  # its help: the summary it is registered with

InOpt = typer.Option(..., "--in", help="Input JSON Lines file.", exists=True, dir_okay=False)
OutOpt = typer.Option(..., "--output", "-o", help="Output JSON Lines file.")
RunsOpt = typer.Option(Path("runs"), "--runs", help="Folder for the run folder (resumable, cached).")


def _request(role: Optional[list[str]], base_url: Optional[list[str]], concurrency: Optional[int]):
    return kit.cli.checked(lambda: kit.cli.role_request({}, None, role, base_url, None, concurrency, None, None))


def _records_in_input_order(folder: kit.runs.RunFolder, in_file: Path) -> list:
    records = {r.id.split("/", 1)[1]: r for r in folder.iter_records()}
    return [records[key] for key, _ in read_lines(in_file) if key in records]


@app.command()
def download(
    dest: Path = typer.Option(None, "--dest", help="Target folder (default: the folder proseval looks in by default)."),
) -> None:
    """Download the official query files at the pinned commit and check their SHA-256."""
    target = dest or default_data_dir()
    try:
        path = wb_data.download(target)
    except (OSError, ValueError) as exc:  # the network or the files: the environment must change (exit 1)
        kit.cli.fail(str(exc), code=1)
    kit.cli.console.print(f"WritingBench data ready in {path}")


@app.command()
def criteria(
    in_file: Path = InOpt,
    output: Path = OutOpt,
    role: Optional[list[str]] = typer.Option(
        None, "--role", "-r", help="criteria=PROVIDER/MODEL (the model that writes the criteria)."
    ),
    base_url: Optional[list[str]] = kit.cli.BaseUrlOpt,
    concurrency: Optional[int] = kit.cli.ConcurrencyOpt,
    runs: Path = RunsOpt,
    display: Optional[str] = kit.cli.DisplayOpt,
) -> None:
    """Write five query-specific criteria (name, description, five score bands) for each query.

    The output keeps every input field and adds `checklist`; use it with
    `proseval run writingbench --queries OUTPUT` to evaluate models on your own prompts.
    """
    options = kit.cli.RunOptions(out_dir=runs, display=kit.cli.display_mode(display))
    folder, results = kit.cli.execute(
        "writingbench-criteria", {"in_file": str(in_file)}, _request(role, base_url, concurrency), options
    )
    text, failed = criteria_output(_records_in_input_order(folder, in_file))
    output.write_text(text, encoding="utf-8")
    kit.cli.console.print(
        f"wrote {output}: {results.counts.finished - failed} queries with criteria, "
        f"{failed} without (see criteria_error); run folder {folder.path}"
    )


@app.command()
def curate(
    in_file: Path = InOpt,
    output: Path = OutOpt,
    keep: float = typer.Option(0.5, "--keep", min=0.0, max=1.0, help="Fraction of scored pairs to keep."),
    judge_mode: str = typer.Option("per-criterion", "--judge-mode", help="per-criterion or batched."),
    role: Optional[list[str]] = typer.Option(None, "--role", "-r", help="criteria=... and judge=... bindings."),
    base_url: Optional[list[str]] = kit.cli.BaseUrlOpt,
    concurrency: Optional[int] = kit.cli.ConcurrencyOpt,
    runs: Path = RunsOpt,
    display: Optional[str] = kit.cli.DisplayOpt,
) -> None:
    """Keep the best-scoring instruction/response pairs (the WritingBench data-filtering recipe).

    Criteria are written for each instruction, the judge scores the response against them,
    and the top `--keep` fraction by mean score is written out. Pairs that could not be
    scored are counted and never kept.
    """
    options = kit.cli.RunOptions(out_dir=runs, display=kit.cli.display_mode(display))
    folder, results = kit.cli.execute(
        "writingbench-curate",
        {"in_file": str(in_file), "judge_mode": judge_mode},
        _request(role, base_url, concurrency),
        options,
    )
    scored = []
    for record in _records_in_input_order(folder, in_file):
        score = record.scores.get("writingbench")
        value = score.value if (record.status == "ok" and score is not None) else None
        scored.append((dict(record.target or {}), value))
    kept, unscored = select_top(scored, keep)
    output.write_text(
        "".join(json.dumps({**r, "writingbench_score": s}, ensure_ascii=False) + "\n" for r, s in kept),
        encoding="utf-8",
    )
    table = Table(title="Score distribution (mean over criteria)", title_justify="left")
    table.add_column("score")
    table.add_column("pairs", justify="right")
    for label, count in histogram([s for _, s in scored if s is not None]):
        table.add_row(label, str(count))
    kit.cli.console.print(table)
    threshold = f"{kept[-1][1]:.2f}" if kept else "—"
    kit.cli.console.print(
        f"kept {len(kept)} of {len(scored) - unscored} scored pairs (score >= {threshold}); "
        f"{unscored} unscored pairs left out; wrote {output}; run folder {folder.path}"
    )


@app.command()
def export(
    run_dir: Path = typer.Argument(..., help="A writingbench run folder."),
    scores: Path = typer.Option(..., "--scores", help="Score file to write, in the official format."),
    responses: Optional[Path] = typer.Option(
        None, "--responses", help="Response file to write, in the official format."
    ),
) -> None:
    """Write a run's judge scores (and responses) as official-format files.

    Scored criteria only: unscored ones are left out of the score lines and counted.
    """
    folder = kit.runs.RunFolder(run_dir)
    lines, response_lines, left_out = [], [], 0
    for record in folder.iter_records():
        if record.status != "ok" or "index" not in record.metadata:
            continue
        index = int(record.metadata["index"])
        if record.state is not None:
            response_lines.append(ResponseRecord(index=index, response=record.state.output))
        criteria = record.scores["writingbench"].metadata.get("criteria", {}) if "writingbench" in record.scores else {}
        judged = {
            name: [{"score": entry["score"], "reason": entry.get("reason") or ""}]
            for name, entry in criteria.items()
            if entry.get("score") is not None
        }
        left_out += len(criteria) - len(judged)
        if judged:
            lines.append(ScoreLine(index=index, scores=judged))
    lines.sort(key=lambda line: line.index)
    scores.write_text(to_json_lines(lines), encoding="utf-8")
    if responses is not None:
        responses.write_text(to_json_lines(sorted(response_lines, key=lambda r: r.index)), encoding="utf-8")
    kit.cli.console.print(f"wrote {len(lines)} score lines to {scores}; {left_out} unscored criteria left out")


@app.command("official-table")
def official_table_cmd(
    score_dir: Path = typer.Option(
        ..., "--score-dir", help="Folder of official-format score files (one per model).", exists=True, file_okay=False
    ),
    data_dir: Optional[Path] = typer.Option(
        None,
        "--data-dir",
        help="benchmark_query/ folder (default: $PROSEVAL_WRITINGBENCH_DIR, else the download folder).",
    ),
    output: Path = typer.Option(..., "--output", "-o", help="CSV file to write."),
    verify: bool = typer.Option(True, "--verify/--no-verify", help="Check the data files' SHA-256."),
) -> None:
    """The official aggregation script's table, reproduced exactly (quirks included), as CSV."""
    try:
        bench = wb_data.load_benchmark(data_folder(data_dir), verify=verify)
        columns, rows = official_table(load_score_dir(score_dir), bench)
    except (OSError, ValueError) as exc:
        kit.cli.fail(str(exc))
    output.write_text(official_table_to_csv(columns, rows), encoding="utf-8")
    kit.cli.console.print(f"wrote {len(rows)} model rows x {len(columns)} columns to {output}")

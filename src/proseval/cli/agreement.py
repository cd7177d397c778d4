"""`proseval agreement RUN...`: can these judges be trusted? Agreement, consistency, bias, cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..commandline.console import console, fail, run_folders
from ..core.prices import read_prices
from ..models.base import SEED_MAX
from ..reliability.analysis import analyse
from ..reliability.labels import read_labels
from ..reliability.render import print_analysis
from ..runtime.runlog import write_json_atomic

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command("agreement")
def agreement_cmd(
    run_dirs: list[Path] = typer.Argument(
        ...,
        help="Run folders that judged the same answers: a run, its re-scores "
        "with other judges (proseval score --role judge=...), its repeats "
        "(proseval score --repeats N); runs of several candidates for rankings.",
    ),
    labels: Optional[Path] = typer.Option(
        None,
        "--labels",
        help="Human labels (JSON Lines or CSV: sample_id, "
        "epoch, criterion, score or preference, rater; see proseval docs judging-judges).",
    ),
    prices: Optional[Path] = typer.Option(
        None,
        "--prices",
        help="YAML prices per million tokens, for the price per "
        "1,000 ratings (see proseval docs judging-judges); nothing is fetched.",
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Folder for results.json (and report.html) of the analysis."
    ),
    output_json: Optional[Path] = typer.Option(None, "--json", help="Also write the analysis as JSON to this file."),
    seed: int = typer.Option(0, "--seed", min=0, max=SEED_MAX, help="Seed of the bootstrap confidence intervals."),
    panel: str = typer.Option(
        "mean",
        "--panel-score",
        help="How an item's panel score is made from the verdicts of the judges that scored it: mean or median.",
    ),
    data_dir: Optional[Path] = typer.Option(
        None,
        "--data-dir",
        help="The benchmark's data folder, for runs made "
        "before runs recorded their judges' verdicts (their task is built again "
        "to read them); newer runs need no data.",
    ),
) -> None:
    """Judge the judges: agreement between judges and with human labels, consistency across repeats,
    length bias, position flips, self-preference, panels, unscored rate, tokens, price and time per
    1,000 ratings."""
    if len({p.resolve() for p in run_dirs}) != len(run_dirs):
        fail("a run folder is given twice")
    run_dirs = run_folders(run_dirs)
    for path in run_dirs:
        if not (path / "header.json").is_file():
            fail(f"{path} is not a run folder (no header.json)")
    if panel not in ("mean", "median"):
        fail(f"--panel-score must be mean or median, not {panel!r}")
    label_set = read_labels(labels) if labels is not None else None
    price_list = read_prices(prices) if prices is not None else None
    with console.status("reading the runs' verdicts"):
        analysis = analyse(run_dirs, labels=label_set, prices=price_list, seed=seed, panel=panel, data_dir=data_dir)
    print_analysis(analysis, console)
    text = analysis.model_dump_json(indent=2)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(out / "results.json", text)
        written = [out / "results.json"]
        if analysis.panel_items:
            write_json_atomic(
                out / "panel.jsonl", "".join(item.model_dump_json() + "\n" for item in analysis.panel_items)
            )
            written.append(out / "panel.jsonl")
        try:
            from ..report.judges import write_analysis_page
        except ImportError:
            pass  # the HTML page needs proseval[report]; results.json is written either way
        else:
            write_analysis_page(analysis, out / "report.html")
            written.append(out / "report.html")
        console.print("wrote " + ", ".join(str(p) for p in written), highlight=False)
    if output_json is not None:
        output_json.write_text(json.dumps(json.loads(text), indent=2, ensure_ascii=False), encoding="utf-8")

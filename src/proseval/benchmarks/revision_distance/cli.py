"""`proseval revision-distance ...`: the stability check, the perturber on its own, drafts from a run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from proseval import kit
from proseval.benchmarks.revision_distance.data import DataError, read_drafts
from proseval.benchmarks.revision_distance.export import drafts_of
from proseval.benchmarks.revision_distance.perturb import perturb

app = typer.Typer(no_args_is_help=True)  # its help: the summary it is registered with

DraftsOpt = typer.Option(..., "--drafts", help="JSON Lines file of drafts.", exists=True, dir_okay=False)
SeedOpt = typer.Option(0, "--seed", help="Seed of the word substitutions.")
RateOpt = typer.Option(
    0.05, "--rate", min=0.0, max=1.0, help="Share of each draft's words to substitute (at least one)."
)


@app.command()
def stability(
    drafts: Path = DraftsOpt,
    refs: Optional[Path] = typer.Option(
        None, "--refs", help="JSON Lines file of references (id, reference).", exists=True, dir_okay=False
    ),
    setting: str = typer.Option("general", "--setting", help="general, knowledge or reference-free."),
    seed: int = SeedOpt,
    rate: float = RateOpt,
    variants: int = typer.Option(
        4,
        "--variants",
        min=1,
        max=20,
        help="Perturbed copies per draft (seeds seed .. seed + variants - 1); App. H perturbs its text four ways.",
    ),
    structured: bool = typer.Option(
        False, "--structured", help="Ask the reviser for schema-checked JSON (response_format)."
    ),
    attempts: int = typer.Option(
        1, "--attempts", min=1, max=5, help="Asks per text until the reply holds a list of edits."
    ),
    role: Optional[list[str]] = typer.Option(
        None, "--role", "-r", help="reviser=PROVIDER/MODEL (default: the embedded model, a demonstration)."
    ),
    gen: Optional[list[str]] = kit.cli.GenOpt,
    prompt: Optional[list[str]] = kit.cli.PromptOpt,
    base_url: Optional[list[str]] = kit.cli.BaseUrlOpt,
    concurrency: Optional[int] = kit.cli.ConcurrencyOpt,
    runs: Path = typer.Option(Path("runs"), "--runs", help="Folder for the run folder (resumable, cached)."),
    display: Optional[str] = kit.cli.DisplayOpt,
) -> None:
    """App. H's check: revise each draft and several copies of it (four by default) with a few seeded,
    meaning-preserving word substitutions; report how far the distance moves.

    A stable metric barely moves: the table gives the spread of the distance over each draft's
    copies, the mean absolute change in edits from the original and the share of copies whose
    distance is unchanged (with 95% intervals), and the drafts left out because none of their
    words can be substituted without a risk of changing the meaning.
    """
    params = {
        "drafts": str(drafts),
        "setting": setting,
        "perturb_seed": seed,
        "rate": rate,
        "variants": variants,
        "structured": structured,
        "attempts": attempts,
        **({"refs": str(refs)} if refs else {}),
    }
    request = kit.cli.checked(lambda: kit.cli.role_request({}, None, role, base_url, None, concurrency, None, gen))
    options = kit.cli.RunOptions(out_dir=runs, display=kit.cli.display_mode(display))
    folder, results = kit.cli.execute(
        "revision-distance-stability", params, request, options, prompts=kit.cli.prompt_files(prompt, {})
    )
    kit.cli.report_run(folder, results)


@app.command("perturb")
def perturb_cmd(
    drafts: Path = DraftsOpt,
    output: Path = typer.Option(..., "--output", "-o", help="JSON Lines file to write (id, draft, substitutions)."),
    seed: int = SeedOpt,
    rate: float = RateOpt,
) -> None:
    """Write the perturbed drafts the stability check would revise, to inspect them."""
    try:
        rows = read_drafts(drafts)
    except DataError as exc:
        kit.cli.fail(str(exc))
    lines, unchanged = [], 0
    for row in rows:
        changed = perturb(row.draft, seed=seed, rate=rate, key=row.id)
        unchanged += not changed.substitutions
        lines.append(
            json.dumps(
                {"id": row.id, "draft": changed.text, "substitutions": [list(p) for p in changed.substitutions]},
                ensure_ascii=False,
            )
        )
    output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    kit.cli.console.print(
        f"wrote {output}: {len(rows) - unchanged} drafts perturbed, {unchanged} without a word safe to substitute"
    )


@app.command("drafts")
def drafts_cmd(
    run_dir: Path = typer.Argument(
        ..., help="A run folder (any task): its answers become the drafts.", exists=True, file_okay=False
    ),
    output: Path = typer.Option(
        ...,
        "--output",
        "-o",
        help="JSON Lines file to write (id, draft, instruction, reference when the sample has one).",
    ),
) -> None:
    """Write a run's candidate answers as a drafts file for `proseval run revision-distance --drafts`."""
    try:
        folder = kit.runs.RunFolder(run_dir)
        folder.read_header()  # a run folder, or a clear error
        exported = drafts_of(folder.iter_records())
    except kit.runs.RunFolderError as exc:
        kit.cli.fail(str(exc))
    if not exported.rows:
        kit.cli.fail(f"{run_dir}: no finished sample with a non-empty answer")
    output.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in exported.rows), encoding="utf-8")
    with_reference = sum("reference" in row for row in exported.rows)
    kit.cli.console.print(
        f"wrote {output}: {len(exported.rows)} drafts ({with_reference} with a reference); "
        f"left out {exported.failed} failed and {exported.empty} empty answers"
    )

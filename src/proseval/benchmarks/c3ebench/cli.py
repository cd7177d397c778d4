"""`proseval c3ebench construct`: build C3EBench items from your own texts."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from proseval import kit

app = typer.Typer(no_args_is_help=True)  # its help: the summary it is registered with


@app.command()
def construct(
    in_file: Path = typer.Option(
        ...,
        "--in",
        help="JSON Lines of texts: text, and optionally id, language (en/zh), genre, tasks.",
        exists=True,
        dir_okay=False,
    ),
    output: Path = typer.Option(
        ..., "--output", "-o", help="Items file to write (load it with proseval run c3ebench --data-file FILE)."
    ),
    task: Optional[str] = typer.Option(
        None, "--task", help="Item types to build (comma-separated; default: all four: cloze, expand, edit, end2end)."
    ),
    role: Optional[list[str]] = typer.Option(None, "--role", "-r", help="builder=PROVIDER/MODEL."),
    structured: bool = typer.Option(
        False,
        "--structured",
        help="Ask the builder's endpoint for JSON of each "
        "step's shape (response_format json_schema) where a step answers in JSON.",
    ),
    base_url: Optional[list[str]] = kit.cli.BaseUrlOpt,
    concurrency: Optional[int] = kit.cli.ConcurrencyOpt,
    gen: Optional[list[str]] = kit.cli.GenOpt,
    prompt: Optional[list[str]] = kit.cli.PromptOpt,
    runs: Path = typer.Option(Path("runs"), "--runs", help="Folder for the run folder (resumable, cached)."),
    display: Optional[str] = kit.cli.DisplayOpt,
) -> None:
    """Turn each text into Cloze, Expand, Edit and End2End items; report every item that failed a check."""
    request = kit.cli.checked(lambda: kit.cli.role_request({}, None, role, base_url, None, concurrency, None, gen))
    from proseval.benchmarks.c3ebench.construct import read_texts, to_jsonl
    from proseval.benchmarks.c3ebench.params import ConstructParams

    params = {"in_file": str(in_file), **({"task": task} if task else {}), "structured": structured}
    texts = kit.cli.checked(
        lambda: read_texts(in_file.read_bytes(), str(in_file), ConstructParams.model_validate(params).task)
    )
    options = kit.cli.RunOptions(out_dir=runs, display=kit.cli.display_mode(display))
    folder, _ = kit.cli.execute(
        "c3ebench-construct", params, request, options, prompts=kit.cli.prompt_files(prompt, {})
    )
    records = {r.id.removeprefix("construct/"): r for r in folder.iter_records()}
    items, rejected = [], []
    for text_id in (text.id for text in texts):
        record = records.get(text_id)
        if record is None:
            rejected.append(
                {
                    "text_id": text_id,
                    "task": "*",
                    "reason": f"not built (the run stopped early; resume it with proseval resume {folder.path})",
                }
            )
            continue
        if record.status != "ok" or record.state is None:
            rejected.append({"text_id": text_id, "task": "*", "reason": f"request failed: {record.error}"})
            continue
        items += record.state.metadata.get("items", [])
        rejected += [{"text_id": text_id, **r} for r in record.state.metadata.get("rejected", [])]
    output.write_text(to_jsonl(items), encoding="utf-8")
    report = output.with_name(output.name + ".rejected.jsonl")
    report.write_text(to_jsonl(rejected), encoding="utf-8")
    for entry in rejected:
        kit.cli.console.print(f"rejected {entry['text_id']} {entry['task']}: {entry['reason']}", highlight=False)
    kit.cli.console.print(
        f"wrote {len(items)} items to {output}; {len(rejected)} rejected (reasons in {report}); "
        f"run folder {folder.path}",
        highlight=False,
    )
    failed = sum(1 for entry in rejected if entry["task"] == "*")
    if failed:  # requests that failed or texts not built: retryable, as a run with failed samples
        kit.cli.fail(
            f"{failed} of {len(texts)} texts were not built (their requests failed or the run stopped): "
            f"continue with proseval resume {folder.path} --retry-failed, then run this command again",
            code=4,
        )
    if not items:
        kit.cli.fail(f"no item passed its checks: {output} is empty (the reasons are in {report})", code=1)

"""`proseval generate longweave`: the generated LongWeave samples as JSON Lines."""

from __future__ import annotations

from pathlib import Path

import typer
from pydantic import ValidationError

from proseval.benchmarks.longweave.generators import generate as generate_sample
from proseval.benchmarks.longweave.params import LongWeaveParams
from proseval.kit import describe_validation_error
from proseval.kit.cli import console, fail


def generate(
    task: str = typer.Option(
        ..., "--task", "-t", help="cf, biog, sr, nw, kvg, sms or pr (comma-separated for several)."
    ),
    length: str = typer.Option(..., "--length", "-l", help="1k, 2k, 4k or 8k (comma-separated for several)."),
    n: int = typer.Option(200, "-n", "--samples", min=1, help="Samples per task x length."),
    seed: int = typer.Option(0, "--seed", help="Generator seed (0 reproduces the official KVG/SMS instances)."),
    start: int = typer.Option(0, "--start", min=0, help="First sample index."),
    output: Path = typer.Option(..., "--output", "-o", help="Output JSON Lines file."),
) -> None:
    """Generate LongWeave samples: one JSON object per line (id, input, target, metadata)."""
    try:
        params = LongWeaveParams.model_validate({"task": task, "length": length})  # comma lists, split by the model
    except ValidationError as exc:
        fail(describe_validation_error(exc, task="longweave"))
    count = 0
    with output.open("w", encoding="utf-8") as handle:
        for name in params.task:
            for size in params.length:
                for index in range(start, start + n):
                    handle.write(generate_sample(name, size, index, seed).model_dump_json() + "\n")
                    count += 1
    console.print(f"wrote {count} samples to {output}", markup=False, highlight=False, soft_wrap=True)

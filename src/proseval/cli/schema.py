"""`proseval schema`: the JSON Schemas of the run-folder files and of the judges' analysis."""

from __future__ import annotations

from pathlib import Path

import typer
from pydantic import BaseModel

from ..commandline.console import console
from ..reliability.card import Analysis
from ..runtime.schema import SCHEMAS, export_schemas

ALL_SCHEMAS: dict[str, type[BaseModel]] = {**SCHEMAS, "agreement.schema.json": Analysis}


app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command()
def schema(
    out: Path = typer.Option(Path("docs/schema"), "--out", "-o", help="Folder to write the schemas to."),
) -> None:
    """Write the JSON Schemas of header.json, samples.jsonl records, results.json and of the
    results.json of proseval agreement."""
    for path in export_schemas(out, ALL_SCHEMAS):
        console.print(f"wrote {path}")

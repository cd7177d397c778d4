"""`proseval schema`: the JSON Schemas of the run-folder files."""

from __future__ import annotations

from pathlib import Path

import typer

from ..commandline.console import console
from .app import app


@app.command()
def schema(out: Path = typer.Option(Path("docs/schema"), "--out", "-o", help="Folder to write the schemas to.")) -> None:
    """Write the JSON Schemas of header.json, samples.jsonl records and results.json."""
    from ..runtime.schema import export_schemas

    for path in export_schemas(out):
        console.print(f"wrote {path}")

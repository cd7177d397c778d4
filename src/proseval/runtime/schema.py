"""JSON Schemas of the run folder's files, exported to docs/schema/ for users of the logs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from .records import Results, RunHeader, SampleRecord

SCHEMAS: dict[str, type[BaseModel]] = {
    "header.schema.json": RunHeader,
    "sample_record.schema.json": SampleRecord,
    "results.schema.json": Results,
}


def render_schemas(models: Mapping[str, type[BaseModel]] = SCHEMAS) -> dict[str, str]:
    return {
        name: json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n" for name, model in models.items()
    }


def export_schemas(directory: Path, models: Mapping[str, type[BaseModel]] = SCHEMAS) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_schemas(models).items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written

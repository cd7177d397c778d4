"""The official interchange files: responses (``{"index", "response"}``) and judge scores.

A score file has one line per judged query::

    {"index": 7, "scores": {"<criterion name>": [{"score": 8, "reason": "..."}, ...], ...}}

Each list holds one judge object per evaluation, exactly as the judge returned it. proseval
reads and writes both formats unchanged so that results can be exchanged with the official
scripts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proseval.benchmarks.writingbench.jsonl import DataFormatError, describe_validation_error, iter_json_objects


class ResponseRecord(BaseModel):
    """One candidate response in the official response-file format."""

    model_config = ConfigDict(frozen=True, strict=True)

    index: int = Field(ge=1)
    response: str


class ScoreLine(BaseModel):
    """One line of an official score file (judge objects kept as written)."""

    model_config = ConfigDict(frozen=True, strict=True)

    index: int
    scores: dict[str, list[dict[str, Any]]]


def _parse(raw: bytes, source: str, model: type[BaseModel]) -> list[Any]:
    records = []
    for line, obj in iter_json_objects(raw, source):
        try:
            records.append(model.model_validate(obj))
        except ValidationError as exc:
            raise DataFormatError(f"{source}:{line}: {describe_validation_error(exc, one_line=True)}") from exc
    return records


def parse_response_file(raw: bytes, source: str) -> list[ResponseRecord]:
    """Parse a response file; an index may appear only once."""
    records: list[ResponseRecord] = _parse(raw, source, ResponseRecord)
    seen: set[int] = set()
    for line, record in enumerate(records, start=1):
        if record.index in seen:
            raise DataFormatError(f"{source}:{line}: duplicate index {record.index}")
        seen.add(record.index)
    return records


def parse_score_file(raw: bytes, source: str) -> list[ScoreLine]:
    """Parse a score file, keeping every line (duplicates included) in file order.

    Every judge object must carry a numeric ``score``; whether it is a valid 1–10 score is
    decided later, by the aggregation that reads it.
    """
    lines: list[ScoreLine] = _parse(raw, source, ScoreLine)
    for number, line in enumerate(lines, start=1):
        for name, evaluations in line.scores.items():
            for evaluation in evaluations:
                value = evaluation.get("score")
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise DataFormatError(f"{source}:{number}: criterion {name!r}: score {value!r} is not a number")
    return lines


def to_json_lines(records: Sequence[ResponseRecord | ScoreLine]) -> str:
    """Write records the way the official scripts do: one JSON object per line, raw UTF-8, LF."""
    return "".join(json.dumps(record.model_dump(), ensure_ascii=False) + "\n" for record in records)


def load_score_file(path: str | os.PathLike[str]) -> list[ScoreLine]:
    path = Path(path)
    return parse_score_file(path.read_bytes(), str(path))


def load_score_dir(path: str | os.PathLike[str]) -> list[tuple[str, list[ScoreLine]]]:
    """Every ``*.jsonl`` score file in a folder as ``(model name = file stem, lines)``, sorted by name."""
    return [(file.stem, load_score_file(file)) for file in sorted(Path(path).glob("*.jsonl"))]

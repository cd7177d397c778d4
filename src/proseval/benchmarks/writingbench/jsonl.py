"""Strict JSON Lines reading shared by the data and score-file loaders."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError


class DataFormatError(ValueError):
    """A data, score or response file is malformed; the message names the file and line."""


def iter_json_objects(raw: bytes, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each line of a JSON Lines byte string.

    Strict: UTF-8 without a byte-order mark, one JSON object per line, no blank lines
    (a single final newline is expected but not required). Lines may end in CRLF
    (the official ``benchmark_all.jsonl`` does); the ``\\r`` is removed before decoding.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raise DataFormatError(f"{source}:1: file starts with a UTF-8 byte-order mark")
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            raise DataFormatError(f"{source}:{number}: empty line")
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataFormatError(f"{source}:{number}: not valid UTF-8 ({exc.reason})") from exc
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"{source}:{number}: invalid JSON ({exc.msg} at column {exc.colno})") from exc
        if not isinstance(value, dict):
            raise DataFormatError(f"{source}:{number}: expected a JSON object, got {type(value).__name__}")
        yield number, value


def describe_validation_error(error: ValidationError) -> str:
    """One-line summary of a pydantic error: ``field.path: message; ...``."""
    parts = []
    for item in error.errors():
        location = ".".join(str(part) for part in item["loc"]) or "record"
        parts.append(f"{location}: {item['msg']}")
    return "; ".join(parts)

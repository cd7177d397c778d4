"""Strict JSON Lines reading shared by the data and score-file loaders (over `proseval.core.jsonl`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from proseval.kit import DataFormatError, describe_validation_error
from proseval.kit import iter_json_objects as read_json_objects

__all__ = ["DataFormatError", "describe_validation_error", "iter_json_objects"]


def iter_json_objects(raw: bytes, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_number, object)`` per line, strictly: no blank lines, no byte-order mark (the
    official files have neither); CRLF line ends are accepted (``benchmark_all.jsonl`` has them)."""
    return read_json_objects(raw, source, blank_lines=False)

"""Reading JSON Lines data files: one object per line, errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..errors import DataError


class DataFormatError(DataError, ValueError):
    """A data file is malformed; the message names the file and line."""


def iter_json_objects(
    raw: bytes, source: str, *, blank_lines: bool = True, byte_order_mark: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each line of a JSON Lines file's bytes.

    UTF-8, one JSON object per line; lines may end in CRLF. `blank_lines`: skip blank lines
    (else each is an error); `byte_order_mark`: accept (and drop) a leading UTF-8 BOM (else an
    error, as a file written with one is usually not what was meant).
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        if not byte_order_mark:
            raise DataFormatError(f"{source}:1: file starts with a UTF-8 byte-order mark")
        raw = raw[3:]
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        line = line.removesuffix(b"\r")
        if not line.strip():
            if blank_lines:
                continue
            raise DataFormatError(f"{source}:{number}: empty line")
        try:
            value = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise DataFormatError(f"{source}:{number}: not valid UTF-8 ({exc.reason})") from None
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"{source}:{number}: invalid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(value, dict):
            raise DataFormatError(f"{source}:{number}: expected a JSON object, got {type(value).__name__}")
        yield number, value

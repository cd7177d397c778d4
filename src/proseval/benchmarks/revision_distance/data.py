"""The user's JSON Lines files: drafts, references and chosen/rejected pairs.

Every line is one JSON object; a malformed line is an error naming ``file:line``.

- drafts: the text under ``draft`` (or ``text`` / ``output`` / ``response``); optional ``id``
  (default: the line number), ``reference`` (or ``ref`` / ``target``) and ``instruction``
  (or ``prompt`` / ``query``), the request the draft answers.
- refs: ``id`` and ``reference`` (or ``ref`` / ``target``); joined to the drafts by id and
  winning over a reference written on the draft's own line.
- pairs: ``chosen`` and ``rejected`` texts; optional ``id``, ``instruction``, ``reference`` and
  human scores ``chosen_score`` / ``rejected_score`` (numbers, for Spearman's ρ).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proseval.kit import DataFormatError, iter_json_objects

DRAFT_KEYS = ("draft", "text", "output", "response")
REFERENCE_KEYS = ("reference", "ref", "target")
INSTRUCTION_KEYS = ("instruction", "prompt", "query")


class DataError(ValueError):
    """A malformed input file; the message names the file and line."""


@dataclass(frozen=True)
class Draft:
    id: str
    draft: str
    reference: str | None = None
    instruction: str = ""


@dataclass(frozen=True)
class Pair:
    id: str
    chosen: str
    rejected: str
    reference: str | None = None
    instruction: str = ""
    chosen_score: float | None = None
    rejected_score: float | None = None


def iter_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) per line; blank lines and a byte-order mark are skipped, anything else
    malformed is a `DataError` naming file:line."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        yield from iter_json_objects(raw, str(path), byte_order_mark=True)
    except DataFormatError as exc:
        raise DataError(str(exc)) from None


def _text(record: dict[str, Any], keys: Sequence[str], where: str, *, required: bool) -> str | None:
    for key in keys:
        if key in record and record[key] is not None:
            if not isinstance(record[key], str):
                raise DataError(f"{where}: {key!r} must be a string, got {type(record[key]).__name__}")
            if record[key].strip():
                return record[key]
    if required:
        raise DataError(f"{where}: no text under {' / '.join(keys)}")
    return None


def _id(record: dict[str, Any], number: int, where: str, seen: set[str]) -> str:
    value = record.get("id", number)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise DataError(f"{where}: 'id' must be a non-empty string or an integer")
    key = str(value).strip()
    if key in seen:
        raise DataError(f"{where}: duplicate id {key!r} (ids must be unique)")
    seen.add(key)
    return key


def _score(record: dict[str, Any], key: str, where: str) -> float | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise DataError(f"{where}: {key!r} must be a number, got {value!r}")
    return float(value)


def read_refs(path: Path) -> dict[str, tuple[int, str]]:
    """id → (line, reference)."""
    refs: dict[str, tuple[int, str]] = {}
    seen: set[str] = set()
    for number, record in iter_lines(path):
        where = f"{path}:{number}"
        if "id" not in record:
            raise DataError(f"{where}: a reference line needs an 'id' (the id of its draft)")
        key = _id(record, number, where, seen)
        refs[key] = (number, _text(record, REFERENCE_KEYS, where, required=True) or "")
    if not refs:
        raise DataError(f"{path}: no references")
    return refs


def read_drafts(path: Path, refs: Path | None = None, *, need_reference: bool = False) -> list[Draft]:
    """The drafts, each with its reference (from `refs` or its own line); checked line by line."""
    joined = read_refs(refs) if refs is not None else {}
    drafts: list[Draft] = []
    seen: set[str] = set()
    for number, record in iter_lines(path):
        where = f"{path}:{number}"
        key = _id(record, number, where, seen)
        text = _text(record, DRAFT_KEYS, where, required=True) or ""
        reference = joined[key][1] if key in joined else _text(record, REFERENCE_KEYS, where, required=False)
        if need_reference and reference is None:
            source = f"in {refs} (by id) or " if refs is not None else ""
            raise DataError(
                f"{where}: draft {key!r} has no reference {source}under {' / '.join(REFERENCE_KEYS)}; "
                "this setting compares with a reference (or use --setting reference-free)"
            )
        drafts.append(Draft(key, text, reference, _text(record, INSTRUCTION_KEYS, where, required=False) or ""))
    if not drafts:
        raise DataError(f"{path}: no drafts")
    return drafts


def read_pairs(path: Path, *, need_reference: bool = False) -> list[Pair]:
    pairs: list[Pair] = []
    seen: set[str] = set()
    for number, record in iter_lines(path):
        where = f"{path}:{number}"
        key = _id(record, number, where, seen)
        reference = _text(record, REFERENCE_KEYS, where, required=False)
        if need_reference and reference is None:
            raise DataError(
                f"{where}: pair {key!r} has no reference under {' / '.join(REFERENCE_KEYS)}; "
                "this setting compares with a reference (or use --setting reference-free)"
            )
        pairs.append(
            Pair(
                key,
                _text(record, ("chosen",), where, required=True) or "",
                _text(record, ("rejected",), where, required=True) or "",
                reference,
                _text(record, INSTRUCTION_KEYS, where, required=False) or "",
                _score(record, "chosen_score", where),
                _score(record, "rejected_score", where),
            )
        )
    if not pairs:
        raise DataError(f"{path}: no pairs")
    return pairs

"""Random access to a growing `samples.jsonl`: byte offsets of its complete lines, extended as it grows.

A run appends one line per finished sample while it goes, so the index never reads the file
twice: each refresh scans only the bytes added since the last one, and a half-written last
line (no newline yet) is left out until its newline arrives. A file that shrank, was replaced
(``resume --retry-failed`` rewrites it) or was rewritten in place (the same size with a new
modification time, or no line end where the last indexed line ended) is indexed afresh.
Summaries of the records (the few fields the filters and counts need) are built the same way,
on first demand.
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Scalar = str | int | float | bool
BLOCK = 1 << 20


@dataclass(frozen=True)
class Summary:
    """What the run page's filters and counts read of one record."""

    id: str
    epoch: int
    status: str  # "scored", "unscored" (some score has no value) or "failed" (status error)
    model_failure: str | None
    slices: dict[str, Scalar]
    scores: dict[str, float | None]


def summarize(record: dict[str, Any]) -> Summary:
    scores: dict[str, float | None] = {}
    for name, score in (record.get("scores") or {}).items():
        value = score.get("value") if isinstance(score, dict) else None
        if isinstance(value, dict):
            scores.update({f"{name}.{k}": _number(v) for k, v in value.items()})
        else:
            scores[name] = _number(value)
    state = record.get("state") or {}
    slices = {k: v for k, v in (record.get("metadata") or {}).items() if _is_scalar(v)}
    slices.update({f"state.{k}": v for k, v in (state.get("metadata") or {}).items() if _is_scalar(v)})
    if record.get("status") == "error":
        status = "failed"
    elif any(v is None for v in scores.values()):
        status = "unscored"
    else:
        status = "scored"
    return Summary(
        str(record.get("id", "")), int(record.get("epoch") or 0), status, record.get("model_failure"), slices, scores
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) and not (isinstance(value, str) and len(value) > 200)


@dataclass
class LineIndex:
    """Offsets of the complete, non-blank lines of one JSON Lines file."""

    path: Path
    starts: array = field(default_factory=lambda: array("q"))
    ends: array = field(default_factory=lambda: array("q"))
    scanned: int = 0  # bytes indexed: everything before the first incomplete line
    identity: tuple[int, int] | None = None  # (device, inode) of the file indexed
    seen: tuple[int, int] = (0, 0)  # (size, mtime in ns) at the last refresh
    summaries: list[Summary] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refresh(self) -> int:
        """Index what was appended since the last call; returns the number of lines."""
        with self.lock:
            try:
                stat = self.path.stat()
            except FileNotFoundError:
                self._reset(None)
                return 0
            identity, seen = (stat.st_dev, stat.st_ino), (stat.st_size, stat.st_mtime_ns)
            if seen != self.seen and not self._appended_to(identity, stat.st_size):
                self._reset(identity)
            if stat.st_size > self.scanned:
                self._scan(stat.st_size)
            self.seen = seen
            return len(self.starts)

    def _appended_to(self, identity: tuple[int, int], size: int) -> bool:
        """Whether the file changed only by growing: the same file, no shorter, and still a line end
        where the last indexed line ended (else it was rewritten in place)."""
        if identity != self.identity or size < self.scanned or (size == self.seen[0] and size == self.scanned):
            return False
        if self.scanned == 0:
            return True
        with self.path.open("rb") as handle:
            handle.seek(self.scanned - 1)
            return handle.read(1) == b"\n"

    def _reset(self, identity: tuple[int, int] | None) -> None:
        self.starts, self.ends, self.scanned, self.identity, self.summaries = array("q"), array("q"), 0, identity, []
        self.seen = (0, 0)

    def _scan(self, size: int) -> None:
        """Find the newlines in bytes ``scanned .. size``, a block at a time (memory stays flat)."""
        with self.path.open("rb") as handle:
            handle.seek(self.scanned)
            base, carry = self.scanned, b""
            while base + len(carry) < size:
                block = carry + handle.read(min(BLOCK, size - base - len(carry)))
                position = 0
                while (newline := block.find(b"\n", position)) >= 0:
                    if newline - position > 2 or block[position:newline].strip():
                        self.starts.append(base + position)
                        self.ends.append(base + newline)
                    position = newline + 1
                base, carry = base + position, block[position:]
            self.scanned = base

    def __len__(self) -> int:
        return len(self.starts)

    def read(self, first: int, count: int) -> list[tuple[int, dict[str, Any] | None]]:
        """Lines ``first .. first+count-1`` (0-based) parsed, each with its number; None for an unreadable line."""
        starts, ends = self.starts, self.ends  # one consistent pair, should another request re-index meanwhile
        last = min(len(ends), first + count)
        if first >= last:
            return []
        with self.path.open("rb") as handle:
            handle.seek(starts[first])
            block = handle.read(ends[last - 1] - starts[first])
        base = starts[first]
        return [(n, _parse(block[starts[n] - base : ends[n] - base])) for n in range(first, last)]

    def read_one(self, number: int) -> dict[str, Any] | None:
        found = self.read(number, 1)
        return found[0][1] if found else None

    def summary_list(self) -> list[Summary]:
        """A summary of every indexed line, parsing only the lines not summarized before (streamed)."""
        self.refresh()
        with self.lock:
            done = len(self.summaries)
            total = len(self.starts)
            if done < total:
                with self.path.open("rb") as handle:
                    for number in range(done, total):
                        handle.seek(self.starts[number])
                        record = _parse(handle.read(self.ends[number] - self.starts[number]))
                        self.summaries.append(
                            summarize(record)
                            if record is not None
                            else Summary("(unreadable line)", 0, "failed", None, {}, {})
                        )
            return self.summaries


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class IndexCache:
    """One `LineIndex` per file, kept for the life of the app."""

    def __init__(self) -> None:
        self._indexes: dict[str, LineIndex] = {}
        self._lock = threading.Lock()

    def get(self, path: Path) -> LineIndex:
        key = os.path.realpath(path)
        with self._lock:
            index = self._indexes.get(key)
            if index is None:
                index = self._indexes[key] = LineIndex(Path(key))
        index.refresh()
        return index

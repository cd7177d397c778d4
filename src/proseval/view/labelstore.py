"""The labels of one labelling session, held in memory: the labels file is read once, when the
session opens, and each save appends one item record to it and updates the index, so a save costs
one write and no reading (the file stays what a restart reads).

The index holds, per rater and item, the labels of the rater's latest complete save of the item:
an item record (`reliability.labels.append_item`) replaces the item's labels as a whole, so two
saves of one item (two tabs) never mix; the older format, one line per criterion, is read too,
each line replacing the label of its criterion. Lines written by another process are read when
this one next saves (the append says where its record went, so what came before it is read then).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..reliability.labels import Label, append_item

__all__ = ["LabelStore", "signature"]

Signature = tuple  # what the labels of one item have in common (`signature`)


def signature(label: Label) -> Signature:
    """The item a label belongs to: the pair of runs or the run, the sample and the epoch."""
    if label.preference is not None:
        return ("pair", tuple(sorted((label.a or "", label.b or ""))), label.sample_id, label.epoch)
    return ("run", label.run, label.sample_id, label.epoch)


class LabelStore:
    """The labels of session `session` in the labels file `path`, by rater and item. The session
    refuses a file with malformed lines when it opens (`check_labels_file`, as `proseval agreement`
    does); one another process writes later is counted in `problems` and skipped. A last line
    without its newline (a save a crash cut short) is left unread, and the next append removes it."""

    def __init__(self, path: Path, session: str) -> None:
        self.path = Path(path)
        self.session = session
        self.problems = 0
        self._items: dict[str, dict[Signature, tuple[Label, ...]]] = {}
        self._read = 0  # the bytes of the file indexed so far
        self._lock = threading.Lock()
        with self._lock:
            self._catch_up(None)

    def items(self, rater: str) -> Mapping[Signature, tuple[Label, ...]]:
        """The items `rater` labelled, each with its labels (a copy: saves go on meanwhile)."""
        with self._lock:
            return dict(self._items.get(rater, {}))

    def raters(self) -> list[str]:
        with self._lock:
            return sorted(self._items)

    def save(self, labels: Sequence[Label], item: Mapping[str, Any]) -> None:
        """Append the labels one rater gave one item as one record (`item`: where they came from)."""
        with self._lock:
            start, end = append_item(self.path, labels, item)
            self._catch_up(start)
            self._index(labels, whole=True)
            self._read = end

    def _catch_up(self, end: int | None) -> None:
        """Index the file's complete lines from where indexing stopped to `end` (None: its end)."""
        if end == self._read:
            return
        try:
            with self.path.open("rb") as file:
                file.seek(self._read)
                raw = file.read() if end is None else file.read(end - self._read)
        except FileNotFoundError:
            return
        complete = raw[: raw.rfind(b"\n") + 1]
        for line in complete.split(b"\n"):
            if line.strip():
                self._line(line)
        self._read += len(complete)

    def _line(self, line: bytes) -> None:
        try:
            value = json.loads(line)
            whole = isinstance(value, dict) and "labels" in value
            labels = [Label.model_validate(label) for label in (value["labels"] if whole else [value])]
        except (ValueError, TypeError, ValidationError):
            self.problems += 1
            return
        if labels:
            self._index(labels, whole)

    def _index(self, labels: Sequence[Label], whole: bool) -> None:
        first = labels[0]
        if first.session != self.session:
            return
        items = self._items.setdefault(first.rater, {})
        key = signature(first)
        if whole:
            items[key] = tuple(labels)
        else:  # the older format: one criterion's label replaces that criterion's only
            items[key] = (*(old for old in items.get(key, ()) if old.criterion != first.criterion), first)

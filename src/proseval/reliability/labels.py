"""Human labels: the file people fill in to rate answers, so judges can be compared with them.

A labels file holds one **label** per record: a person's score for one answer, or their
preference between two answers to the same sample. It is JSON Lines (``.jsonl`` or
``.ndjson``: one object per line, UTF-8, blank lines skipped), which the viewer's labelling
mode appends to, or a table exported from a spreadsheet (``.csv``, or ``.tsv`` with tabs).

The fields (the CSV header names the columns: case does not matter, surrounding spaces are
stripped, an empty cell is a missing value; an unknown field or column is refused):

``sample_id``  (required) the sample's id in the run's ``samples.jsonl``; a number is read as text
``epoch``      the epoch of the answer, an integer >= 0 (default 0)
``criterion``  (required) what was rated: a metric such as ``quality``, or a criterion name
``rater``      (required) who rated: non-empty, printable, at most 100 characters (spaces stripped)
``score``      a number in ASCII digits on the scale of what was rated, the rating of one answer — or:
``preference`` ``A``, ``B`` or ``tie`` (any case): which of two answers is better
``run``        (score only, optional) the id or folder name of the run whose answer was rated;
               needed when the answers come from several runs
``a``, ``b``   (preference only, required) the runs whose answers were shown as A and as B
``comment``    optional free text
``labelled_at`` optional ISO-8601 timestamp, e.g. ``2025-03-01T14:03:00+00:00``
``session``    optional: the labelling session the label came from

Each label has exactly one of ``score`` and ``preference``. A leading UTF-8 byte-order mark
(as Excel writes) is dropped. A rater who changes their mind appends a new label: of two
labels with the same rater, run, sample_id, epoch, criterion, a and b, the later one counts.

A JSON Lines file may also hold **item records** (`append_item`, as the viewer's labelling mode
writes them): one line ``{"item": {...}, "labels": [...]}`` holding every label one rater gave
one item, saved in one write, so a crash leaves the item wholly labelled or not at all. Its labels
are read as if each had a line of its own; ``item`` says where they came from (session, position
in the plan, which loaded form) and is not checked. A last line without its newline that is not
JSON is a write cut short by a crash: it is ignored on reading and removed by the next append.

Errors name the file and line (``labels.csv:7: score: not a number ('seven')``); up to 20 are
reported together, so a file can be fixed in one go. A score off the scale its criterion is rated
on (12 on 1-10, 7.5 on whole points) is refused the same way once the runs are read
(`check_scales`).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..core.jsonl import DataFormatError, iter_json_objects
from ..core.ratings import Scale
from ..errors import DataError, MissingDataError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: appends are not locked
    fcntl = None  # type: ignore[assignment]  # no fcntl off POSIX

__all__ = [
    "Label",
    "LabelSet",
    "MatchResult",
    "MatchedLabel",
    "append_item",
    "append_label",
    "check_labels_file",
    "check_scales",
    "match_labels",
    "read_labels",
]

JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
TABLE_DELIMITERS = {".csv": ",", ".tsv": "\t"}
ACCEPTED_SUFFIXES = (*JSON_LINES_SUFFIXES, *TABLE_DELIMITERS)
MAX_ERRORS = 20  # reported in full; the rest are counted
MAX_RATER_LENGTH = 100
BOM = b"\xef\xbb\xbf"


class Label(BaseModel):
    """One person's rating of one answer (`score`) or of a pair of answers (`preference`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sample_id: str
    epoch: int = Field(default=0, ge=0)
    run: str | None = None
    criterion: str
    rater: str
    score: float | None = None
    preference: Literal["A", "B", "tie"] | None = None
    a: str | None = None
    b: str | None = None
    comment: str | None = None
    labelled_at: str | None = None
    session: str | None = None

    @field_validator("sample_id", mode="before")
    @classmethod
    def _number_as_text(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be text or a number, not true/false")
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value) if isinstance(value, int | float) else value

    @field_validator("sample_id", "criterion", "run", "a", "b", "session")
    @classmethod
    def _stripped(cls, value: str | None) -> str | None:
        if value is not None:
            value = value.strip()
            if not value:
                raise ValueError("must not be empty")
        return value

    @field_validator("rater")
    @classmethod
    def _rater(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must not be empty")
        if len(value) > MAX_RATER_LENGTH:
            raise ValueError(f"at most {MAX_RATER_LENGTH} characters (got {len(value)})")
        if not value.isprintable():
            raise ValueError("must be printable (no tabs, line breaks or control characters)")
        return value

    @field_validator("epoch", mode="before")
    @classmethod
    def _epoch(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be a whole number, not true/false")
        return value.strip() if isinstance(value, str) else value

    @field_validator("score", mode="before")
    @classmethod
    def _score(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("not a number (true/false)")
        if isinstance(value, str):
            if not value.isascii():  # float() would read ７ (full-width) or ٧ (Arabic-Indic) as 7
                raise ValueError(f"not a number in ASCII digits ({value!r})")
            try:
                value = float(value.strip())
            except ValueError:
                raise ValueError(f"not a number ({value!r})") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"not a finite number ({value})")
        return value

    @field_validator("preference", mode="before")
    @classmethod
    def _preference(cls, value: Any) -> Any:
        if value is None:
            return None
        choice = {"a": "A", "b": "B", "tie": "tie"}.get(value.strip().lower()) if isinstance(value, str) else None
        if choice is None:
            raise ValueError(f"must be A, B or tie (got {value!r})")
        return choice

    @field_validator("labelled_at")
    @classmethod
    def _timestamp(cls, value: str | None) -> str | None:
        if value is not None:
            value = value.strip()
            try:
                # a final Z (UTC) is spelled out for Python 3.10
                datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value)
            except ValueError:
                raise ValueError(f"not an ISO-8601 timestamp ({value!r})") from None
        return value

    @model_validator(mode="after")
    def _score_or_preference(self) -> Label:
        if self.score is not None and self.preference is not None:
            raise ValueError("give either score or preference, not both")
        if self.score is None and self.preference is None:
            raise ValueError("give a score or a preference (neither is set)")
        if self.score is not None and (self.a is not None or self.b is not None):
            raise ValueError("a and b are for a preference, not with a score (name the run in run)")
        if self.preference is not None:
            if self.a is None or self.b is None:
                raise ValueError("a preference needs a and b (the runs whose answers were shown as A and B)")
            if self.a == self.b:
                raise ValueError(f"a and b must be different runs (both are {self.a!r})")
            if self.run is not None:
                raise ValueError("run is for a score; a preference names its runs in a and b")
        return self

    def key(self) -> tuple[str, str | None, str, int, str, str | None, str | None]:
        """What a later label replaces: (rater, run, sample_id, epoch, criterion, a, b)."""
        return (self.rater, self.run, self.sample_id, self.epoch, self.criterion, self.a, self.b)


FIELDS = tuple(Label.model_fields)


@dataclass
class LabelSet:
    """The labels of one file, the later of two with the same `Label.key` only."""

    labels: list[Label]
    path: Path
    lines: list[int]  # the line of each label in the file
    replaced: int = 0  # labels superseded by a later one with the same key

    def raters(self) -> list[str]:
        return sorted({label.rater for label in self.labels})

    def criteria(self) -> list[str]:
        return sorted({label.criterion for label in self.labels})

    def __len__(self) -> int:
        return len(self.labels)


# reading ---------------------------------------------------------------------------------------
def read_labels(path: Path) -> LabelSet:
    """The labels in `path` (JSON Lines or CSV/TSV, chosen by extension; see the module docstring).

    Raises `MissingDataError` when there is no such file and `DataError` when it has no labels or
    any record is malformed (up to 20 problems listed, each with file and line).
    """
    labels = _read(Path(path))
    if not labels:
        raise DataError(f"{path}: no labels in the file (it is empty)")
    return labels


def check_labels_file(path: Path) -> None:
    """Refuse a labels file that `read_labels` would refuse for a malformed record (the viewer's
    labelling mode checks its file this way when a session opens, so the two read it alike); a
    missing or empty file is fine."""
    if Path(path).is_file():
        _read(Path(path))


def _read(path: Path) -> LabelSet:
    suffix = path.suffix.lower()
    if suffix not in ACCEPTED_SUFFIXES:
        raise DataError(f"{path}: not a labels file: the accepted extensions are {', '.join(ACCEPTED_SUFFIXES)}")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MissingDataError(f"{path}: no such labels file") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read the labels file ({exc.strerror or exc})") from None
    source = str(path)
    if suffix in JSON_LINES_SUFFIXES:
        records = _json_lines(raw, source)
    else:
        records = _table(raw, source, TABLE_DELIMITERS[suffix])

    errors: list[str] = []
    kept: dict[tuple, tuple[Label, int]] = {}
    replaced = 0
    for number, record in records:
        if isinstance(record, str):
            errors.append(record)
            continue
        try:
            label = Label.model_validate(record)
        except ValidationError as exc:
            errors.append(f"{source}:{number}: {_describe(exc)}")
            continue
        key = label.key()
        if key in kept:  # the later label counts, in the later one's place
            del kept[key]
            replaced += 1
        kept[key] = label, number
    if errors:
        raise _problems(path, errors)
    return LabelSet(
        labels=[label for label, _ in kept.values()],
        path=path,
        lines=[line for _, line in kept.values()],
        replaced=replaced,
    )


def _problems(path: Path, errors: Sequence[str]) -> DataError:
    """One error listing the first `MAX_ERRORS` problems of a labels file and counting the rest."""
    shown = "\n  ".join(errors[:MAX_ERRORS])
    more = f"\n  ... and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
    problems = f"{len(errors)} problem{'s' if len(errors) > 1 else ''}"
    return DataError(f"{path}: {problems} in the labels file; fix them and read again:\n  {shown}{more}")


def check_scales(labels: LabelSet, scales: Mapping[str, Collection[Scale]]) -> None:
    """Refuse scores that are on none of the scales their criterion is rated on (`scales`:
    criterion -> the scales of the judges' verdicts), each with its file and line, up to 20 listed.
    A criterion no judge rated has no scale: its labels are reported as unmatched instead."""
    errors = []
    for label, line in zip(labels.labels, labels.lines):
        rated = scales.get(label.criterion)
        if label.score is not None and rated and not any(scale.contains(label.score) for scale in rated):
            on = " or ".join(sorted(scale.describe() for scale in rated))
            errors.append(
                f"{labels.path}:{line}: score: {label.score:g} is not on the scale of {label.criterion!r} ({on})"
            )
    if errors:
        raise _problems(labels.path, errors)


Record = tuple[int, "dict[str, Any] | str"]  # (line, the record or an error message)


def _json_lines(raw: bytes, source: str) -> Iterator[Record]:
    """Each line parsed on its own, so a line that is not JSON is reported and the rest still read;
    an item record gives each of its labels, with its line."""
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, start=1):
        try:
            for _, value in iter_json_objects(line, source, byte_order_mark=number == 1):
                yield from _item_labels(number, value, source) if "labels" in value else [(number, value)]
        except DataFormatError as exc:  # its message says line 1: the line was parsed alone
            if number == len(lines):  # a last line without its newline: a write cut short, not a label
                continue
            yield number, f"{source}:{number}:{str(exc).removeprefix(f'{source}:1:')}"


def _item_labels(number: int, record: dict[str, Any], source: str) -> Iterator[Record]:
    labels = record["labels"]
    if (
        set(record) - {"item", "labels"}
        or not isinstance(labels, list)
        or not labels
        or not all(isinstance(label, dict) for label in labels)
    ):
        yield number, f'{source}:{number}: an item record is {{"item": {{...}}, "labels": [label, ...]}}'
        return
    for label in labels:
        yield number, label


def _table(raw: bytes, source: str, delimiter: str) -> Iterator[Record]:
    """The rows of a CSV/TSV file with a header row, as records (empty cells left out).

    A column without a name (spreadsheets export a trailing empty one) is ignored while empty."""
    try:
        text = raw.removeprefix(BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        yield line, f"{source}:{line}: not valid UTF-8 ({exc.reason}); save the table as UTF-8 CSV"
        return
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            return
        columns = [name.strip().lower() for name in header]
        problems = _header_problems(columns, header)
        if problems:
            yield 1, f"{source}:1: {'; '.join(problems)}"
            return
        start = reader.line_num + 1
        for cells in reader:
            number, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in cells):
                continue  # a blank line or a row of empty cells
            if len(cells) > len(columns):
                yield number, f"{source}:{number}: {len(cells)} cells but {len(columns)} columns"
                continue
            unnamed = [
                index for index, (name, cell) in enumerate(zip(columns, cells), start=1) if not name and cell.strip()
            ]
            if unnamed:
                yield number, f"{source}:{number}: a value in column {unnamed[0]}, which has no name in the header"
                continue
            yield (
                number,
                {
                    name: (cell if name == "comment" else cell.strip())
                    for name, cell in zip(columns, cells)
                    if name and cell.strip()
                },
            )
    except csv.Error as exc:
        yield reader.line_num, f"{source}:{reader.line_num}: not a readable table ({exc})"


def _header_problems(columns: Sequence[str], header: Sequence[str]) -> list[str]:
    problems = [
        f"unknown column {given.strip()!r} (the columns are {', '.join(FIELDS)})"
        for name, given in zip(columns, header)
        if name and name not in FIELDS
    ]
    problems += [f"column {name!r} appears twice" for name in sorted(set(columns)) if name and columns.count(name) > 1]
    problems += [f"no {name!r} column" for name in ("sample_id", "criterion", "rater") if name not in columns]
    if "score" not in columns and "preference" not in columns:
        problems.append("no 'score' or 'preference' column")
    return problems


def _describe(error: ValidationError) -> str:
    """``field: message; ...``; a problem of the whole record has no field."""
    parts = []
    for item in error.errors():
        location = ".".join(str(part) for part in item["loc"])
        message = {"missing": "missing", "extra_forbidden": "unknown field"}.get(
            item["type"], item["msg"].removeprefix("Value error, ")
        )
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts)


# writing ---------------------------------------------------------------------------------------
def append_label(path: Path, label: Label) -> None:
    """Append `label` to the JSON Lines file `path` as one line (see `append_line`)."""
    append_line(path, label.model_dump_json(exclude_none=True).encode("utf-8"))


def append_item(path: Path, labels: Sequence[Label], item: Mapping[str, Any]) -> tuple[int, int]:
    """Append the labels one rater gave one item as one item record (see the module docstring):
    the file's byte range it was written to (`append_line`)."""
    record = {"item": dict(item), "labels": [label.model_dump(exclude_none=True) for label in labels]}
    return append_line(path, json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def append_line(path: Path, line: bytes) -> tuple[int, int]:
    """Append `line` and its newline to the JSON Lines file `path` in one write, flushed to disk:
    the byte range it was written to.

    The file (and its folder) is created if missing. The write holds an exclusive ``flock`` on
    the file, so writers in several processes never interleave their lines. A last line left
    without its newline is ended first when it is JSON (a hand edit), and cut off when it is not
    (a write a crash cut short), rather than joined to the new one.
    """
    path = Path(path)
    if path.suffix.lower() not in JSON_LINES_SUFFIXES:
        raise DataError(f"{path}: labels are appended to a JSON Lines file ({', '.join(JSON_LINES_SUFFIXES)})")
    line += b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # released when fd is closed
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            size = _end_last_line(fd, size)
        view = memoryview(line)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    return size, size + len(line)


def _end_last_line(fd: int, size: int) -> int:
    """End the unfinished last line of the file open as `fd` (see `append_line`): its new size."""
    start = size
    while start > 0:
        chunk = os.pread(fd, min(start, 65536), max(0, start - 65536))
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            start -= len(chunk) - newline - 1
            break
        start -= len(chunk)
    try:
        json.loads(os.pread(fd, size - start, start))
    except ValueError:
        os.ftruncate(fd, start)
        return start
    os.write(fd, b"\n")
    return size + 1


# matching --------------------------------------------------------------------------------------
AnswerKey = tuple[str, str, int]  # (run, sample_id, epoch)


@dataclass(frozen=True)
class MatchedLabel:
    """A label and the run of the answer it rates (None for a preference: see `label.a`/`.b`)."""

    label: Label
    run: str | None


@dataclass
class MatchResult:
    matched: list[MatchedLabel] = field(default_factory=list)
    unmatched: list[Label] = field(default_factory=list)  # no judge rated that answer on that criterion
    ambiguous: list[Label] = field(default_factory=list)  # no run given, several runs' answers were rated


def match_labels(labels: Sequence[Label], rated: Collection[tuple[AnswerKey, str]]) -> MatchResult:
    """Sort `labels` by whether they rate what a judge rated: `rated` holds the items analysed,
    ((run, sample_id, epoch), criterion). A score with a run matches that item; one without matches
    the only run whose answer to the sample and epoch was rated on the criterion (several:
    ambiguous); a preference matches when the answers of both its runs `a` and `b` were rated on
    it. Every other label is unmatched: counted, never dropped unreported."""
    runs_of: dict[tuple[str, int, str], list[str]] = defaultdict(list)
    for (run, sample_id, epoch), criterion in rated:
        runs_of[sample_id, epoch, criterion].append(run)
    result = MatchResult()
    for label in labels:
        runs = runs_of.get((label.sample_id, label.epoch, label.criterion), [])
        if label.preference is not None:
            found = label.a in runs and label.b in runs
            resolved = None
        elif label.run is not None:
            found, resolved = label.run in runs, label.run
        elif len(runs) > 1:
            result.ambiguous.append(label)
            continue
        else:
            found, resolved = bool(runs), runs[0] if runs else None
        if found:
            result.matched.append(MatchedLabel(label, resolved))
        else:
            result.unmatched.append(label)
    return result

"""The run folder on disk: `header.json`, `samples.jsonl` (append-only) and `results.json`."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from .records import Results, RunHeader, SampleRecord, ScoredSample

HEADER = "header.json"
SAMPLES = "samples.jsonl"
RESULTS = "results.json"


class RunFolderError(Exception):
    pass


def write_json_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class RunFolder:
    def __init__(self, path: Path):
        self.path = Path(path)

    @property
    def samples_path(self) -> Path:
        return self.path / SAMPLES

    def exists(self) -> bool:
        return (self.path / HEADER).is_file()

    # header -----------------------------------------------------------------
    def read_header(self) -> RunHeader:
        file = self.path / HEADER
        if not file.is_file():
            raise RunFolderError(f"{self.path} is not a run folder (no {HEADER})")
        try:
            return RunHeader.model_validate_json(file.read_text(encoding="utf-8"))
        except ValidationError as exc:
            raise RunFolderError(f"{file}: invalid header: {exc}") from None

    def write_header(self, header: RunHeader) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.path / HEADER, header.model_dump_json(indent=2))

    # samples ----------------------------------------------------------------
    def repair_tail(self) -> int:
        """Cut a half-written last line (a run killed mid-write); returns bytes removed."""
        file = self.samples_path
        if not file.is_file():
            return 0
        size = file.stat().st_size
        if size == 0:
            return 0
        with file.open("rb+") as handle:
            handle.seek(max(0, size - 1))
            if handle.read(1) == b"\n":
                return 0
            block = 1 << 16
            position = size
            while position > 0:
                start = max(0, position - block)
                handle.seek(start)
                chunk = handle.read(position - start)
                newline = chunk.rfind(b"\n")
                if newline >= 0:
                    keep = start + newline + 1
                    break
                position = start
            else:
                keep = 0
            handle.truncate(keep)
        return size - keep

    def iter_records(self) -> Iterator[SampleRecord]:
        for line_number, line in self._lines():
            try:
                yield SampleRecord.model_validate_json(line)
            except ValidationError as exc:
                raise RunFolderError(f"{self.samples_path}:{line_number}: invalid record: {exc}") from None

    def iter_scored(self) -> Iterator[ScoredSample]:
        """Records without their texts: what aggregation needs, light on memory."""
        for line_number, line in self._lines():
            try:
                data = json.loads(line)
                yield ScoredSample.model_validate(
                    {k: data.get(k) for k in ("id", "epoch", "status", "metadata", "scores") if k in data}
                )
            except (ValueError, ValidationError) as exc:
                raise RunFolderError(f"{self.samples_path}:{line_number}: invalid record: {exc}") from None

    def finished_keys(self) -> set[tuple[str, int]]:
        return {(s.id, s.epoch) for s in self.iter_scored()}

    def _lines(self) -> Iterator[tuple[int, str]]:
        if not self.samples_path.is_file():
            return
        with self.samples_path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield number, line

    def drop_records(self, keys: set[tuple[str, int]]) -> int:
        """Rewrite samples.jsonl without the given (id, epoch) records, atomically."""
        if not keys or not self.samples_path.is_file():
            return 0
        tmp = self.samples_path.with_suffix(".jsonl.tmp")
        dropped = 0
        with self.samples_path.open(encoding="utf-8") as src, tmp.open("w", encoding="utf-8") as dst:
            for line in src:
                if not line.strip():
                    continue
                data = json.loads(line)
                if (data["id"], data.get("epoch", 0)) in keys:
                    dropped += 1
                    continue
                dst.write(line)
        os.replace(tmp, self.samples_path)
        return dropped

    # results ----------------------------------------------------------------
    def write_results(self, results: Results) -> None:
        write_json_atomic(self.path / RESULTS, results.model_dump_json(indent=2))

    def read_results(self) -> Results:
        file = self.path / RESULTS
        if not file.is_file():
            raise RunFolderError(f"{self.path} has no {RESULTS} yet (run unfinished? try: proseval resume {self.path})")
        return Results.model_validate_json(file.read_text(encoding="utf-8"))


class SampleWriter:
    """Appends one JSON line per finished sample and flushes it at once.

    Each record is written with a single `write` of the whole line, so a process killed
    between records leaves a complete file, and one killed inside a write leaves at most one
    partial line, which `RunFolder.repair_tail` removes on resume.
    """

    def __init__(self, path: Path):
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, record: SampleRecord) -> None:
        data = (record.model_dump_json() + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def close(self) -> None:
        os.close(self._fd)

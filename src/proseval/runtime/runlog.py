"""The run folder on disk: `header.json`, `samples.jsonl` (append-only) and `results.json`."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]  # no fcntl off POSIX

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from ..core.prompt import PromptTemplate
from ..errors import ProsevalError, UsageError, describe_validation_error
from .errorlog import ERROR_LOG, note_log
from .records import Results, RunHeader, SampleRecord, ScoredSample
from .secrets import REDACTED, secret_values

HEADER = "header.json"
SAMPLES = "samples.jsonl"
RESULTS = "results.json"
USAGE = "usage.jsonl"
SESSION_USAGE = "usage.session.json"  # the running process's usage so far (`UsageSnapshot`)
LOCK = ".lock"
PROMPTS = "prompts"
CHECKPOINTS = "checkpoints"


# What the viewer writes to RUNS/labels/: labels, and a session's plan and raters before any label.
LABELS_FILES = ("*.jsonl", "*.ndjson", "*.plan.json", "*.raters.json")


def not_a_run(path: Path) -> str | None:
    """What one of proseval's own outputs that is not a run is (a panel's analysis, the viewer's
    labels, an evaluation set's or a profile's summary, a file), or None for anything else. A glob
    over a folder of runs (`runs/*`) picks these up beside the runs."""
    if path.is_file():
        return "a file, not a folder"
    if (path / HEADER).is_file():
        return None
    if (path / "panel.jsonl").is_file():
        return "a panel's analysis (run --panel)"
    if path.name == "labels" and any(any(path.glob(pattern)) for pattern in LABELS_FILES):
        return "the viewer's labels"
    for marker, what in (("set.json", "an evaluation set's folder"), ("profile.json", "a profile's folder")):
        if (path / marker).is_file():
            return what
    return None


def select_runs(paths: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The run folders among `paths`, and proseval's own outputs that are not runs, set aside with
    what they are, when other paths are runs (a glob); a single path, or a folder proseval did not
    write, is kept, so that reading it says what is wrong with it."""
    aside = [(p, what) for p in paths if (what := not_a_run(p)) is not None]
    if len(aside) == len(paths):
        return paths, []
    skipped = {p for p, _ in aside}
    return [p for p in paths if p not in skipped], aside


class RunFolderError(UsageError):
    """A folder named as a run folder cannot be used as asked: not a run folder, already a run,
    held by another writer, or edited since the run started."""


class RunFileError(RunFolderError):
    """A file of a run folder is damaged: not JSON, or a field of the wrong type (the message names
    the file, and the line or field); the data must be repaired, not the command line."""

    exit_code = 1


class RunLockedError(RunFolderError):
    """Another process is writing this run folder."""


class RunExistsError(RunFolderError, FileExistsError):
    """A new run was asked for in a folder that already holds one."""


class UsageSession(TypedDict, total=False):
    """One line of `usage.jsonl`: when a process finished its part, and each role's statistics;
    `unfinished` marks the usage of a process killed before it wrote its own line, as it stood
    when its last record was written."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]  # read by pydantic, not a key
    at: str
    unfinished: bool
    roles: dict[str, dict[str, Any]]


USAGE_LINE = TypeAdapter(UsageSession)
Model = TypeVar("Model", bound=BaseModel)
Record = TypeVar("Record", SampleRecord, ScoredSample)


def read_model(model: type[Model], file: Path, what: str) -> Model:
    """`file` read as `model`; damaged (not JSON, a field of the wrong type): `RunFileError` naming it."""
    try:
        return model.model_validate_json(file.read_bytes())
    except ValidationError as exc:
        raise RunFileError(f"{file}: invalid {what}: {describe_validation_error(exc)}") from None


def _torn(line: str) -> bool:
    """Whether an unreadable line of `samples.jsonl` is the half-written last line of a writer
    killed inside its write: every record is written whole with its newline (`SampleWriter`), so
    only the last line can lack one. Readers leave it out; a resume cuts it (`repair_tail`). An
    unreadable line that ends in a newline is damage and is reported."""
    return not line.endswith("\n")


def scored_view(line: str) -> ScoredSample:
    """A line of `samples.jsonl` as aggregation reads it: the record's `ScoredSample` fields, its
    texts skipped. The one reading for records read back and those gathered as written."""
    return ScoredSample.model_validate_json(line)


def json_secrets() -> list[str]:
    """Each secret value (`secret_values`) as it is written inside a JSON string."""
    return [json.dumps(value)[1:-1] for value in secret_values()]


def redacted(text: str, secrets: list[str]) -> str:
    """JSON `text` with each of `secrets` (`json_secrets`) replaced: a key echoed anywhere (an error
    body, a reply) never reaches disk."""
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


_stamp: tuple[int, str] = (-1, "")


def now_iso() -> str:
    """The time in UTC to the second, ISO 8601 (formatted once a second: every record's usage
    snapshot carries it)."""
    global _stamp
    second = int(time.time())
    if second != _stamp[0]:
        _stamp = (second, datetime.fromtimestamp(second, timezone.utc).isoformat())
    return _stamp[1]


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """An OSError from writing `path` that names no file (a write to a descriptor on a full disk)
    names it, so that the error the user sees says where."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror, str(path)) from exc


def write_json_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with naming(tmp):
        tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class RunFolder:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._checkpoints: set[str] | None = None  # the checkpoint files there are, listed once

    @property
    def samples_path(self) -> Path:
        return self.path / SAMPLES

    def exists(self) -> bool:
        return (self.path / HEADER).is_file()

    @contextlib.contextmanager
    def made(self) -> Iterator[None]:
        """Make the folder (and its missing parents) now, so that a folder that cannot be made (no
        permission, a file in its place) refuses a new run before anything is sent; what was made
        is removed again if the block raises (a refused run leaves nothing behind)."""
        missing = [p for p in (self.path, *self.path.parents) if not p.exists()]
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            yield
        except BaseException:
            for folder in missing:  # innermost first, each empty
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise

    # one writer at a time ------------------------------------------------------
    @contextlib.contextmanager
    def locked(self) -> Iterator[str | None]:
        """Hold the folder's exclusive writer lock; yields a note when a killed writer left its lock.

        The lock is an ``flock`` on ``.lock``, which the kernel releases when its holder dies, so
        a lock file without a holder is stale: it is reported and taken over. A second writer
        while the first is alive gets `RunLockedError` at once. A `ProsevalError` (a refusal)
        clears the lock like a finished write, and so does a cancellation (an interrupt: the run
        recorded what it finished, `runtime.interrupts`); any other error is marked for the
        folder's `error.log`, where the command line writes its traceback. The usage a killed
        writer left (`UsageSnapshot`) becomes its line of `usage.jsonl` here.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "unknown process"
                    raise RunLockedError(
                        f"{self.path} is being written by another proseval process ({holder}); "
                        "wait for it to finish or stop it"
                    ) from None
            previous = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
            stale = f"a previous writer ({previous}) stopped without finishing" if previous else None
            os.ftruncate(fd, 0)
            at = now_iso()
            os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {at}".encode(), 0)
            self._adopt_session_usage()
            yield stale
            os.ftruncate(fd, 0)
        except asyncio.CancelledError:
            os.ftruncate(fd, 0)
            raise
        except Exception as exc:
            if isinstance(exc, ProsevalError):  # refused cleanly: no unfinished writer to report later
                os.ftruncate(fd, 0)
            else:
                note_log(exc, self.path / ERROR_LOG)
            raise
        finally:
            os.close(fd)

    # header -----------------------------------------------------------------
    def read_header(self) -> RunHeader:
        file = self.path / HEADER
        if not file.is_file():
            raise RunFolderError(f"{self.path} is not a run folder (no {HEADER})")
        return read_model(RunHeader, file, "header")

    def write_header(self, header: RunHeader) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.path / HEADER, header.model_dump_json(indent=2))

    # samples ----------------------------------------------------------------
    def write_prompts(self, prompts: Mapping[str, PromptTemplate]) -> None:
        """Keep a copy of each prompt a user's file replaced, so that a resume sends the same text."""
        replaced = {name: t for name, t in prompts.items() if t.source != "builtin"}
        folder = self.path / PROMPTS
        if folder.is_dir():
            for old in folder.glob("*.txt"):
                old.unlink()
        for name, template in replaced.items():
            folder.mkdir(parents=True, exist_ok=True)
            write_json_atomic(folder / f"{name}.txt", template.text)

    def prompt_overrides(self, prompts: Mapping[str, PromptTemplate]) -> dict[str, PromptTemplate]:
        """`prompts` with the replacements this run was started with (checked against the header)."""
        header = self.read_header()
        result = dict(prompts)
        for name, info in header.prompts.items():
            if info.source == "builtin":
                continue
            path = self.path / PROMPTS / f"{name}.txt"
            if name not in prompts or not path.is_file():
                raise RunFolderError(
                    f"{self.path}: the run used its own prompt {name!r} ({info.source}), "
                    f"but {path} is missing or the task no longer has that prompt"
                )
            result[name] = prompts[name].replaced_by(path.read_text(encoding="utf-8"), info.source)
            if result[name].sha256 != info.sha256:
                raise RunFolderError(f"{path}: changed since the run started (SHA-256 differs from header.json)")
        return result

    # checkpoints of unfinished samples --------------------------------------------
    @staticmethod
    def _checkpoint_name(sample_id: str, epoch: int) -> str:
        return f"{hashlib.sha256(sample_id.encode('utf-8')).hexdigest()[:24]}-{epoch}.json"

    def checkpoint_path(self, sample_id: str, epoch: int) -> Path:
        return self.path / CHECKPOINTS / self._checkpoint_name(sample_id, epoch)

    def _checkpoint_names(self) -> set[str]:
        """The checkpoint files there are: the folder is listed once, then kept up to date by this
        object (one process writes a run folder), so a sample that never saved a checkpoint costs
        no file-system call when it starts or finishes."""
        if self._checkpoints is None:
            folder = self.path / CHECKPOINTS
            self._checkpoints = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
        return self._checkpoints

    def write_checkpoint(self, sample_id: str, epoch: int, data: Any) -> None:
        """Keep the progress of an unfinished sample (atomic; secrets replaced as in the records)."""
        path = self.checkpoint_path(sample_id, epoch)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"id": sample_id, "epoch": epoch, "data": data}, ensure_ascii=False)
        write_json_atomic(path, redacted(text, json_secrets()))
        self._checkpoint_names().add(path.name)

    def read_checkpoint(self, sample_id: str, epoch: int) -> Any | None:
        names = self._checkpoint_names()
        if not names or self._checkpoint_name(sample_id, epoch) not in names:
            return None
        path = self.checkpoint_path(sample_id, epoch)
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError as exc:
            raise RunFolderError(f"{path}: unreadable checkpoint ({exc}); delete it to restart that sample") from None
        if stored.get("id") != sample_id or stored.get("epoch") != epoch:
            raise RunFolderError(f"{path}: checkpoint of another sample; delete it to restart that sample")
        return stored["data"]

    def clear_checkpoint(self, sample_id: str, epoch: int) -> None:
        names = self._checkpoint_names()
        if not names:  # the usual case: no checkpoint at all, nothing to name
            return
        name = self._checkpoint_name(sample_id, epoch)
        if name in names:
            self.checkpoint_path(sample_id, epoch).unlink(missing_ok=True)
            names.discard(name)

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
        return self._parsed(SampleRecord.model_validate_json)

    def iter_scored(self) -> Iterator[ScoredSample]:
        """Records without their texts: what aggregation needs, light on memory."""
        return self._parsed(scored_view)

    def _parsed(self, parse: Callable[[str], Record]) -> Iterator[Record]:
        """Each line of samples.jsonl as `parse` reads it; a line that is not JSON or not a record
        is reported with its number, but a torn last line (`_torn`) is left out."""
        for line_number, line in self._lines():
            try:
                yield parse(line)
            except ValidationError as exc:
                if not _torn(line):
                    raise RunFileError(
                        f"{self.samples_path}:{line_number}: invalid record: "
                        f"{describe_validation_error(exc, one_line=True)}"
                    ) from None

    def unique_scored(self) -> tuple[list[ScoredSample], int]:
        """One record per (sample, epoch), and how many duplicates were set aside.

        Duplicates come from a folder written twice (an old version without the lock, a copied
        line); a finished record beats a failed one, and among equals the later one wins.
        """
        chosen: dict[tuple[str, int], ScoredSample] = {}
        duplicates = 0
        collecting = gc.isenabled()
        gc.disable()  # many long-lived objects at once: the cyclic collector would only slow parsing
        try:
            for sample in self.iter_scored():
                key = (sample.id, sample.epoch)
                previous = chosen.get(key)
                if previous is not None:
                    duplicates += 1
                    if previous.status == "ok" and sample.status != "ok":
                        continue
                chosen[key] = sample
        finally:
            if collecting:
                gc.enable()
        return list(chosen.values()), duplicates

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

    # per-process request statistics -------------------------------------------
    def append_usage(self, roles: dict[str, dict]) -> None:
        """One line per process that wrote to the run: its requests, cache hits, retries, errors
        and spend. Its snapshot (`UsageSnapshot`) is removed first, so that it never counts twice."""
        (self.path / SESSION_USAGE).unlink(missing_ok=True)
        self._append_usage_line(json.dumps({"at": now_iso(), "roles": roles}))

    def _adopt_session_usage(self) -> None:
        snapshot = self.path / SESSION_USAGE
        if snapshot.is_file():
            line = snapshot.read_text(encoding="utf-8").strip()
            snapshot.unlink()
            if line:  # empty: killed before its first record
                self._append_usage_line(line)

    def _append_usage_line(self, line: str) -> None:
        with naming(self.path / USAGE), (self.path / USAGE).open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    def read_usage(self) -> list[UsageSession]:
        """The sessions of `usage.jsonl`, and the usage so far of a process still running or killed
        (`UsageSnapshot`); a line cut short (a process killed while writing it) is skipped."""
        sessions = []
        for file in (self.path / USAGE, self.path / SESSION_USAGE):
            if not file.is_file():
                continue
            for number, line in enumerate(file.read_bytes().splitlines(), start=1):
                try:
                    sessions.append(USAGE_LINE.validate_json(line))
                except ValidationError as exc:
                    if any(error["type"] != "json_invalid" for error in exc.errors()):
                        raise RunFileError(
                            f"{file}:{number}: invalid line: {describe_validation_error(exc, one_line=True)}"
                        ) from None
        return sessions

    # results ----------------------------------------------------------------
    def write_results(self, results: Results) -> None:
        write_json_atomic(self.path / RESULTS, results.model_dump_json(indent=2))

    @property
    def has_results(self) -> bool:
        """Whether the run has written its results (False while it is unfinished)."""
        return (self.path / RESULTS).is_file()

    def read_results(self) -> Results:
        file = self.path / RESULTS
        if not file.is_file():
            raise RunFolderError(f"{self.path} has no {RESULTS} yet (run unfinished? try: proseval resume {self.path})")
        return read_model(Results, file, "results")


class SampleWriter:
    """Appends one JSON line per finished sample and flushes it at once.

    Each record is written with a single `write` of the whole line, so a process killed
    between records leaves a complete file, and one killed inside a write leaves at most one
    partial line, which `RunFolder.repair_tail` removes on resume.
    """

    def __init__(self, path: Path):
        self._path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._secrets = json_secrets()

    def append(self, *records: SampleRecord) -> list[str]:
        """Write `records` in one `write`; returns their lines as written (secrets replaced), for
        `scored_view`."""
        lines = [redacted(record.model_dump_json(), self._secrets) for record in records]
        view = memoryview("".join(line + "\n" for line in lines).encode("utf-8"))
        with naming(self._path):
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        return lines

    def close(self) -> None:
        os.close(self._fd)


class UsageSnapshot:
    """The running process's usage so far, in `usage.session.json`, rewritten as answers come in
    (`runtime.runner.SessionSnapshots`) and just before records are written: a process killed before
    it writes its line of `usage.jsonl` loses only the usage of its requests in flight
    (`RunFolder.read_usage` counts the snapshot, and the next writer makes it a line marked
    `unfinished`).

    One `pwrite` in place per write (writing a new file and renaming it costs 20 times more); a text
    shorter than an earlier one is padded with spaces, so no tail of that one is left.
    """

    def __init__(self, path: Path):
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        self._size = 0

    def write(self, roles: dict[str, dict]) -> None:
        data = json.dumps({"at": now_iso(), "unfinished": True, "roles": roles}).encode("utf-8")
        self._size = max(self._size, len(data))
        os.pwrite(self._fd, data.ljust(self._size), 0)

    def close(self) -> None:
        os.close(self._fd)

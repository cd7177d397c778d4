"""Response cache: SQLite in WAL mode, keyed by a hash of everything that shapes an output."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import platformdirs

from ..errors import ProsevalError, describe_os_error
from ..models.base import Completion

CACHE_ENV = "PROSEVAL_CACHE_DIR"


class CacheError(ProsevalError):
    """The response cache cannot be opened or written (a folder without write permission, a full disk,
    a damaged file: `damaged`)."""

    def __init__(self, message: str, *, damaged: bool = False) -> None:
        super().__init__(message)
        self.damaged = damaged


def is_damaged(exc: BaseException) -> bool:
    """Whether SQLite found the cache file itself unreadable (not a database, malformed), rather than
    its folder unwritable or locked."""
    return (isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)) or (
        isinstance(exc, sqlite3.Error) and any(w in str(exc) for w in ("not a database", "malformed"))
    )


def cache_files(path: Path) -> list[Path]:
    """The cache file and SQLite's files beside it (`-wal`, `-shm`, `-journal`)."""
    return [p for p in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))) if p.exists()]


def cache_dir() -> Path:
    """proseval's cache folder: `PROSEVAL_CACHE_DIR`, else the user cache folder."""
    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else Path(platformdirs.user_cache_dir("proseval"))


def default_cache_path() -> Path:
    return cache_dir() / "responses.sqlite"


# One encoder for every key: `json.dumps` with these options builds a new one per call, which
# costs more than encoding a request.
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def canonical_json(value: Any) -> str:
    """`json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)`."""
    return _CANONICAL.encode(value)


def cache_key(
    identity: dict[str, Any],
    messages: list[dict[str, str]],
    params: dict[str, Any],
    *,
    sample_id: str,
    epoch: int = 0,
    turn: str | int = 0,
    repeat: int = 0,
) -> str:
    """SHA-256 of the canonical JSON of model identity, messages, parameters and position.

    `identity` carries provider, model and base URLs (never keys); `params` carries every
    generation parameter including the seed. The sample id and epoch/turn keep repeated
    samples of the same prompt distinct, and `repeat` a judge's repeated re-scores (0, the
    first judgement, keeps the keys of runs made before repeats existed).
    """
    payload = {
        "identity": identity,
        "messages": messages,
        "params": params,
        "sample_id": sample_id,
        "epoch": epoch,
        "turn": turn,
    }
    if repeat:
        payload["repeat"] = repeat
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()


# Stored answers wait at most this long, or until there are this many, to be written in one
# transaction (a transaction of its own costs each answer about seven times more).
FLUSH_AFTER_S = 0.05
FLUSH_AT = 256
# Look-ups made from an event loop within this long share one read transaction: in WAL mode
# starting one takes file locks that cost as much as the look-up itself. The snapshot is renewed
# after it, and at every write, so an answer stored meanwhile (here or by another process) is
# seen at most this late, and the file's write-ahead log is never held back for longer.
READ_WINDOW_S = 0.05


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class ResponseCache:
    """Thread-safe; reads and writes are short, so callers use it directly from the event loop.

    Opening it creates its folder and table: a cache that cannot be written is refused here
    (`CacheError`), before a run sends anything. Answers stored from an event loop are written
    together (`FLUSH_AFTER_S`, `FLUSH_AT`) and on `close`: a process killed outright loses at most
    the answers of its last 50 ms, which a finished sample's record holds anyway."""

    def __init__(self, path: Path | None = None):
        self.path = Path(path) if path else default_cache_path()
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[str, float]] = {}  # key -> (completion JSON, time stored)
        self._flush_timer: asyncio.TimerHandle | None = None
        self._failure: sqlite3.Error | None = None  # of a write the event loop made
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY, completion TEXT NOT NULL, created REAL NOT NULL)"
            )
        except (OSError, sqlite3.Error) as exc:
            if is_damaged(exc):
                raise CacheError(
                    f"the response cache {self.path} is damaged ({exc}): it holds only copies of "
                    f"answers, so delete it (proseval cache clear --yes, or rm {self.path}*), or set "
                    f"{CACHE_ENV} to another folder, or run with --no-cache",
                    damaged=True,
                ) from None
            problem = describe_os_error(exc) if isinstance(exc, OSError) else f"{self.path}: {exc}"
            raise CacheError(
                f"cannot use the response cache: {problem} (set {CACHE_ENV} to a folder you can "
                "write, or run with --no-cache)"
            ) from None

    def get(self, key: str) -> Completion | None:
        with self._lock:
            pending = self._pending.get(key)
            if pending is not None:
                row: tuple[str] | None = (pending[0],)
            else:
                self._read_together()
                row = self._db.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        completion = Completion.model_validate_json(row[0])  # a new object: setting its fields is safe
        completion.cached, completion.latency = True, 0.0
        return completion

    def put(self, key: str, completion: Completion) -> None:
        """Store a successful completion (callers never store errors)."""
        data = completion.model_dump_json(exclude={"raw", "cached"})  # read back as None and False
        with self._lock:
            if self._failure is not None:
                failure, self._failure = self._failure, None
                raise CacheError(f"cannot write the response cache {self.path}: {failure}")
            self._pending[key] = (data, time.time())
            if len(self._pending) < FLUSH_AT and self._flush_later():
                return
            self._flush()

    def _read_together(self) -> None:
        """From an event loop, open a read transaction that later look-ups share until
        `READ_WINDOW_S` passes (under the lock; without a loop each look-up is its own). Writes
        are whole transactions under the lock, so one open here is always a read."""
        if self._db.in_transaction or (loop := _running_loop()) is None:
            return
        self._db.execute("BEGIN")
        loop.call_later(READ_WINDOW_S, self._end_read_locked)

    def _end_read(self) -> None:
        if self._db.in_transaction:  # a COMMIT that failed is tried again here, not met by a BEGIN
            self._db.execute("COMMIT")

    def _end_read_locked(self) -> None:
        with self._lock:
            try:
                self._end_read()
            except sqlite3.Error:  # the next look-up or write ends it again and reports any error
                pass

    def _flush_later(self) -> bool:
        """Have the running event loop write the pending answers soon (False: no loop runs here)."""
        if self._flush_timer is not None:
            return True
        if (loop := _running_loop()) is None:
            return False
        self._flush_timer = loop.call_later(FLUSH_AFTER_S, self.flush)
        return True

    def flush(self) -> None:
        """Write the pending answers now (from the event loop: a failure is raised by the next `put`)."""
        with self._lock:
            try:
                self._flush()
            except sqlite3.Error as exc:
                self._failure = exc

    def _flush(self) -> None:
        self._end_read()  # the write needs a transaction of its own, and later look-ups see it
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None
        if not self._pending:
            return
        rows = [(key, data, created) for key, (data, created) in self._pending.items()]
        self._pending.clear()
        self._db.execute("BEGIN")
        try:
            self._db.executemany("INSERT OR REPLACE INTO responses (key, completion, created) VALUES (?, ?, ?)", rows)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def stats(self) -> dict[str, Any]:
        with self._lock:
            self._flush()
            count, size = self._db.execute(
                "SELECT COUNT(*), COALESCE(SUM(LENGTH(completion)), 0) FROM responses"
            ).fetchone()
        file_size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return {"path": str(self.path), "entries": count, "payload_bytes": size, "file_bytes": file_size}

    def clear(self) -> int:
        with self._lock:
            self._flush()
            removed = self._db.execute("DELETE FROM responses").rowcount
            self._db.execute("VACUUM")
        return removed

    def close(self) -> None:
        with self._lock:
            self._flush()
            self._db.close()

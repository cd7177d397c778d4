"""Parsed data files, kept for the life of the process under a digest of their bytes.

`proseval profile` and run sets build a benchmark's task several times in one process (to plan,
to estimate, to run), and each build reads the data files again. Reading and hashing a file is
cheap; parsing and validating its items is not. So a parse is kept under the digests (BLAKE2b) of the
bytes it was made from, with whatever else it depends on (the file's name in messages, its language):
a changed file is parsed again, an unchanged one is not, wherever it lies. A parse that fails is
not kept, so its error is raised again on the next read.

Reading and hashing is cheap, but not free: the official Meeseeks data are 690 files, read and hashed
twice per build. `parse_files_once` and `unchanged_files_once` skip both for files whose status (device, inode, size,
modification and change times) is the same as when they were last read, once that status is old enough
to be trusted: a file changed less than `SETTLED_NS` ago is read again, since a second write in the
same clock tick could leave its times unchanged (git trusts its index the same way).

Kept values are shared between callers: they must be immutable (frozen models and dataclasses,
tuples), and callers copy what they hand out as a list.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: The most source bytes whose parses are kept (their parses take about twice as much memory): the official
#: data sets together are under 100 MB.
MAX_KEPT_BYTES = 256 * 1024 * 1024

#: How long ago a file must have last changed for its status to stand for its bytes (FAT's times are
#: two seconds apart; the others' finer).
SETTLED_NS = 2_000_000_000
#: The most values (`unchanged_files_once`) and file digests (`parse_files_once`) kept under file statuses.
MAX_KEPT_BY_STATUS = 16384

_KEPT: OrderedDict[tuple[Hashable, ...], tuple[Any, int]] = OrderedDict()
_BY_STATUS: OrderedDict[tuple[Hashable, ...], Any] = OrderedDict()
_DIGESTS: OrderedDict[tuple[str, tuple[int, ...]], bytes] = OrderedDict()
_LOCK = threading.Lock()
_kept_bytes = 0


def parse_once(key: tuple[Hashable, ...], parse: Callable[[], T], *contents: bytes) -> T:
    """`parse()`, or the value it gave before for the same `key` and the same `contents`
    (the bytes the parse reads). The least recently used parses go first past `MAX_KEPT_BYTES`."""
    digests = tuple(_digest(content) for content in contents)
    return _kept_or_parsed((*key, *digests), parse, sum(len(content) for content in contents))


def _digest(content: bytes) -> bytes:
    return hashlib.blake2b(content, digest_size=32).digest()


def _kept_or_parsed(full: tuple[Hashable, ...], parse: Callable[[], T], size: int) -> T:
    global _kept_bytes
    with _LOCK:
        if full in _KEPT:
            _KEPT.move_to_end(full)
            return _KEPT[full][0]
    value = parse()
    with _LOCK:
        if full not in _KEPT:
            _KEPT[full] = (value, size)
            _kept_bytes += size
        while _kept_bytes > MAX_KEPT_BYTES and len(_KEPT) > 1:
            _, (_, dropped) = _KEPT.popitem(last=False)
            _kept_bytes -= dropped
    return value


def parse_files_once(
    key: tuple[Hashable, ...], paths: Sequence[str | os.PathLike[str]], parse: Callable[[list[bytes]], T]
) -> T:
    """`parse(contents)` of the files at `paths`, kept as `parse_once` keeps it; a file whose status
    has not changed since it was read (`settled_status`) is neither read nor hashed again. Only the
    files' digests are kept under their status: the parses stay within `MAX_KEPT_BYTES`."""
    names = [os.fspath(path) for path in paths]
    before = [settled_status(name) for name in names]
    with _LOCK:
        known = [_DIGESTS.get((name, status)) if status else None for name, status in zip(names, before)]
        if None not in known:
            full = (*key, *known)
            if full in _KEPT:
                _KEPT.move_to_end(full)
                return _KEPT[full][0]
    contents = []
    for name in names:
        with open(name, "rb") as handle:
            contents.append(handle.read())
    digests = [_digest(content) for content in contents]
    value = _kept_or_parsed((*key, *digests), lambda: parse(contents), sum(map(len, contents)))
    with _LOCK:
        for name, status, digest in zip(names, before, digests):
            if status is not None and settled_status(name) == status:  # unchanged while it was read
                _DIGESTS[(name, status)] = digest
        while len(_DIGESTS) > MAX_KEPT_BY_STATUS:
            _DIGESTS.popitem(last=False)
    return value


def settled_status(path: str | os.PathLike[str]) -> tuple[int, ...] | None:
    """The status of the file at `path` that a change to its bytes would alter (device, inode, size,
    modification and change times), or None if it changed less than `SETTLED_NS` ago."""
    status = os.stat(path)
    if time.time_ns() - max(status.st_mtime_ns, status.st_ctime_ns) < SETTLED_NS:
        return None
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def unchanged_files_once(
    key: tuple[Hashable, ...], paths: Sequence[str | os.PathLike[str]], compute: Callable[[], T]
) -> T:
    """`compute()` (which reads the files at `paths`), or the value it gave before for the same `key`
    while none of the files has changed since (`settled_status`). A value is kept only when every
    file's status was settled and the same before and after the computation. For small values (a
    checksum); a parse goes through `parse_files_once`, whose memory is bounded."""
    names = tuple(os.fspath(path) for path in paths)
    before = tuple(settled_status(name) for name in names)
    full = (*key, names, before)
    settled = None not in before
    if settled:
        with _LOCK:
            if full in _BY_STATUS:
                _BY_STATUS.move_to_end(full)
                return _BY_STATUS[full]
    value = compute()
    if settled and tuple(settled_status(name) for name in names) == before:
        with _LOCK:
            _BY_STATUS[full] = value
            while len(_BY_STATUS) > MAX_KEPT_BY_STATUS:
                _BY_STATUS.popitem(last=False)
    return value


def forget() -> None:
    """Drop every kept parse and value."""
    global _kept_bytes
    with _LOCK:
        _KEPT.clear()
        _BY_STATUS.clear()
        _DIGESTS.clear()
        _kept_bytes = 0

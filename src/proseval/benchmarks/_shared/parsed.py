"""Parsed data files, kept for the life of the process under a digest of their bytes.

`proseval profile` and run sets build a benchmark's task several times in one process (to plan,
to estimate, to run), and each build reads the data files again. Reading and hashing a file is
cheap; parsing and validating its items is not. So a parse is kept under the digests (BLAKE2b) of the
bytes it was made from, with whatever else it depends on (the file's name in messages, its language):
a changed file is parsed again, an unchanged one is not, wherever it lies. A parse that fails is
not kept, so its error is raised again on the next read.

Kept values are shared between callers: they must be immutable (frozen models and dataclasses,
tuples), and callers copy what they hand out as a list.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

#: The most source bytes whose parses are kept (their parses take about twice as much memory): the official
#: data sets together are under 100 MB.
MAX_KEPT_BYTES = 256 * 1024 * 1024

_KEPT: OrderedDict[tuple[Hashable, ...], tuple[Any, int]] = OrderedDict()
_LOCK = threading.Lock()
_kept_bytes = 0


def parse_once(key: tuple[Hashable, ...], parse: Callable[[], T], *contents: bytes) -> T:
    """`parse()`, or the value it gave before for the same `key` and the same `contents`
    (the bytes the parse reads). The least recently used parses go first past `MAX_KEPT_BYTES`."""
    global _kept_bytes
    full = (*key, *(hashlib.blake2b(content, digest_size=32).digest() for content in contents))
    with _LOCK:
        if full in _KEPT:
            _KEPT.move_to_end(full)
            return _KEPT[full][0]
    value = parse()
    size = sum(len(content) for content in contents)
    with _LOCK:
        if full not in _KEPT:
            _KEPT[full] = (value, size)
            _kept_bytes += size
        while _kept_bytes > MAX_KEPT_BYTES and len(_KEPT) > 1:
            _, (_, dropped) = _KEPT.popitem(last=False)
            _kept_bytes -= dropped
    return value


def forget() -> None:
    """Drop every kept parse."""
    global _kept_bytes
    with _LOCK:
        _KEPT.clear()
        _kept_bytes = 0

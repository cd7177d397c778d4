"""The cyclic garbage collector while a run's requests are in flight."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Every request in flight holds objects for as long as it waits (its task, frames, futures and
# buffers). At Python's default threshold, a collection of the youngest generation every 700 new
# objects, those are collected hundreds of times a second and promoted while still in use, and
# full collections follow: at 1,024 requests in flight that was 28 % of a run's CPU time. With
# this threshold most such objects are freed before a collection sees them; the peak RSS
# measured the same (bench/harness_throughput.py, proseval docs runtime).
YOUNG_THRESHOLD = 50_000

_lock = threading.Lock()
_runs = 0
_saved: tuple[int, int, int] | None = None


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect the youngest generation every `YOUNG_THRESHOLD` objects (never less often than the
    process already does) until the last of the runs that entered this leaves it, in any order;
    then the thresholds are as before."""
    global _runs, _saved
    with _lock:
        if _runs == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(max(YOUNG_THRESHOLD, _saved[0]), _saved[1], _saved[2])
        _runs += 1
    try:
        yield
    finally:
        with _lock:
            _runs -= 1
            if _runs == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None

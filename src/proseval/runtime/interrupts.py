"""Stopping a command on SIGINT (Ctrl-C) or SIGTERM with what its runs finished kept
(docs/runtime.md, "Interrupts").

The first signal cancels the command's coroutine. A run then starts no new sample and cancels
the samples in flight (a sample that finished at that moment keeps its record), closes its
samples file, models and cache in that order, appends this session's usage and spend to
`usage.jsonl`, and raises `RunInterrupted`, which names its folder (`Runner.execute`). A second
signal ends the process at once, with one line on stderr.

Those lines go to the standard error the command started with (`StartedStderr`), even when a
library has pointed the process's stderr elsewhere at that moment: llama-cpp-python sends it to
/dev/null, from the embedded model's thread, while it loads a model.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TextIO, TypeVar

from .outcome import EXIT_INTERRUPTED, EXIT_TERMINATED

T = TypeVar("T")
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class RunInterrupted(asyncio.CancelledError):
    """A run cancelled before its end: `saved` of its `total` samples have a record in `folder`,
    and this session's usage is recorded. A `CancelledError`, so whoever awaits the run sees a
    cancellation."""

    def __init__(self, folder: Path, saved: int, total: int):
        super().__init__(f"interrupted: {saved} of {total} samples are saved in {folder}")
        self.folder, self.saved, self.total = folder, saved, total


def interrupt_status(signum: int | None) -> int:
    """The exit status after `signum`: 143 for SIGTERM, else 130 (SIGINT, or a KeyboardInterrupt)."""
    return EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED


class StartedStderr:
    """The standard error a command started with: `sys.stderr` then, and a duplicate of its file
    descriptor, through which a line still reaches it while descriptor 2 or `sys.stderr` leads
    elsewhere for a while."""

    def __init__(self) -> None:
        self.stream = sys.stderr
        try:
            self.fd: int | None = os.dup(2)
        except OSError:  # no descriptor 2 to keep
            self.fd = None

    def moved(self) -> bool:
        """Whether the process's stderr leads somewhere else now (`sys.stderr` replaced, or
        descriptor 2 opened on another file)."""
        if sys.stderr is not self.stream:
            return True
        if self.fd is None:
            return False
        try:
            return not os.path.samestat(os.fstat(2), os.fstat(self.fd))
        except OSError:  # descriptor 2 closed since
            return True

    def write_line(self, text: str) -> None:
        """`text` and a newline, written at once (for a signal handler, which must not block on a lock)."""
        fd = 2 if self.fd is None else self.fd
        with contextlib.suppress(OSError):
            os.write(fd, f"{text}\n".encode(errors="replace"))

    @contextlib.contextmanager
    def opened(self) -> Iterator[TextIO]:
        """A text stream on the kept descriptor (the stream of then when none was kept)."""
        if self.fd is None:
            yield self.stream
            return
        with os.fdopen(os.dup(self.fd), "w", encoding="utf-8", errors="replace") as stream:
            yield stream

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _exit_now(stderr: StartedStderr, signum: int, _frame: Any = None) -> None:
    """A second signal: end the process at once (what was saved stays saved)."""
    stderr.write_line(f"{signal.Signals(signum).name} again: exiting now")
    os._exit(interrupt_status(signum))


class SignalStop:
    """Runs a coroutine that the first SIGINT or SIGTERM cancels and a second ends with the process.

    A signal the process ignores (SIGINT of a job started in the background by a shell) stays ignored.
    The handlers are in place before the coroutine starts, so before it sends any request. After
    a signal, `stderr` is where the command's last line goes (`StartedStderr.opened`)."""

    def __init__(self) -> None:
        self.signum: int | None = None  # the signal that stopped the coroutine
        # The run it stopped: kept here, as Python 3.10 raises a new CancelledError out of the task.
        self.interrupted: RunInterrupted | None = None
        self.stderr: StartedStderr | None = None

    @property
    def exit_status(self) -> int:
        return interrupt_status(self.signum)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None  # a coroutine awaited in the running loop is always in a task
        kept = self.stderr = StartedStderr()
        previous = {signum: signal.getsignal(signum) for signum in SIGNALS}
        caught = [signum for signum, handler in previous.items() if handler is not signal.SIG_IGN]
        for signum in caught:
            loop.add_signal_handler(signum, self._received, signum, task)
        try:
            return await coro
        except RunInterrupted as exc:
            self.interrupted = exc
            raise
        finally:
            for signum in caught:
                loop.remove_signal_handler(signum)
                if self.signum is not None:  # until the process ends (a thread finishing, the message)
                    signal.signal(signum, functools.partial(_exit_now, kept))
                elif previous[signum] is not None:
                    signal.signal(signum, previous[signum])
            if self.signum is None:  # no last line to write: the process goes on
                kept.close()

    def _received(self, signum: int, task: asyncio.Task[Any]) -> None:
        if self.signum is not None and self.stderr is not None:
            _exit_now(self.stderr, signum)
        self.signum = signum
        task.cancel()

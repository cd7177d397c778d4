"""Stopping a command on SIGINT (Ctrl-C) or SIGTERM with what its runs finished kept
(docs/runtime.md, "Interrupts").

The first signal cancels the command's coroutine. A run then starts no new sample and cancels
the samples in flight (a sample that finished at that moment keeps its record), closes its
samples file, models and cache in that order, appends this session's usage and spend to
`usage.jsonl`, and raises `RunInterrupted`, which names its folder (`Runner.execute`). A second
signal ends the process at once, with one line on stderr.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

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


def _exit_now(signum: int, _frame: Any = None) -> None:
    """A second signal: end the process at once (what was saved stays saved)."""
    os.write(2, f"{signal.Signals(signum).name} again: exiting now\n".encode())
    os._exit(interrupt_status(signum))


class SignalStop:
    """Runs a coroutine that the first SIGINT or SIGTERM cancels and a second ends with the process.

    A signal the process ignores (SIGINT of a job started in the background by a shell) stays ignored."""

    def __init__(self) -> None:
        self.signum: int | None = None  # the signal that stopped the coroutine
        # The run it stopped: kept here, as Python 3.10 raises a new CancelledError out of the task.
        self.interrupted: RunInterrupted | None = None

    @property
    def exit_status(self) -> int:
        return interrupt_status(self.signum)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
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
                    signal.signal(signum, _exit_now)
                elif previous[signum] is not None:
                    signal.signal(signum, previous[signum])

    def _received(self, signum: int, task: asyncio.Task[Any]) -> None:
        if self.signum is not None:
            _exit_now(signum)
        self.signum = signum
        task.cancel()

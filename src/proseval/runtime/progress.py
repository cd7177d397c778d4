"""Progress display: a rich live bar for terminals, periodic plain lines for logs and CI."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Literal

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

Display = Literal["rich", "plain", "none"]


class RunProgress:
    """Counts samples, errors, tokens and cache hits; `stats` returns (tokens, cache hits)."""

    def __init__(
        self,
        total: int,
        *,
        display: Display,
        description: str,
        stats: Callable[[], tuple[int, int]],
        shared: Progress | None = None,
    ):
        self.total = total
        self.done = 0
        self.errors = 0
        self.display = display
        self.description = description
        self._stats = stats
        self._start = time.monotonic()
        self._last_plain = 0.0
        self._progress: Progress | None = None
        self._task_id: TaskID | None = None
        self._shared = shared  # a display several runs share (an evaluation set): one bar each, started by its owner
        self.note: Callable[[], str] | None = None  # more to show (batch mode's batches), see `refresh`

    def __enter__(self) -> RunProgress:
        if self.display == "rich" and self._shared is not None:
            self._progress = self._shared
            self._task_id = self._progress.add_task(self.description, total=self.total, errors=0, tokens=0, cache=0)
        elif self.display == "rich":
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("errors {task.fields[errors]}"),
                TextColumn("tokens {task.fields[tokens]:,}"),
                TextColumn("cache {task.fields[cache]:,}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._progress.start()
            self._task_id = self._progress.add_task(self.description, total=self.total, errors=0, tokens=0, cache=0)
        elif self.display == "plain":
            self._plain_line(force=True)
        return self

    def advance(self, *, failed: bool) -> None:
        self.done += 1
        self.errors += int(failed)
        if self._progress is not None and self._task_id is not None:
            tokens, cache = self._stats()
            self._progress.update(self._task_id, advance=1, errors=self.errors, tokens=tokens, cache=cache)
        elif self.display == "plain":
            self._plain_line(force=self.done == self.total)

    def refresh(self) -> None:
        """Show `note` again now (its numbers changed while no sample finished)."""
        if self._progress is not None and self._task_id is not None and self.note is not None:
            self._progress.update(self._task_id, description=f"{self.description} ({self.note()})")
        elif self.display == "plain":
            self._plain_line(force=True)

    def _plain_line(self, *, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._last_plain < 10:
            return
        self._last_plain = now
        tokens, cache = self._stats()
        elapsed = now - self._start
        eta = elapsed / self.done * (self.total - self.done) if self.done else None
        eta_text = f"{eta:.0f}s" if eta is not None else "?"
        print(
            f"{self.description}: {self.done}/{self.total} samples, errors {self.errors}, "
            f"tokens {tokens:,}, cache hits {cache:,}, elapsed {elapsed:.0f}s, ETA {eta_text}"
            + (f", {self.note()}" if self.note is not None else ""),
            file=sys.stderr,
            flush=True,
        )

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None and self._progress is not self._shared:
            self._progress.stop()

"""Work finished during one turn of the event loop, handled together at the end of that turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class EndOfTurn(Generic[T]):
    """Items added during one turn of the running event loop, passed together to `handle` at its
    end (`call_soon`): the records of every sample that finished in the same turn take one write,
    not one each.

    `add` returns a future of the caller's own that is done once its item was handled, or fails
    with `handle`'s error; callers await it, so that error is theirs. `flush` handles what waits at
    once (before the files close) and raises an error that no caller received.
    """

    def __init__(self, handle: Callable[[list[T]], None]):
        self._handle = handle
        self._items: list[T] = []
        self._waiting: list[asyncio.Future[None]] = []
        self._failure: Exception | None = None  # of a handling whose callers were all cancelled

    def add(self, item: T) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        if not self._items:
            loop.call_soon(self._end_of_turn)
        self._items.append(item)
        done = loop.create_future()
        self._waiting.append(done)
        return done

    def _end_of_turn(self) -> None:
        waiting = self._waiting
        try:
            self._take()
        except Exception as exc:
            told = False
            for done in waiting:
                if not done.cancelled():
                    done.set_exception(exc)
                    done.exception()  # marked retrieved: the caller still raises it, and no warning is logged
                    told = True
            if not told:
                self._failure = exc
        else:
            for done in waiting:
                if not done.cancelled():
                    done.set_result(None)

    def _take(self) -> None:
        items, self._items, self._waiting = self._items, [], []
        if items:
            self._handle(items)

    def flush(self) -> None:
        """Handle the items waiting now; raises `handle`'s error when no waiting caller receives it
        (also one from an earlier turn whose callers were all cancelled)."""
        if self._items:
            self._end_of_turn()  # its scheduled call then finds nothing
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

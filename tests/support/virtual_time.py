"""An event loop whose clock jumps ahead whenever it would only be waiting for a timer.

Long waits (a 200-second generation, a 20-minute time limit) then take no real time, while
everything else (sockets, aiohttp, the fake server, `asyncio.wait_for`) runs unchanged: the
loop first polls its sockets without blocking, and only when nothing is ready does it move
its clock to the next timer instead of sleeping. Every party must share this loop (the fake
server included), so that nothing can become ready except through a timer.
"""

from __future__ import annotations

import asyncio
import selectors
from typing import Any


class _JumpingSelector:
    def __init__(self, loop: VirtualTimeLoop, selector: selectors.BaseSelector):
        self._loop = loop
        self._selector = selector

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = self._selector.select(0)
        if ready or timeout is None or timeout <= 0:
            return ready if ready or timeout is not None else self._selector.select(None)
        self._loop.advance(timeout)
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._selector, name)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        super().__init__()
        self._offset = 0.0
        self._selector = _JumpingSelector(self, self._selector)  # type: ignore[assignment]  # a wrapping stand-in

    def advance(self, seconds: float) -> None:
        self._offset += seconds

    @property
    def skipped(self) -> float:
        """Seconds the clock jumped over."""
        return self._offset

    def time(self) -> float:
        return super().time() + self._offset


def run_virtual(coro: Any) -> tuple[Any, float]:
    """Run `coro` on a fresh virtual-time loop: (its result, the seconds its clock advanced)."""
    loop = VirtualTimeLoop()
    start = loop.time()
    try:
        result = loop.run_until_complete(coro)
        return result, loop.time() - start
    finally:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()

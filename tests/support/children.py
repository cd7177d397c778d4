"""What the tests that run proseval in a child process share: waiting for the child to show it is
under way, by what it wrote or what a fake server saw (never by a margin of time)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any

HANG_GUARD_S = 300  # only against a test that hangs: no outcome waits this long


def wait_for(ready: Callable[[], bool], child: subprocess.Popen[Any], what: str) -> None:
    """Return once `ready()`; fail if the child ends first (or, as a hang guard, after `HANG_GUARD_S`)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while not ready():
        assert child.poll() is None, f"the run ended before {what}"
        assert time.monotonic() < deadline, f"no {what} after {HANG_GUARD_S} s"
        time.sleep(0.01)

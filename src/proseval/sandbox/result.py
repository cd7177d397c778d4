"""Limits and results of a sandboxed run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ErrorKind = Literal[
    "timeout",
    "memory",
    "forbidden",
    "exception",
    "bad_result",
    "output_too_large",
    "crash",
    "sandbox_error",
]


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits applied to the child process.

    `wall_seconds` and `max_output_bytes` are enforced by the parent (reading with a deadline
    and a byte budget; the whole process group is killed); the others are kernel limits set by
    the child before it reads any untrusted code.
    """

    wall_seconds: float = 10.0
    cpu_seconds: int = 5
    memory_bytes: int = 512 * 1024 * 1024
    max_output_bytes: int = 8 * 1024 * 1024


@dataclass(frozen=True)
class SandboxResult:
    """Outcome of one sandboxed call.

    `value` is the function's return value when `ok`: a list of strings, or a single
    string (the caller decides how to treat a bare string). `error_kind` and `error` are set
    when not `ok`. `duration` is the wall-clock time of the whole run in seconds. `layers`
    names the isolation layers the child applied before running the code.
    """

    ok: bool
    value: list[str] | str | None
    error_kind: ErrorKind | None
    error: str | None
    duration: float
    layers: tuple[str, ...] = ()

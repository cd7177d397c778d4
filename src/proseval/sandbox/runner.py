"""Run one untrusted Python function in a locked-down child process.

The child (``_child.py``) is started with ``python -I -S -B`` (isolated mode, no site
packages, no bytecode writes) in its own session, in a fresh temporary working directory that
is deleted afterwards, with an environment that holds no secrets. The parent enforces the
wall-clock limit by killing the child's whole process group; the child sets its own kernel
limits before it parses the code. See ``_child.py`` for the in-process restrictions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from proseval.sandbox.result import ErrorKind, SandboxLimits, SandboxResult

_CHILD = Path(__file__).with_name("_child.py")
DEFAULT_LIMITS = SandboxLimits()
_STDERR_TAIL = 1000


def _command() -> list[str]:
    return [sys.executable, "-I", "-S", "-B", str(_CHILD)]


def _environment(workdir: str) -> dict[str, str]:
    """A minimal environment: nothing of the parent's (API keys included) is passed on."""
    return {"LC_ALL": "C.UTF-8", "HOME": workdir, "TMPDIR": workdir}


def _payload(
    code: str, function: str, text: str, limits: SandboxLimits, split_namespace: bool
) -> bytes:
    return json.dumps(
        {
            "code": code,
            "function": function,
            "text": text,
            "split_namespace": split_namespace,
            "limits": {
                "cpu_seconds": limits.cpu_seconds,
                "memory_bytes": limits.memory_bytes,
                "max_output_bytes": limits.max_output_bytes,
            },
        }
    ).encode("utf-8")


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _validate(value: Any) -> tuple[list[str] | str | None, str | None]:
    """Accept a list of strings (numbers and booleans are turned into text) or one string."""
    if isinstance(value, str):
        return value, None
    if not isinstance(value, list):
        return None, f"the function returned {_json_type(value)}, not a list of strings"
    items: list[str] = []
    for index, element in enumerate(value):
        if isinstance(element, str):
            items.append(element)
        elif isinstance(element, (bool, int, float)):
            items.append(str(element))
        else:
            return None, f"element {index} of the returned list is {_json_type(element)}"
    return items, None


def _json_type(value: Any) -> str:
    names = {dict: "a dict", list: "a list", type(None): "None", bool: "a boolean"}
    return names.get(type(value), f"a {type(value).__name__}")


def _failure(kind: ErrorKind, error: str, duration: float) -> SandboxResult:
    return SandboxResult(ok=False, value=None, error_kind=kind, error=error, duration=duration)


def _interpret(
    returncode: int | None,
    stdout: bytes,
    stderr: bytes,
    timed_out: bool,
    duration: float,
    limits: SandboxLimits,
) -> SandboxResult:
    if timed_out:
        message = f"wall-clock limit of {limits.wall_seconds} s exceeded"
        return _failure("timeout", message, duration)
    tail = stderr.decode("utf-8", "replace")[-_STDERR_TAIL:]
    if returncode == -signal.SIGXCPU:
        return _failure("timeout", f"CPU time limit of {limits.cpu_seconds} s exceeded", duration)
    if returncode == -signal.SIGXFSZ:
        return _failure("forbidden", "attempted to write a file", duration)
    try:
        record = json.loads(stdout.decode("utf-8")) if returncode == 0 else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        record = None
    if not isinstance(record, dict):
        kind: ErrorKind = "memory" if "MemoryError" in tail else "crash"
        return _failure(kind, f"sandbox process ended with status {returncode}: {tail}", duration)
    if record.get("status") != "ok":
        kind = record.get("kind", "crash")
        return _failure(kind, str(record.get("error", "")), duration)
    value, problem = _validate(record.get("value"))
    if problem:
        return _failure("bad_result", problem, duration)
    return SandboxResult(ok=True, value=value, error_kind=None, error=None, duration=duration)


def run_function(
    code: str,
    text: str,
    *,
    function: str = "extract_info_list",
    limits: SandboxLimits = DEFAULT_LIMITS,
    split_namespace: bool = False,
) -> SandboxResult:
    """Execute `code` in the sandbox and return ``function(text)``.

    `split_namespace` executes the code with separate globals and locals (the official
    implementation's behaviour: helper functions the code defines are then invisible to
    the called function).
    """
    start = time.monotonic()
    payload = _payload(code, function, text, limits, split_namespace)
    with tempfile.TemporaryDirectory(prefix="proseval-sandbox-", ignore_cleanup_errors=True) as wd:
        process = subprocess.Popen(
            _command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=wd,
            env=_environment(wd),
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(payload, timeout=limits.wall_seconds)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            stdout, stderr = process.communicate()
            timed_out = True
        finally:
            if process.returncode is None:
                _kill_group(process.pid)
                process.wait()
    duration = time.monotonic() - start
    return _interpret(process.returncode, stdout, stderr, timed_out, duration, limits)


async def run_function_async(
    code: str,
    text: str,
    *,
    function: str = "extract_info_list",
    limits: SandboxLimits = DEFAULT_LIMITS,
    split_namespace: bool = False,
) -> SandboxResult:
    """Asynchronous `run_function`: waits for the child without blocking the event loop.

    Cancelling the awaiting task kills the child's process group.
    """
    start = time.monotonic()
    payload = _payload(code, function, text, limits, split_namespace)
    with tempfile.TemporaryDirectory(prefix="proseval-sandbox-", ignore_cleanup_errors=True) as wd:
        process = await asyncio.create_subprocess_exec(
            *_command(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=wd,
            env=_environment(wd),
            start_new_session=True,
        )
        stdout, stderr, timed_out = b"", b"", False
        try:
            stdout, stderr = await asyncio.wait_for(
                process.communicate(payload), timeout=limits.wall_seconds
            )
        except asyncio.TimeoutError:
            timed_out = True
        finally:
            if process.returncode is None:
                _kill_group(process.pid)
                await process.wait()
    duration = time.monotonic() - start
    return _interpret(process.returncode, stdout, stderr, timed_out, duration, limits)

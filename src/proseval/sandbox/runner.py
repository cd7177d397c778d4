"""Run one untrusted Python function in a child process confined by the operating system.

The child (``_child.py``) is started with ``python -I -S -B`` (isolated mode, no site
packages, no bytecode writes) in its own session, with an empty environment (nothing of the
parent's, API keys included), no file descriptors but its three pipes, and a fresh empty
working directory that is removed as soon as the child has started. The child confines
itself (see ``isolation.py``) before it parses the code. The parent enforces the wall-clock
deadline and the output budget while reading, never waiting for end-of-file, and kills the
child's whole process group at the deadline, on an overflow, on cancellation and at the end.

Without seccomp (not Linux, or libseccomp missing) model code is refused with a
``sandbox_error`` unless the caller passes ``allow_weak=True``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from proseval.sandbox import isolation
from proseval.sandbox.result import ErrorKind, SandboxLimits, SandboxResult

_CHILD = Path(__file__).with_name("_child.py")
DEFAULT_LIMITS = SandboxLimits()
_STDERR_TAIL = 1000


_DIR_PREFIX = "proseval-sandbox-"
_STDERR_CAP = 64 * 1024
_CHUNK = 64 * 1024
_EXIT_GRACE = 0.5  # seconds to collect output after the child exits, if a pipe stays open
_POLL = 0.02  # exit polling interval where the kernel has no pidfd


def _command() -> list[str]:
    return [sys.executable, "-I", "-S", "-B", str(_CHILD)]


def _environment() -> dict[str, str]:
    """A minimal environment: nothing of the parent's (API keys included) is passed on."""
    return {"LC_ALL": "C.UTF-8"}


def _payload(
    code: str,
    function: str,
    text: str,
    limits: SandboxLimits,
    split_namespace: bool,
    settings: dict[str, Any],
    python_guards: bool,
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
            "isolation": settings,
            "parent": os.getpid(),
            "python_guards": python_guards,
        }
    ).encode("utf-8")


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


_swept = False


def _sweep_stale_dirs() -> None:
    """Remove working directories left by evaluating processes that were killed."""
    global _swept
    if _swept:
        return
    _swept = True
    for path in Path(tempfile.gettempdir()).glob(_DIR_PREFIX + "*"):
        pid = path.name[len(_DIR_PREFIX) :].partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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


def _failure(kind: ErrorKind, error: str, duration: float, layers: tuple[str, ...] = ()) -> SandboxResult:
    return SandboxResult(ok=False, value=None, error_kind=kind, error=error, duration=duration, layers=layers)


def _interpret(
    returncode: int | None, stdout: bytes, stderr: bytes, duration: float, limits: SandboxLimits
) -> SandboxResult:
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
    layers = tuple(str(layer) for layer in record.get("layers") or ())
    if record.get("status") != "ok":
        return _failure(record.get("kind", "crash"), str(record.get("error", "")), duration, layers)
    value, problem = _validate(record.get("value"))
    if problem:
        return _failure("bad_result", problem, duration, layers)
    return SandboxResult(ok=True, value=value, error_kind=None, error=None, duration=duration, layers=layers)


class _Supervisor:
    """Feeds the child its payload and reads its output without ever waiting for end-of-file.

    Event-driven on the raw descriptors (and a pidfd for the exit where the kernel has one):
    stdout beyond the budget stops the run at once; stderr beyond its cap is drained and
    dropped; once the child has exited, output still in the pipes is collected for a short
    grace period, so a pipe held open by anything else cannot hold the evaluator.
    """

    def __init__(self, process: subprocess.Popen, payload: bytes, limits: SandboxLimits):
        assert process.stdin and process.stdout and process.stderr
        self.process = process
        self.loop = asyncio.get_running_loop()
        self.outcome: asyncio.Future[str] = self.loop.create_future()
        self.stdout, self.stderr = bytearray(), bytearray()
        self.out_fd, self.err_fd = process.stdout.fileno(), process.stderr.fileno()
        self.in_fd: int | None = process.stdin.fileno()
        self.caps = {self.out_fd: (self.stdout, limits.max_output_bytes), self.err_fd: (self.stderr, _STDERR_CAP)}
        self.open_fds = set(self.caps)
        self.payload, self.sent = memoryview(payload), 0
        self.exited = False
        self.pidfd: int | None = None

    def start(self) -> None:
        assert self.in_fd is not None
        for fd in (self.out_fd, self.err_fd, self.in_fd):
            os.set_blocking(fd, False)
        for fd in self.caps:
            self.loop.add_reader(fd, self._readable, fd)
        self.loop.add_writer(self.in_fd, self._writable)
        if hasattr(os, "pidfd_open"):
            with contextlib.suppress(OSError):
                self.pidfd = os.pidfd_open(self.process.pid)
                self.loop.add_reader(self.pidfd, self._exited)
        if self.pidfd is None:
            self.loop.call_later(_POLL, self._poll)

    def _finish(self, outcome: str) -> None:
        if not self.outcome.done():
            self.outcome.set_result(outcome)

    def _readable(self, fd: int) -> None:
        buffer, cap = self.caps[fd]
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.loop.remove_reader(fd)
            self.open_fds.discard(fd)
            if self.exited and not self.open_fds:
                self._finish("exited")
        elif len(buffer) + len(chunk) <= cap:
            buffer += chunk
        elif fd == self.out_fd:
            self._finish("overflow")

    def _writable(self) -> None:
        assert self.in_fd is not None
        try:
            self.sent += os.write(self.in_fd, self.payload[self.sent : self.sent + _CHUNK])
        except BlockingIOError:
            return
        except OSError:
            self.sent = len(self.payload)
        if self.sent >= len(self.payload):
            self._close_stdin()

    def _close_stdin(self) -> None:
        """Stop writing and close stdin once: after the close its fd number may belong to another run."""
        if self.in_fd is not None:
            self.loop.remove_writer(self.in_fd)
            self.in_fd = None
            self.process.stdin.close()  # type: ignore[union-attr]  # started with a stdin pipe

    def _exited(self) -> None:
        if self.exited:
            return
        self.exited = True
        if self.pidfd is not None:
            self.loop.remove_reader(self.pidfd)
        if not self.open_fds:
            self._finish("exited")
        else:
            self.loop.call_later(_EXIT_GRACE, self._finish, "exited")

    def _poll(self) -> None:
        if self.process.poll() is not None:
            self._exited()
        elif not self.outcome.done():
            self.loop.call_later(_POLL, self._poll)

    async def close(self) -> None:
        """Kill the process group, stop watching, close the pipes and reap the child."""
        _kill_group(self.process.pid)
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        for fd in self.caps:
            self.loop.remove_reader(fd)
        self._close_stdin()
        if self.pidfd is not None:
            self.loop.remove_reader(self.pidfd)
            os.close(self.pidfd)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        for _ in range(100):
            if self.process.poll() is not None:
                return
            await asyncio.sleep(0.01)
        self.process.wait()


async def run_function_async(
    code: str,
    text: str,
    *,
    function: str = "extract_info_list",
    limits: SandboxLimits = DEFAULT_LIMITS,
    split_namespace: bool = False,
    allow_weak: bool = False,
    python_guards: bool = True,
) -> SandboxResult:
    """Execute `code` in the sandbox and return ``function(text)``, without blocking the loop.

    `split_namespace` executes the code with separate globals and locals (the official
    implementation's behaviour: helper functions the code defines are then invisible to
    the called function). `allow_weak` runs the code even where seccomp is not available
    (the caller has accepted the risk). `python_guards=False` drops the Python-level pre-check
    and restricted builtins, giving the code what an escape would give it: it exists to test
    the operating-system boundary. Cancelling the awaiting task kills the child.
    """
    start = time.monotonic()
    settings = isolation.child_settings()
    if settings["seccomp_bpf"] is None and not allow_weak:
        message = isolation.refusal_message(isolation.missing_for_strong_isolation())
        return _failure("sandbox_error", message, time.monotonic() - start)
    _sweep_stale_dirs()
    payload = _payload(code, function, text, limits, split_namespace, settings, python_guards)
    workdir = tempfile.mkdtemp(prefix=f"{_DIR_PREFIX}{os.getpid()}-")
    try:
        process = subprocess.Popen(
            _command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=workdir,
            env=_environment(),
            start_new_session=True,
            close_fds=True,
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    supervisor = _Supervisor(process, payload, limits)
    try:
        supervisor.start()
        outcome = await asyncio.wait_for(asyncio.shield(supervisor.outcome), timeout=limits.wall_seconds)
    except asyncio.TimeoutError:
        outcome = "timeout"
    finally:
        await supervisor.close()
    duration = time.monotonic() - start
    if outcome == "timeout":
        return _failure("timeout", f"wall-clock limit of {limits.wall_seconds} s exceeded", duration)
    if outcome == "overflow":
        return _failure("output_too_large", f"more than {limits.max_output_bytes} bytes of output", duration)
    return _interpret(process.returncode, bytes(supervisor.stdout), bytes(supervisor.stderr), duration, limits)


def run_function(code: str, text: str, **options: Any) -> SandboxResult:
    """Synchronous `run_function_async`, with the same options (for callers without an event loop)."""
    return asyncio.run(run_function_async(code, text, **options))

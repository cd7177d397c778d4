"""Operating-system isolation for the sandbox child: what this machine offers, and the filter.

The boundary is the kernel's, not Python's. The child (``_child.py``) applies, before it
parses any untrusted code:

* **seccomp-bpf allow-list** (Linux, libseccomp via ``pyseccomp``): after set-up the child may
  only compute, allocate memory, read the clock and write to its stdout/stderr. Every other
  system call — open/openat (any file, ``/proc`` included), unlink, rename, mkdir, socket,
  connect, clone/fork, execve, kill, ptrace, mount, bpf, io_uring, ... — fails with EPERM.
  The filter is compiled once here, in the parent, and handed to the child as raw BPF, which
  the child installs with ``prctl`` (no library loading in the child).
* **Landlock** (Linux ≥ 5.13, where enabled): no file-system access at all, no TCP, and (ABI ≥ 6)
  no signals to processes outside the sandbox.
* **Namespaces and identity**: a fresh network namespace (no interface but a down loopback);
  when the evaluator runs as root, the child drops to ``nobody`` with no groups.
* **rlimits**: address space, CPU time, file size 0, no new file descriptors, no new processes,
  no core dumps; and a parent-death signal.

The parent enforces the wall-clock deadline and the output budget itself (``runner.py``).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import sys
import tempfile
from typing import Any

STRONG_LAYERS = ("seccomp",)

# System calls the child may make once the filter is installed. Nothing here reaches a file,
# another process or the network; ``write`` is further limited to fds 1 and 2.
ALLOWED_SYSCALLS = (
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "madvise",
    "rt_sigreturn",
    "rt_sigprocmask",
    "rt_sigaction",
    "sigaltstack",
    "futex",
    "getrandom",
    "sched_yield",
    "clock_gettime",
    "clock_getres",
    "gettimeofday",
    "clock_nanosleep",
    "nanosleep",
    "fstat",
    "lseek",
    "close",
    "getpid",
    "gettid",
    "exit",
    "exit_group",
)

# Landlock system call numbers (the same on every 64-bit architecture Linux supports).
_LANDLOCK_CREATE_RULESET = 444
_LANDLOCK_CREATE_RULESET_VERSION = 1


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is absent or disabled."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(
        ctypes.c_long(_LANDLOCK_CREATE_RULESET),
        None,
        ctypes.c_size_t(0),
        ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION),
    )
    return int(version) if version > 0 else 0


@functools.lru_cache(maxsize=1)
def seccomp_filter() -> bytes | None:
    """The allow-list compiled to raw BPF for this machine's architecture, or None.

    None when not on Linux or when libseccomp (through ``pyseccomp``) is not available.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError, RuntimeError):
        return None
    syscall_filter = seccomp.SyscallFilter(seccomp.ERRNO(errno.EPERM))
    for name in ALLOWED_SYSCALLS:
        try:
            syscall_filter.add_rule(seccomp.ALLOW, name)
        except (OSError, ValueError, RuntimeError):
            continue  # a call this architecture does not have
    for fd in (1, 2):
        syscall_filter.add_rule(seccomp.ALLOW, "write", seccomp.Arg(0, seccomp.EQ, fd))
    with tempfile.TemporaryFile() as out:
        syscall_filter.export_bpf(out)
        out.seek(0)
        program = out.read()
    return program if program and len(program) % 8 == 0 else None


def available_layers() -> dict[str, bool]:
    """Which isolation layers this machine offers the sandbox (what the child will try)."""
    linux = sys.platform.startswith("linux")
    return {
        "seccomp": seccomp_filter() is not None,
        "landlock": landlock_abi() > 0,
        "network namespace": linux,
        "unprivileged user": linux and (os.geteuid() != 0 or _nobody_exists()),
        "rlimits": linux or sys.platform == "darwin",
    }


def missing_for_strong_isolation(layers: dict[str, bool] | None = None) -> list[str]:
    """The layers without which model-written code is refused (unless the user opts in)."""
    layers = available_layers() if layers is None else layers
    return [name for name in STRONG_LAYERS if not layers.get(name)]


def refusal_message(missing: list[str]) -> str:
    why = (
        "not Linux"
        if not sys.platform.startswith("linux")
        else ("libseccomp or the pyseccomp package is missing (pip install pyseccomp; apt-get install libseccomp2)")
    )
    return (
        f"code-guided extraction runs model-written code and needs operating-system isolation "
        f"({', '.join(missing)}), which is not available here: {why}. Use --extraction general "
        f"(the extractor model lists the parts itself), or --allow-weak-sandbox to accept the risk."
    )


def _nobody_exists() -> bool:
    try:
        import pwd

        pwd.getpwnam("nobody")
        return True
    except (ImportError, KeyError):
        return False


def child_settings() -> dict[str, Any]:
    """What the parent tells the child about isolation (the BPF program travels as hex)."""
    program = seccomp_filter()
    return {
        "seccomp_bpf": program.hex() if program else None,
        "landlock_abi": landlock_abi(),
        "drop_to_nobody": os.geteuid() == 0 if hasattr(os, "geteuid") else False,
    }


def describe(layers: dict[str, bool]) -> str:
    return ", ".join(f"{name}: {'on' if on else 'off'}" for name, on in layers.items())

"""Adversarial suite: model-written code that has already escaped Python's restrictions.

Every program here runs with ``python_guards=False``: real builtins and real imports, so it
holds ``os``, ``sys``, ``ctypes`` and ``signal`` exactly as code that found its way out of the
restricted namespace by introspection would. Each test asserts that the operating system
stops the attack, that the run ends within its limit, and that no process or file is left.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from proseval.sandbox import SandboxLimits, isolation, run_function

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the OS boundary is Linux's")

# The wall clock as a hang guard only: an attack is stopped by what it attacks, on a machine of any speed.
LIMITS = SandboxLimits(wall_seconds=60.0, cpu_seconds=2, memory_bytes=256 * 1024 * 1024)
PRELUDE = "import os, sys, ctypes, time\nlibc = ctypes.CDLL(None, use_errno=True)\n"
SECRET = "sk-proseval-adversarial-0123456789"
HANG_GUARD_S = 60  # only against a test that hangs: no outcome waits this long


def attack(body: str, text: str = "", limits: SandboxLimits = LIMITS, **kwargs):
    """Run `body` as the body of extract_info_list with the Python guards off; (result, seconds)."""
    code = PRELUDE + "def extract_info_list(model_response):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    start = time.monotonic()
    result = run_function(code, text, limits=limits, python_guards=False, **kwargs)
    return result, time.monotonic() - start


def gone(pids: list[str]) -> bool:
    """Whether none of these processes is running (gone, or a zombie left for its parent)."""

    def running(pid: str) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
        except (OSError, IndexError):
            return False

    return not any(running(pid) for pid in pids)


def wait_until(done: Callable[[], bool]) -> None:
    """Return once `done()`; `HANG_GUARD_S` at most (then the caller's assertion fails)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)


def sandbox_processes() -> list[int]:
    """Processes still running the sandbox's child script."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"sandbox/_child.py" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture(autouse=True)
def nothing_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Each attack must leave no sandbox process and no working directory."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("PROSEVAL_API_KEY", SECRET)
    yield
    wait_until(lambda: not sandbox_processes())  # a killed child may take a moment to be gone
    assert sandbox_processes() == []
    assert list((tmp_path / "tmp").iterdir()) == []


def denied(result) -> bool:
    """The program caught the refusal and reported it, or died of it."""
    return (result.ok and result.value and result.value[0] == "denied") or result.error_kind == "exception"


def test_the_full_set_of_layers_is_applied_on_this_machine():
    result, _ = attack("return ['ok']")
    assert result.ok, result.error
    assert "seccomp" in result.layers and "rlimits" in result.layers
    if isolation.landlock_abi():
        assert "landlock" in result.layers


def test_write_outside_the_work_dir(tmp_path: Path):
    target = tmp_path / "pwned.txt"
    result, seconds = attack(f"""
        try:
            fd = os.open({str(target)!r}, os.O_WRONLY | os.O_CREAT, 0o644)
            os.write(fd, b"x")
            return ["written"]
        except OSError as exc:
            return ["denied", str(exc.errno)]
    """)
    assert denied(result), result
    assert not target.exists()
    assert seconds < LIMITS.wall_seconds


def test_rename_delete_and_mkdir_outside(tmp_path: Path):
    victim = tmp_path / "keep.txt"
    victim.write_text("precious", encoding="utf-8")
    result, _ = attack(f"""
        outcomes = []
        for step in (lambda: os.rename({str(victim)!r}, {str(victim)!r} + ".moved"),
                     lambda: os.unlink({str(victim)!r}),
                     lambda: os.mkdir({str(tmp_path / "made")!r}),
                     lambda: os.truncate({str(victim)!r}, 0)):
            try:
                step()
                outcomes.append("done")
            except OSError:
                outcomes.append("denied")
        return ["denied"] if set(outcomes) == {{"denied"}} else outcomes
    """)
    assert result.value == ["denied"], result
    assert victim.read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "tmp"]


def test_read_the_parents_environment():
    result, _ = attack("""
        found = list(os.environ.values())
        for path in (f"/proc/{os.getppid()}/environ", "/proc/self/environ", "/proc/1/environ"):
            try:
                with open(path, "rb") as fh:
                    found.append(fh.read().decode("latin-1"))
            except OSError:
                found.append("denied")
        return found
    """)
    assert result.ok, result.error
    assert SECRET not in "".join(result.value)
    assert result.value.count("denied") == 3


def test_list_the_home_directory_and_the_root():
    result, _ = attack("""
        listed = []
        for path in (os.path.expanduser("~"), "/root", "/", "/tmp", "."):
            try:
                listed.append(str(os.listdir(path)))
            except OSError:
                pass
        return ["denied"] if not listed else listed
    """)
    assert result.value == ["denied"], result


def test_socket_to_localhost():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    result, _ = attack(f"""
        fd = libc.socket(2, 1, 0)
        if fd < 0:
            return ["denied"]
        addr = (ctypes.c_ubyte * 16)(2, 0, {port >> 8}, {port & 0xFF}, 127, 0, 0, 1)
        return ["connected" if libc.connect(fd, addr, 16) == 0 else "denied"]
    """)
    try:
        with pytest.raises(socket.timeout):
            server.accept()
    finally:
        server.close()
    assert result.value == ["denied"], result


def test_fork_and_spawn():
    result, _ = attack("""
        outcomes = []
        for step in (os.fork, lambda: os.posix_spawn("/bin/true", ["true"], {})):
            try:
                pid = step()
                if pid == 0:
                    os._exit(0)
                outcomes.append("forked")
            except OSError:
                outcomes.append("denied")
        return ["denied"] if set(outcomes) == {"denied"} else outcomes
    """)
    assert result.value == ["denied"], result


def test_exec_a_shell(tmp_path: Path):
    marker = tmp_path / "shell-ran"
    result, _ = attack(f"""
        try:
            os.execv("/bin/sh", ["sh", "-c", "touch {marker}"])
        except OSError:
            return ["denied"]
    """)
    assert result.value == ["denied"], result
    assert not marker.exists()


def test_signal_the_parent_from_a_sacrificial_evaluator():
    """The evaluating process here is a separate Python, so a successful kill cannot hit pytest."""
    probe = textwrap.dedent(f"""
        from proseval.sandbox import SandboxLimits, run_function
        code = {PRELUDE!r} + '''def extract_info_list(t):
            outcomes = []
            for target in (os.getppid(), -os.getppid(), 1):
                try:
                    os.kill(target, 9)
                    outcomes.append("sent")
                except OSError:
                    outcomes.append("denied")
            outcomes.append("tgkill" if libc.syscall(234, os.getppid(), os.getppid(), 9) == 0 else "denied")
            return outcomes
        '''
        result = run_function(code, "", limits=SandboxLimits(wall_seconds=5.0, cpu_seconds=2), python_guards=False)
        print(result.value)
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert done.stdout.strip() == "['denied', 'denied', 'denied', 'denied']"


def test_ptrace_and_reading_the_parents_memory():
    result, _ = attack("""
        ppid = os.getppid()
        attach = libc.ptrace(16, ppid, 0, 0)          # PTRACE_ATTACH
        buffer = ctypes.create_string_buffer(64)
        local = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 64)
        remote = (ctypes.c_void_p * 2)(0x400000, 64)
        read = libc.process_vm_readv(ppid, local, 1, remote, 1, 0)
        return ["denied"] if attach == -1 and read == -1 else [str(attach), str(read)]
    """)
    assert result.value == ["denied"], result


def test_load_a_shared_library():
    """Libraries the child has not mapped yet (libseccomp exists here: the filter was built with it)."""
    result, _ = attack("""
        loaded = []
        for name in ("libseccomp.so.2", "libz.so.1", "libsqlite3.so.0", "libcrypt.so.1"):
            try:
                ctypes.CDLL(name)
                loaded.append(name)
            except OSError:
                pass
        return ["denied"] if not loaded else loaded
    """)
    assert result.value == ["denied"], result


def test_flood_stdout():
    psutil = pytest.importorskip("psutil")
    rss_before = psutil.Process().memory_info().rss
    result, seconds = attack("""
        block = b"x" * 65536
        for _ in range(40000):   # 2.6 GB
            os.write(1, block)
        return []
    """)
    assert result.error_kind == "output_too_large", result
    assert seconds < LIMITS.wall_seconds
    assert psutil.Process().memory_info().rss - rss_before < 100 * 1024 * 1024


def test_allocate_8_gb():
    result, seconds = attack("""
        data = bytearray(8 * 1024 ** 3)
        return [str(len(data))]
    """)
    assert result.error_kind == "memory", result
    assert seconds < LIMITS.wall_seconds


def test_loop_forever_is_stopped_by_the_cpu_limit():
    # the wall clock only as a hang guard: the CPU second is spent first on any machine
    result, _ = attack("while True:\n    pass", limits=SandboxLimits(wall_seconds=120.0, cpu_seconds=1))
    assert result.error_kind == "timeout" and "CPU" in result.error, result


def test_sleep_forever_is_stopped_by_the_wall_clock():
    result, _ = attack("while True:\n    time.sleep(1)", limits=SandboxLimits(wall_seconds=1.0, cpu_seconds=5))
    assert result.error_kind == "timeout" and "wall-clock" in result.error  # sleeping spends no CPU


def test_other_kernel_interfaces_are_closed():
    result, _ = attack("""
        calls = {"memfd_create": (319, b"x", 0), "io_uring_setup": (425, 8, 0), "unshare": (272, 0x20000000),
                 "setsid": (112,), "mount": (165, b"none", b"/", b"tmpfs", 0, 0), "bpf": (321, 0, 0, 0)}
        opened = [name for name, args in calls.items() if libc.syscall(*args) >= 0]
        return ["denied"] if not opened else opened
    """)
    assert result.value == ["denied"], result


# --- the parent's own guarantees, shown with the kernel layers off (as on a weak machine) ------


@pytest.fixture
def weak(monkeypatch: pytest.MonkeyPatch):
    """No seccomp, no Landlock: only what the parent enforces (deadline, budget, group kill)."""
    monkeypatch.setattr(
        isolation, "child_settings", lambda: {"seccomp_bpf": None, "landlock_abi": 0, "drop_to_nobody": False}
    )


def test_without_seccomp_code_is_refused_unless_allowed(weak):
    result, _ = attack("return ['ran']")
    assert result.error_kind == "sandbox_error" and "--extraction general" in result.error
    allowed, _ = attack("return ['ran']", allow_weak=True)
    assert allowed.value == ["ran"]


def test_a_grandchild_holding_the_pipe_does_not_hold_the_parent(weak):
    result, _ = attack(
        """
        pid = os.fork()
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        return [str(pid)]
    """,
        allow_weak=True,
    )
    assert result.ok, result.error  # not held until the wall-clock limit by the grandchild's pipe
    wait_until(lambda: gone(result.value))  # the group was killed: it may take a moment to be gone
    assert gone(result.value)


def test_a_fork_bomb_leaves_no_process(weak):
    result, seconds = attack(
        """
        pids = []
        for _ in range(30):
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            pids.append(str(pid))
        return pids
    """,
        allow_weak=True,
    )
    assert result.ok and len(result.value) == 30
    wait_until(lambda: gone(result.value))  # the group was killed: it may take a moment to be gone
    assert gone(result.value), result.value


def test_the_child_refuses_to_run_when_the_filter_cannot_be_installed(monkeypatch: pytest.MonkeyPatch):
    """A corrupt filter fails closed: no code runs, the failure is a sandbox_error."""
    real = isolation.child_settings()
    monkeypatch.setattr(isolation, "child_settings", lambda: {**real, "seccomp_bpf": "00" * 7})
    result, _ = attack("return ['ran']")
    assert result.error_kind == "sandbox_error", result

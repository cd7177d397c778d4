"""The sandbox contains misbehaving extraction code and leaves the host untouched."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from proseval.sandbox import SandboxLimits, run_function, run_function_async

pytestmark = pytest.mark.slow

FAST = SandboxLimits(wall_seconds=5.0, cpu_seconds=2, memory_bytes=256 * 1024 * 1024)


def extractor(body: str) -> str:
    """Source of an `extract_info_list` whose body is `body`."""
    return "def extract_info_list(model_response):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def run(body: str, text: str = "1. alpha\n2. beta", **kwargs):
    return run_function(extractor(body), text, limits=kwargs.pop("limits", FAST), **kwargs)


def test_happy_path_uses_preimported_re_and_keeps_text():
    result = run(r'return re.findall(r"^\d+\. (.+)$", model_response, flags=re.M)')
    assert result.ok, result.error
    assert result.value == ["alpha", "beta"]
    assert result.error_kind is None and result.error is None
    assert result.duration > 0


def test_non_ascii_text_round_trips():
    result = run("return model_response.split('、')", text="一鸣惊人、二龙戏珠")
    assert result.value == ["一鸣惊人", "二龙戏珠"]


def test_allowed_imports_and_module_level_helpers_work():
    code = textwrap.dedent(
        """
        import json
        from collections import Counter

        def helper(text):
            return [w for w, _ in Counter(text.split()).most_common()]

        def extract_info_list(model_response):
            return helper(model_response) + [json.dumps(1)]
        """
    )
    result = run_function(code, "b a b", limits=FAST)
    assert result.value == ["b", "a", "1"]


def test_split_namespace_hides_helpers_like_the_official_code():
    code = "def helper(x):\n    return [x]\ndef extract_info_list(r):\n    return helper(r)\n"
    result = run_function(code, "x", limits=FAST, split_namespace=True)
    assert not result.ok and result.error_kind == "exception"
    assert "helper" in result.error


def test_infinite_loop_hits_the_wall_clock_limit():
    limits = SandboxLimits(wall_seconds=1.0, cpu_seconds=30)
    result = run("while True:\n    pass", limits=limits)
    assert result.error_kind == "timeout" and "wall-clock" in result.error  # not the CPU limit, 30 s away


def test_infinite_loop_hits_the_cpu_limit():
    limits = SandboxLimits(wall_seconds=120.0, cpu_seconds=1)  # the wall clock only as a hang guard
    result = run("x = 0\nwhile True:\n    x += 1", limits=limits)
    assert result.error_kind == "timeout" and "CPU" in result.error  # not the wall-clock limit


def test_unbounded_allocation_is_a_memory_error_and_the_host_is_unaffected():
    psutil = pytest.importorskip("psutil")
    rss_before = psutil.Process().memory_info().rss
    result = run("chunks = []\nwhile True:\n    chunks.append('x' * 10**6)")
    assert result.error_kind == "memory"
    one_shot = run("return ['x' * 10**12]")
    assert one_shot.error_kind == "memory"
    assert psutil.Process().memory_info().rss - rss_before < 50 * 1024 * 1024


def test_the_memory_cap_bounds_the_child_peak():
    """Measured in a fresh process, whose only child is the sandbox (RUSAGE_CHILDREN is per parent)."""
    probe = textwrap.dedent(
        f"""
        import resource
        from proseval.sandbox import SandboxLimits, run_function
        code = "def extract_info_list(model_response):\\n    chunks = []\\n    while True:\\n        chunks.append('x' * 10**6)"
        result = run_function(code, "text", limits=SandboxLimits(wall_seconds=5.0, cpu_seconds=2,
                                                                 memory_bytes={FAST.memory_bytes}))
        print(result.error_kind, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        """
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True, env=env)
    kind, peak_kib = out.stdout.split()
    assert kind == "memory"
    assert 0 < int(peak_kib) * 1024 <= FAST.memory_bytes


@pytest.mark.parametrize(
    "body",
    [
        "import socket\ns = socket.socket()\ns.connect(('127.0.0.1', 9))\nreturn []",
        "from socket import create_connection\nreturn []",
        "import _socket\nreturn []",
        "import urllib.request\nreturn []",
    ],
)
def test_network_access_is_forbidden(body):
    result = run(body)
    assert result.error_kind == "forbidden", result


@pytest.mark.parametrize(
    "module", ["os", "subprocess", "sys", "shutil", "pathlib", "ctypes", "importlib", "io", "builtins", "operator"]
)
def test_dangerous_imports_are_forbidden(module):
    result = run(f"import {module}\nreturn []")
    assert result.error_kind == "forbidden"
    assert module in result.error


def test_deleting_a_file_outside_is_blocked_and_the_file_survives(tmp_path: Path):
    victim = tmp_path / "keep.txt"
    victim.write_text("precious", encoding="utf-8")
    for body in (
        f"import os\nos.remove({str(victim)!r})\nreturn []",
        f"import shutil\nshutil.rmtree({str(tmp_path)!r})\nreturn []",
        f"from pathlib import Path\nPath({str(victim)!r}).unlink()\nreturn []",
    ):
        assert run(body).error_kind == "forbidden"
    assert victim.read_text(encoding="utf-8") == "precious"


def test_creating_a_file_outside_is_blocked(tmp_path: Path):
    target = tmp_path / "created.txt"
    result = run(f"with open({str(target)!r}, 'w') as f:\n    f.write('x')\nreturn []")
    assert result.error_kind == "forbidden"
    assert not target.exists()


@pytest.mark.parametrize(
    "body",
    [
        "return [str(c) for c in ().__class__.__base__.__subclasses__()]",
        "return [str(getattr((), '__class__'))]",
        "return [str(__builtins__)]",
        "g = (i for i in [1])\nreturn [str(g.gi_frame.f_back)]",
        "import string\nreturn [string.Formatter().get_field('0.__class__', [()], {})]",
        "eval('1')\nreturn []",
        "exec('import os')\nreturn []",
        "compile('1', 'x', 'eval')\nreturn []",
    ],
)
def test_escape_routes_are_closed(body):
    result = run(body)
    assert not result.ok
    assert result.error_kind in ("forbidden", "exception")


def test_kernel_limits_forbid_any_new_file_descriptor(tmp_path: Path):
    """Even code that escaped the Python-level checks could not open a file or a socket."""
    child_dir = Path(__file__).resolve().parents[2] / "src" / "proseval" / "sandbox"
    target = tmp_path / "escaped.txt"
    probe = textwrap.dedent(
        f"""
        import socket, sys
        sys.path.insert(0, {str(child_dir)!r})
        import _child
        _child._apply_limits({{"memory_bytes": 2**28, "cpu_seconds": 2}})
        for attempt in (lambda: open({str(target)!r}, "w"), socket.socket):
            try:
                attempt()
                print("opened")
            except OSError as exc:
                print(exc.errno)
        """
    )
    out = subprocess.run([sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, timeout=30)
    assert out.stdout.split() == ["24", "24"], out.stderr  # EMFILE twice
    assert not target.exists()


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("return {'a': 1}", "dict"),
        ("return None", "None"),
        ("return 42", "int"),
        ("return [['nested']]", "element 0"),
        ("return {'a', 'b'}", "JSON"),
    ],
)
def test_non_list_results_are_bad_results(body, fragment):
    result = run(body)
    assert result.error_kind == "bad_result"
    assert fragment in result.error


def test_scalars_are_turned_into_text_and_a_string_is_kept_as_is():
    assert run("return [1, 2.5, True, 'x']").value == ["1", "2.5", "True", "x"]
    assert run("return 'whole text'").value == "whole text"


def test_printing_does_not_corrupt_the_result():
    assert run("print('noise')\nreturn ['ok']").value == ["ok"]


def test_oversized_result_is_rejected():
    limits = SandboxLimits(wall_seconds=5.0, cpu_seconds=2, max_output_bytes=1000)
    result = run("return ['x' * 5000]", limits=limits)
    assert result.error_kind == "output_too_large" and "too large" in result.error


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        ("def extract_info_list(x) return []", "SyntaxError"),
        ("def other(x):\n    return []", "extract_info_list"),
        ("def extract_info_list(x):\n    raise ValueError('boom')", "boom"),
        ("def extract_info_list(x):\n    raise SystemExit(3)", "SystemExit"),
    ],
)
def test_broken_code_is_an_exception(code, fragment):
    result = run_function(code, "x", limits=FAST)
    assert result.error_kind == "exception"
    assert fragment in result.error


def test_working_directory_is_removed(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert run("return []").ok
    assert run("while True:\n    pass", limits=SandboxLimits(wall_seconds=0.5)).error_kind == ("timeout")
    assert list(tmp_path.iterdir()) == []


def test_folders_left_by_a_killed_evaluator_are_swept(tmp_path: Path, monkeypatch):
    """A folder whose owning process is dead is removed; a live process's folder is kept."""
    from proseval.sandbox import runner

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(runner, "_swept", False)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"proseval-sandbox-{dead.pid}-abc"
    live = tmp_path / f"proseval-sandbox-{os.getppid()}-def"
    stale.mkdir()
    live.mkdir()
    assert run("return []").ok
    assert not stale.exists() and live.exists()


async def test_async_runs_do_not_block_the_event_loop():
    """A quick run started beside a spinning one ends while the spinning one still runs (its limits
    are hang guards only): the event loop is not held while a child runs."""
    spinning = asyncio.create_task(
        run_function_async(
            extractor("while True:\n    pass"), "", limits=SandboxLimits(wall_seconds=120.0, cpu_seconds=120)
        )
    )
    await asyncio.sleep(0)  # the spinning run starts first
    fast = await run_function_async(extractor("return [model_response]"), "hi", limits=FAST)
    assert fast.value == ["hi"]
    assert not spinning.done()  # the quick child did not wait for the spinning one
    spinning.cancel()
    with pytest.raises(asyncio.CancelledError):
        await spinning


async def test_cancelling_an_async_run_kills_the_child():
    psutil = pytest.importorskip("psutil")
    before = set(psutil.Process().children(recursive=True))  # e.g. worker pools other tests started
    limits = SandboxLimits(wall_seconds=30.0, cpu_seconds=30)
    task = asyncio.create_task(run_function_async(extractor("while True:\n    pass"), "", limits=limits))
    deadline = time.monotonic() + 60  # a hang guard
    while not set(psutil.Process().children(recursive=True)) - before:  # until the child runs
        assert not task.done() and time.monotonic() < deadline
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert set(psutil.Process().children(recursive=True)) - before == set()


async def test_many_concurrent_runs_all_finish():
    """Runs that start and end around each other never mix up their pipes (fd numbers are reused)."""
    gate = asyncio.Semaphore(4)

    async def one(i: int):
        async with gate:
            return await run_function_async(extractor("return [model_response]"), f"text {i}", limits=FAST)

    results = await asyncio.gather(*(one(i) for i in range(100)))
    assert [r.value for r in results] == [[f"text {i}"] for i in range(100)]

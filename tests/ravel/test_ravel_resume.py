"""An interrupted run resumes each unfinished episode from its last completed step."""

from __future__ import annotations

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

import proseval
from proseval.benchmarks.ravel.env import Step
from ravel.ravel_fixtures import efficient, is_policy, policy_state, tools

ROOT = Path(__file__).resolve().parents[2]


class Killed(BaseException):
    """Stands for the process being killed: not an error the runner records."""


def test_an_interrupted_episode_continues_from_its_last_step(tmp_path, data_dir, scripts):
    calls: Counter[tuple[str, int, str]] = Counter()
    kill = {"armed": True}

    def candidate(messages):
        if is_policy(messages):
            turn, state, topic = policy_state(messages)
            if "flood" in topic and turn == 5 and kill["armed"]:
                kill["armed"] = False
                raise Killed
            calls[(topic, turn, "policy")] += 1
            return efficient(state)
        topic = messages[-1]["content"].split("Task", 1)[1].split("\n", 1)[0]
        calls[(topic, 0, "tool")] += 1
        return tools(messages)

    params = {"data_dir": str(data_dir), "language": "en", "max_steps": 20}
    judge = scripts("judge", ['{"score": 6, "verdict": "ok"}'])
    with pytest.raises(Killed):
        proseval.run(
            "ravel",
            model=scripts("killable", candidate),
            roles={"judge": judge},
            params=params,
            run_dir=tmp_path / "run",
            cache=False,
        )
    saved = [json.loads(p.read_text())["data"] for p in (tmp_path / "run" / "checkpoints").glob("*.json")]
    assert [len(s["steps"]) for s in saved if "flood" in s["episode"]["topic"]] == [4]
    result = proseval.resume(tmp_path / "run", cache=False)
    records = {r.id: r for r in result.records()}
    assert sorted(records) == ["end2end_en_1", "end2end_en_2"] and result.results.counts.duplicates == 0
    speech = records["end2end_en_2"]
    assert speech.state.metadata["resumed_at_step"] == 4
    steps = [Step.model_validate(t) for t in speech.state.turns]
    assert [s.step for s in steps] == list(range(1, 9)) and steps[-1].action == "finish"
    # no policy decision was made twice: turns 1-4 before the kill, 5-8 after
    policy_turns = sorted(
        turn for (topic, turn, kind), n in calls.items() if "flood" in topic and kind == "policy" for _ in range(n)
    )
    assert policy_turns == list(range(1, 9))
    tool_calls = sum(n for (topic, _, kind), n in calls.items() if "flood" in topic and kind == "tool")
    assert tool_calls == 7 == sum(s.tool is not None for s in steps)  # each tool called once per step
    assert speech.scores["success"].value == 1.0 and speech.scores["steps"].value == 8.0
    assert not list((tmp_path / "run" / "checkpoints").glob("*.json"))


CHILD = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    import proseval
    from proseval.models.scripted import register_script
    from ravel.ravel_fixtures import efficient, is_policy, policy_state, tools

    data_dir, run_dir, log = sys.argv[1], sys.argv[2], Path(sys.argv[3])

    def candidate(messages):
        if is_policy(messages):
            turn, state, topic = policy_state(messages)
            if "flood" in topic and turn == 5:
                log.with_suffix(".stuck").touch()
                time.sleep(600)  # killed here, in the middle of the episode
            with log.open("a") as f:
                f.write(json.dumps([topic, turn]) + "\\n")
            return efficient(state)
        return tools(messages)

    register_script("killable", candidate)
    register_script("judge", ['{"score": 6, "verdict": "ok"}'])
    proseval.run("ravel", model="scripted/killable", roles={"judge": "scripted/judge"},
                 params={"data_dir": data_dir, "language": "en", "max_steps": 20}, run_dir=run_dir, cache=False)
    """
)


def test_a_run_killed_mid_episode_resumes_it_from_its_last_step(tmp_path, data_dir, scripts):
    """SIGKILL of a real process while the policy is deciding step 5; resumed in another process."""
    run_dir, log = tmp_path / "run", tmp_path / "policy.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")])}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(data_dir), str(run_dir), str(log)], env=env)
    try:
        deadline = time.monotonic() + 60
        while not log.with_suffix(".stuck").exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert log.with_suffix(".stuck").exists(), "the child never reached step 5"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    before = [tuple(json.loads(line)) for line in log.read_text().splitlines()]
    saved = [json.loads(p.read_text())["data"] for p in (run_dir / "checkpoints").glob("*.json")]
    assert [len(s["steps"]) for s in saved if "flood" in s["episode"]["topic"]] == [4]

    after: list[tuple[str, int]] = []

    def candidate(messages):
        if is_policy(messages):
            turn, state, topic = policy_state(messages)
            after.append((topic, turn))
            return efficient(state)
        return tools(messages)

    scripts("killable", candidate)
    scripts("judge", ['{"score": 6, "verdict": "ok"}'])
    result = proseval.resume(run_dir, cache=False)
    counted = Counter(r.id for r in result.records())
    assert counted == {"end2end_en_1": 1, "end2end_en_2": 1} and result.results.complete
    speech = next(r for r in result.records() if r.id == "end2end_en_2")
    assert speech.state.metadata["resumed_at_step"] == 4
    assert [Step.model_validate(t).step for t in speech.state.turns] == list(range(1, 9))
    flood = lambda calls: [turn for topic, turn in calls if "flood" in topic]  # noqa: E731  # a one-line helper
    assert flood(before) == [1, 2, 3, 4] and flood(after) == [5, 6, 7, 8]  # no decision asked twice
    assert speech.scores["success"].value == 1.0 and speech.scores["steps"].value == 8.0

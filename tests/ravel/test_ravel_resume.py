"""An interrupted run resumes each unfinished episode from its last completed step."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from ravel.ravel_fixtures import efficient, is_policy, policy_state, tools

import proseval
from proseval.benchmarks.ravel.env import Step


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
        proseval.run("ravel", model=scripts("killable", candidate), roles={"judge": judge}, params=params,
                     run_dir=tmp_path / "run", cache=False)
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
    policy_turns = sorted(turn for (topic, turn, kind), n in calls.items() if "flood" in topic and kind == "policy"
                          for _ in range(n))
    assert policy_turns == list(range(1, 9))
    tool_calls = sum(n for (topic, _, kind), n in calls.items() if "flood" in topic and kind == "tool")
    assert tool_calls == 7 == sum(s.tool is not None for s in steps)  # each tool called once per step
    assert speech.scores["success"].value == 1.0 and speech.scores["steps"].value == 8.0
    assert not list((tmp_path / "run" / "checkpoints").glob("*.json"))

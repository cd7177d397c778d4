"""Meeseeks' ratings: the Yes/No judge's verdict per requirement it was asked, on the sample's final answer.

Rule checks (code on the extractor's output), the extractor's output, sub-questions gated by a
failed or undecided dependency, and a head-profile reply without a verdict line (0 by the
reference's rule) are not verdicts of the judge.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from proseval.benchmarks.meeseeks.params import MeeseeksParams
from proseval.benchmarks.meeseeks.task import judge_ratings, judge_verdicts, make_task, score_state
from proseval.kit import Rating, Scale, State
from proseval.models.base import FatalError
from proseval.models.scripted import register_script, unregister_script
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run

DATA = Path(__file__).parent / "fixtures" / "task"
PASS = Scale(0, 1, "binary")


def sub(position: int, question: str, method: str, result: int | None, status: str, **more) -> dict:
    return {
        "method": method,
        "result": result,
        "status": status,
        "reason": "",
        "position": position,
        "point_id": position,
        "question": question,
        "rule": None if method == "judge" else "rule:[1]",
        "tags": None,
        **more,
    }


def turn(number: int, subs: list[dict]) -> dict:
    """A round as `loop.round_record` stores it."""
    checks = [[s["tags"], s["result"], False] for s in subs]
    return {
        "round": number,
        "prompt": "p",
        "answer": f"answer {number}",
        "finish_reason": "stop",
        "parts": {},
        "sub_questions": subs,
        "checks": checks,
        "failed": sum(s["result"] == 0 for s in subs),
        "undecided": sum(s["result"] is None for s in subs),
        "unsupported": 0,
    }


def test_the_judges_verdicts_of_the_last_round_are_the_ratings():
    first = turn(
        1,
        [sub(0, "Is it a poem?", "judge", 0, "judged"), sub(1, "Does it rhyme?", "dependency", 0, "dependency_failed")],
    )
    last = turn(
        2,
        [
            sub(0, "Is it a poem?", "judge", 1, "judged"),
            sub(1, "Does it rhyme?", "judge", None, "unscored"),
            sub(2, "Has it 4 lines?", "rule", 1, "ok"),
            sub(3, "Is it a poem?", "judge", None, "error"),
            sub(4, "Is it sad?", "dependency", None, "dependency_undecided"),
        ],
    )
    scores = score_state(State(output="answer 2", turns=[first, last]))
    assert scores["meeseeks"].metadata["judge_verdicts"]["round"] == 2
    assert judge_ratings(scores) == [
        Rating("Is it a poem? (#1)", 1.0, PASS, "judge"),
        Rating("Does it rhyme?", None, PASS, "judge"),
        Rating("Is it a poem? (#4)", None, PASS, "judge"),
    ]


def test_a_round_stopped_by_a_candidate_error_is_not_the_answer_rated():
    rated = turn(1, [sub(0, "Is it a poem?", "judge", 0, "judged")])
    stopped = {
        "round": 2,
        "prompt": "p",
        "checks": None,
        "candidate_error": "FatalError: x",
        "candidate_overflow": False,
    }
    assert judge_verdicts([rated, stopped]) == {
        "round": 1,
        "verdicts": [{"position": 0, "question": "Is it a poem?", "result": 0, "status": "judged"}],
    }


def test_a_head_reply_without_a_verdict_line_is_unread_not_a_fail():
    defaulted = turn(
        1, [sub(0, "Is it a poem?", "judge", 0, "judged", defaulted=True), sub(1, "Is it short?", "judge", 0, "judged")]
    )
    scores = score_state(State(output="answer 1", turns=[defaulted]))
    assert scores["meeseeks"].value == 0.0  # the reference's 0 still counts in the score...
    assert judge_ratings(scores) == [Rating("Is it a poem?", None, PASS), Rating("Is it short?", 0.0, PASS)]


def test_nothing_to_rate_without_judged_requirements():
    only_rules = turn(1, [sub(0, "Has it 4 lines?", "rule", 1, "ok")])
    assert judge_ratings(score_state(State(output="x", turns=[only_rules]))) == []
    assert judge_ratings({}) == []


ANSWERS = {
    "slogans": ["Nothing here.", "1. Tea time\n2. Calm cup"],
    "poem": ["Rain and an umbrella."],
    "colours": ["1. red\n2. green\n3. blue"],
}
asked: dict[str, int] = {}


def candidate(messages):
    text = messages[-1]["content"]
    if "NEVER" in text:
        return FatalError("the provider rejected this request")
    key = next(k for k in ANSWERS if k in text)
    asked[key] = asked.get(key, 0) + 1
    return ANSWERS[key][min(asked[key], len(ANSWERS[key])) - 1]


def judge(messages):
    prompt = messages[-1]["content"]
    if "Did the answer give slogans" in prompt:
        return "分析：none\n判断：否" if "Nothing here." in prompt else "分析：two\n判断：是"
    return "Hard to say."  # the poem gate: no verdict line


@pytest.fixture
def scripts():
    asked.clear()
    for name, script in (("msr-candidate", candidate), ("msr-extractor", lambda m: "ALL"), ("msr-judge", judge)):
        register_script(name, script)
    yield
    for name in ("msr-candidate", "msr-extractor", "msr-judge"):
        unregister_script(name)


async def run(tmp_path: Path, **params):
    task = make_task(MeeseeksParams(data_dir=str(DATA), language="en", extraction="general", **params))
    assert task.ratings is judge_ratings
    bindings = {role: RoleBinding(spec=f"scripted/msr-{role}") for role in ("candidate", "extractor", "judge")}
    folder, _ = await start_run(task, bindings, RunOptions(out_dir=tmp_path, display="none"))
    return {r.id.rsplit("#", 1)[1]: r for r in folder.iter_records()}, task


async def test_a_run_rates_the_final_answers_judged_requirements(tmp_path: Path, scripts):
    records, task = await run(tmp_path, rounds=2)
    slogans, poem, never, colours = (records[str(i)] for i in range(4))
    assert len(slogans.state.turns) == 2  # round 1's gate failed (judge: No), so the item was re-asked
    assert task.ratings(slogans.scores) == [Rating("Did the answer give slogans at all?", 1.0, PASS)]
    assert task.ratings(poem.scores) == [Rating("Is the answer a poem?", None, PASS)]  # no verdict: unscored
    assert never.status == "error" and task.ratings(never.scores) == []
    assert task.ratings(colours.scores) == []  # two rule checks, no judge


async def test_head_profile_defaults_are_not_verdicts(tmp_path: Path, scripts):
    records, task = await run(tmp_path, rounds=1, compat="head")
    poem = records["1"]
    assert poem.state.turns[0]["sub_questions"][0]["result"] == 0  # the reference reads no verdict as 0
    assert task.ratings(poem.scores) == [Rating("Is the answer a poem?", None, PASS)]
    assert task.ratings(records["0"].scores) == [Rating("Did the answer give slogans at all?", 0.0, PASS)]

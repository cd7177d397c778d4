"""The demo's ratings: the judge's 1-10 quality, never the counted length or a rule-set score."""

from __future__ import annotations

import json

import pytest

import proseval
from proseval.benchmarks.demo.task import make_task
from proseval.kit import Rating, Scale, Score
from proseval.kit.testing import register_script, unregister_script

SCALE = Scale(1, 10, "ordinal")


def test_a_judged_quality_is_a_rating_and_length_is_not():
    ratings = make_task().ratings
    assert ratings is not None
    scores = {"length": Score(value=0.8), "quality": Score(value=7.0, parse_status="repaired")}
    assert ratings(scores) == [Rating("quality", 7.0, SCALE, "judge")]


def test_an_unreadable_verdict_is_kept_unscored():
    ratings = make_task().ratings
    scores = {"length": Score(value=0.8), "quality": Score.unscored("out_of_range", "score 11 is outside 1-10")}
    assert ratings(scores) == [Rating("quality", None, SCALE, "judge")]


def test_the_empty_answers_rule_set_score_is_not_a_rating():
    ratings = make_task().ratings
    scores = {
        "length": Score(value=0.0),
        "quality": Score(value=1.0, parse_status="empty", explanation="the candidate's answer is empty"),
    }
    assert ratings(scores) == []


def test_an_empty_judge_reply_is_an_unscored_rating():
    ratings = make_task().ratings
    scores = {"quality": Score.unscored("empty", "the judge returned no text")}
    assert ratings(scores) == [Rating("quality", None, SCALE, "judge")]


@pytest.fixture
def scripts():
    # the memo is answered with nothing (rule-set lowest score); the judge cannot score the poem
    register_script("demo-candidate", lambda m: "" if "memo" in m[-1]["content"] else "Some writing here.")
    register_script(
        "demo-judge",
        lambda m: "no idea" if "autumn" in m[-1]["content"] else json.dumps({"score": 6, "reason": "fine"}),
    )
    yield
    unregister_script("demo-candidate")
    unregister_script("demo-judge")


def test_a_run_rates_every_judged_sample(tmp_path, scripts):
    run = proseval.run("demo", model="scripted/demo-candidate", roles={"judge": "scripted/demo-judge"}, out=tmp_path)
    ratings = make_task().ratings
    by_id = {record.id: ratings(record.scores) for record in run.records()}
    assert len(by_id) == 8
    assert by_id["demo/memo-meeting"] == []
    assert by_id["demo/poem-autumn"] == [Rating("quality", None, SCALE, "judge")]
    judged = [
        r for sample, found in by_id.items() if sample not in ("demo/memo-meeting", "demo/poem-autumn") for r in found
    ]
    assert judged == [Rating("quality", 6.0, SCALE, "judge")] * 6

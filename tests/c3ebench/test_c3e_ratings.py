"""C3EBench's ratings: the judge's one 1-10 score per item; an empty answer's rule-set 1 is not a rating."""

from __future__ import annotations

from pathlib import Path

import pytest

from proseval.kit import Rating, Scale, Score
from proseval.models.base import FatalError
from proseval.models.scripted import register_script, unregister_script
from proseval.registry import get_task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run

SCALE = Scale(1, 10, "ordinal")


@pytest.fixture
def ratings(tiny_dir: Path):
    task = get_task("c3ebench", {"data_dir": str(tiny_dir)})
    assert task.ratings is not None
    return task.ratings


def test_a_judged_score_is_the_items_rating(ratings):
    score = Score(value=7.0, parse_status="coerced", metadata={"judge_calls": 2, "official": None})
    assert ratings({"c3e": score}) == [Rating("c3e", 7.0, SCALE, "judge")]


@pytest.mark.parametrize("status", ["unparsable", "out_of_range", "error", "empty"])
def test_an_unreadable_reply_or_failed_call_is_an_unscored_rating(ratings, status):
    # "empty" here is the judge's empty reply (no value), not the candidate's empty answer
    score = Score.unscored(status, "no verdict", judge_calls=3, official=None)
    assert ratings({"c3e": score}) == [Rating("c3e", None, SCALE, "judge")]


def test_the_empty_answers_lowest_score_is_not_a_rating(ratings):
    score = Score(value=1.0, parse_status="empty", metadata={"official": 1.0, "judge_calls": 0})
    assert ratings({"c3e": score}) == []
    assert ratings({}) == []


CANDIDATE = {
    "The river rose overnight": "Farmers fled.",
    "Floods are bad.": "",
    "thanking volunteers": "Thanks.",
    "river management": "An essay.",
}
JUDGE = {
    "Farmers fled.": '{"score": 7, "verdict": "good"}',
    "Thanks.": FatalError("judge endpoint refused"),
    "An essay.": "",
}


@pytest.fixture
def scripts():
    register_script("c3er-candidate", lambda m: next(a for p, a in CANDIDATE.items() if p in m[-1]["content"]))
    register_script("c3er-judge", lambda m: JUDGE[m[-1]["content"].rsplit("[Candidate]\n", 1)[1]])
    yield
    unregister_script("c3er-candidate")
    unregister_script("c3er-judge")


async def test_a_run_rates_each_judged_item(tiny_dir: Path, tmp_path: Path, scripts):
    task = get_task("c3ebench", {"data_dir": str(tiny_dir), "language": "en", "judge_attempts": 1})
    bindings = {
        "candidate": RoleBinding(spec="scripted/c3er-candidate"),
        "judge": RoleBinding(spec="scripted/c3er-judge"),
    }
    folder, _ = await start_run(task, bindings, RunOptions(out_dir=tmp_path, display="none"))
    records = {r.id: r for r in folder.iter_records()}
    # both unscored "empty": the judge's empty reply has no value, the empty answer the rule-set 1
    assert records["end2end_en_1"].scores["c3e"].parse_status == records["edit_en_1"].scores["c3e"].parse_status
    found = {key: task.ratings(r.scores) for key, r in records.items()}
    assert found == {
        "cloze_en_1": [Rating("c3e", 7.0, SCALE)],
        "edit_en_1": [],  # empty answer: lowest score, no judge call
        "condition_en_1": [Rating("c3e", None, SCALE)],  # the judge call failed
        "end2end_en_1": [Rating("c3e", None, SCALE)],
    }  # the judge replied nothing

"""LongWeave's ratings: the judge's yes/no per target field and CF's relevance gate; rule-scored tasks rate nothing."""

from __future__ import annotations

import json
import re

import pytest

from proseval.benchmarks.longweave.judging.calls import JudgeCall
from proseval.benchmarks.longweave.judging.config import JudgedConfig
from proseval.benchmarks.longweave.judging.ratings import ratings
from proseval.benchmarks.longweave.judging.replies import parse_reply
from proseval.benchmarks.longweave.judging.scores import empty_answer_score, score_biog, score_nw, score_sr
from proseval.benchmarks.longweave.scorers import RuleScore
from proseval.kit import Rating, Scale, Score
from proseval.models.scripted import register_script, unregister_script
from proseval.registry import get_task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run

YES_NO = Scale(0, 1, "binary")


def as_score(rule: RuleScore) -> dict[str, Score]:
    """What the task's scorer returns for a judged answer (task.Scorers.__call__)."""
    meta = {"reasoning_removed": False, "metrics": rule.metrics, "trace": rule.trace}
    if rule.value is None:
        return {
            "longweave": Score(
                value=None,
                parse_status="unparsable",
                explanation=rule.reason or "unscored",
                metadata={**meta, "outcome": "unscored"},
            )
        }
    return {
        "longweave": Score(value=rule.value, metadata={**meta, "outcome": "ok"}),
        "length_adherence": Score(value=0.9),
    }


def batch(task: str, ids: tuple[int, ...], reply: str | None):
    return parse_reply(JudgeCall(task, ids, []), reply)  # type: ignore[arg-type]  # the task as a plain string


def rating(name: str, value: float | None) -> Rating:
    return Rating(name, value, YES_NO, "judge")


SR_TARGET = {"qa_pairs": [{"question": f"Q{i}?", "answer": f"A{i}"} for i in range(1, 5)]}


def test_sr_rates_answered_and_correct_per_question_but_not_a_gated_correct():
    batches = [
        batch(
            "sr",
            (1, 2, 3),
            json.dumps(
                [
                    {"id": 1, "answered": True, "correct": True},
                    {"id": 2, "answered": True, "correct": False},
                    {"id": 3, "answered": False, "correct": True},
                ]
            ),
        ),
        batch("sr", (4,), "I cannot tell."),
    ]
    scores = as_score(score_sr("report", SR_TARGET, batches, 1024))
    assert ratings(scores) == [
        rating("question 1: answered", 1.0),
        rating("question 1: correct", 1.0),
        rating("question 2: answered", 1.0),
        rating("question 2: correct", 0.0),
        rating("question 3: answered", 0.0),  # its "correct" is forced false by the reader: no rating
        rating("question 4: answered", None),
        rating("question 4: correct", None),  # unparsable reply
    ]


def test_official_counting_of_unscored_targets_is_not_the_judges_verdict():
    batches = [
        batch("biog", (1, 2), json.dumps([{"id": 1, "covered": True}, {"id": 2, "covered": False}])),
        batch("biog", (3,), None),
    ]  # a failed call
    target = {"target_sentences": ["One.", "Two.", "Three."]}
    official = score_biog("text", target, batches, 100, JudgedConfig.official())
    assert official.value == pytest.approx(1 / 3)  # the failed target counts as not covered...
    assert ratings(as_score(official)) == [
        rating("fact 1: covered", 1.0),
        rating("fact 2: covered", 0.0),
        rating("fact 3: covered", None),
    ]  # ...but the judge said nothing


def test_nw_rates_statements_and_an_unscored_sample_keeps_its_verdicts():
    target = {
        "categories": ["Alpha", "Beta"],
        "rubric": {},
        "statements": [{"id": 1, "category": "Beta"}, {"id": 2, "category": "Alpha"}, {"id": 10, "category": "Beta"}],
    }
    batches = [
        batch(
            "nw",
            (1, 10),
            json.dumps(
                [{"id": 1, "exists": True, "follows_rules": False}, {"id": 10, "exists": False, "follows_rules": True}]
            ),
        ),
        batch("nw", (2,), "no verdict"),
    ]
    assert ratings(as_score(score_nw("article", target, batches, 100))) == [
        rating("statement 1: exists", 1.0),
        rating("statement 1: follows rules", 0.0),
        rating("statement 2: exists", None),
        rating("statement 2: follows rules", None),
        rating("statement 10: exists", 0.0),
    ]
    # under the minimum share of judged targets the sample is unscored, the verdicts given still count
    unscored = score_nw("article", target, batches, 100, JudgedConfig(min_scored_share=0.9))
    assert unscored.value is None
    assert [r.value for r in ratings(as_score(unscored))] == [1.0, 0.0, None, None, 0.0]


def test_the_relevance_gate_of_cf():
    def cf(trace: dict) -> dict[str, Score]:
        return {"longweave": Score(value=0.5, metadata={"metrics": {}, "trace": trace, "outcome": "ok"})}

    relevant = {"relevance": "judged relevant", "extraction": "fenced", "relevance_status": "ok"}
    irrelevant = {"relevance": "judged irrelevant", "extraction": "fenced", "relevance_status": "text"}
    defaulted = {"relevance": "judged relevant", "extraction": "fenced", "relevance_status": "no_reply"}
    assert ratings(cf(relevant)) == [rating("relevant and complete", 1.0)]
    assert ratings(cf(irrelevant)) == [rating("relevant and complete", 0.0)]
    assert ratings(cf(defaulted)) == [rating("relevant and complete", None)]  # the official preset's default
    strict = {
        "longweave": Score(
            value=None,
            parse_status="unparsable",
            metadata={"metrics": {"total_score": None}, "trace": {"relevance": "unparsable"}, "outcome": "unscored"},
        )
    }
    assert ratings(strict) == [rating("relevant and complete", None)]


def test_rule_scored_tasks_and_empty_answers_rate_nothing():
    kvg = {
        "longweave": Score(
            value=1.0, metadata={"metrics": {"accuracy": 1.0}, "trace": {"parsed_keys": 12}, "outcome": "ok"}
        )
    }
    assert ratings(kvg) == []
    empty = empty_answer_score("sr")
    assert (
        ratings(
            {
                "longweave": Score(
                    value=0.0, parse_status="empty", metadata={"outcome": "empty", "metrics": empty.metrics}
                )
            }
        )
        == []
    )
    assert ratings({}) == []


ITEM = re.compile(r"^\[(\d+)\]", re.MULTILINE)


def judge(messages):
    """SR: question 1 answered and correct, every other one not answered; each call's last id left out."""
    ids = [int(i) for i in ITEM.findall(messages[-1]["content"])]
    return json.dumps([{"id": i, "answered": i == 1, "correct": True} for i in ids[:-1]])


@pytest.fixture
def scripts():
    register_script("lwr-candidate", ["A report. " * 100])
    register_script("lwr-judge", judge)
    yield
    unregister_script("lwr-candidate")
    unregister_script("lwr-judge")


async def test_a_run_rates_its_judged_samples_only(tmp_path, scripts):
    task = get_task("longweave", {"task": "sr,kvg", "length": "1k", "per_cell": 1, "judge_attempts": 1})
    assert get_task("longweave", {"task": "kvg", "length": "1k", "per_cell": 1}).ratings is None
    bindings = {
        "candidate": RoleBinding(spec="scripted/lwr-candidate"),
        "judge": RoleBinding(spec="scripted/lwr-judge"),
    }
    folder, _ = await start_run(task, bindings, RunOptions(out_dir=tmp_path, display="none"))
    records = {r.metadata["task"]: r for r in folder.iter_records()}
    assert task.ratings(records["kvg"].scores) == []
    sr = task.ratings(records["sr"].scores)
    trace = records["sr"].scores["longweave"].metadata["trace"]
    assert sr[:3] == [
        rating("question 1: answered", 1.0),
        rating("question 1: correct", 1.0),
        rating("question 2: answered", 0.0),
    ]
    answered = [r for r in sr if r.criterion.endswith("answered")]
    assert len(answered) == trace["targets"] > 5  # one per question, read back from the stored record
    unscored = {r.criterion for r in sr if r.value is None}
    assert unscored and all(r.criterion.endswith(("answered", "correct")) for r in sr)
    # the last question of every call was left out of the reply: unscored, under its stored reason
    assert {f"question {i}: answered" for i in trace["unscored_reasons"]} == {
        name for name in unscored if name.endswith("answered")
    }

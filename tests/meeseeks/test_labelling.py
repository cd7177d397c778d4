"""Meeseeks' label form: a yes/no question per requirement the judge answered on the final answer,
named exactly as the task's ratings name the verdict; rule checks and gated requirements not asked."""

from __future__ import annotations

from meeseeks.test_ratings import sub, turn
from proseval.benchmarks.meeseeks.labelling import label_form
from proseval.benchmarks.meeseeks.task import judge_ratings, requirement_names, score_state
from proseval.kit import State
from proseval.registry import tasks


def record_of(turns: list[dict], question: str = "Write a poem about rain.") -> dict:
    """A finished sample as the runtime writes it (scores as JSON)."""
    scores = score_state(State(output=turns[-1]["answer"], turns=turns))
    return {
        "id": "meeseeks/x#0",
        "input": question,
        "status": "ok",
        "state": {"output": turns[-1]["answer"], "turns": turns},
        "scores": {name: score.model_dump(mode="json") for name, score in scores.items()},
    }


def test_the_form_asks_each_judged_requirement_of_the_last_round_under_its_rating_name():
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
            sub(3, "Is it a poem?", "judge", 0, "judged"),
            sub(4, "Is it sad?", "dependency", None, "dependency_undecided"),
        ],
    )
    record = record_of([first, last])
    form = label_form(record)
    rated = judge_ratings(score_state(State(output="answer 2", turns=[first, last])))
    assert (
        [c.name for c in form.criteria]
        == [r.criterion for r in rated]
        == ["Is it a poem? (#1)", "Does it rhyme?", "Is it a poem? (#4)"]
    )  # not the rule, not the gated one
    assert all((c.low, c.high, c.labels) == (0, 1, ("No", "Yes")) for c in form.criteria)
    assert form.criteria[2].description.startswith("Requirement 4 of the task")
    assert form.question == "Write a poem about rain." and form.pairwise == "" and form.texts is None
    assert tasks()["meeseeks"].labelling is not None and tasks()["meeseeks"].labelling(record) == form


def test_nothing_is_asked_of_an_answer_without_judged_requirements():
    only_rules = record_of([turn(1, [sub(0, "Has it 4 lines?", "rule", 1, "ok")])])
    assert label_form(only_rules).criteria == []  # the viewer's default form then
    failed = {"id": "meeseeks/y#0", "input": "Write.", "status": "error", "scores": {}}
    assert label_form(failed).criteria == [] and label_form(failed).question == "Write."


def test_requirement_names_number_only_a_question_asked_twice():
    verdicts = [{"position": 0, "question": "A?"}, {"position": 2, "question": "B?"}, {"position": 5, "question": "A?"}]
    assert requirement_names(verdicts) == ["A? (#1)", "B?", "A? (#6)"]
    assert requirement_names([]) == []

"""LongWeave's label form: a yes/no question per judged field of each target (named as the ratings
name the verdict, the target in the description), CF's relevance question, nothing for rule tasks."""

from __future__ import annotations

import json

from longweave.test_ratings import as_score, batch
from proseval.benchmarks.longweave.generators import generate
from proseval.benchmarks.longweave.judging.ratings import ratings
from proseval.benchmarks.longweave.judging.scores import score_biog, score_sr
from proseval.benchmarks.longweave.labelling import MAX_TARGETS, label_form
from proseval.kit import Score
from proseval.registry import tasks


def record_of(task: str, index: int, answer: str, scorer=None, replies: dict[tuple[int, ...], str] | None = None):
    """A generated sample answered with `answer`, judged by `replies` (target ids -> the judge's reply)."""
    sample = generate(task, "1k", index, 0)
    record = {
        "id": f"longweave/{task}@1k/{index}",
        "input": sample.input,
        "target": sample.target,
        "metadata": sample.metadata,
        "state": {"output": answer},
        "scores": {},
    }
    if scorer is not None:
        batches = [batch(task, ids, reply) for ids, reply in (replies or {}).items()]
        scores = as_score(scorer(answer, sample.target, batches, sample.metadata["target_words"]))
        record["scores"] = {name: score.model_dump(mode="json") for name, score in scores.items()}
    return record


def as_scores(record: dict) -> dict[str, Score]:
    return {name: Score.model_validate(score) for name, score in record["scores"].items()}


def test_sr_asks_both_fields_of_every_question_the_gated_one_too():
    pairs = generate("sr", "1k", 0, 0).target["qa_pairs"]
    ids = tuple(range(1, len(pairs) + 1))
    reply = json.dumps([{"id": i, "answered": i != 2, "correct": i == 1} for i in ids])
    record = record_of("sr", 0, "A short report.", score_sr, {ids: reply})
    form = label_form(record)
    names = [c.name for c in form.criteria]
    assert names == [f"question {i}: {field}" for i in ids for field in ("answered", "correct")]
    rated = [r.criterion for r in ratings(as_scores(record))]
    assert [name for name in names if name not in rated] == ["question 2: correct"]  # gated by "not answered"
    assert set(rated) <= set(names)
    correct = form.criteria[names.index("question 2: correct")]
    assert pairs[1]["question"] in correct.description and pairs[1]["answer"] in correct.description
    assert "No when the report does not answer it" in correct.description
    assert all((c.low, c.high, c.labels) == (0, 1, ("No", "Yes")) for c in form.criteria)
    assert form.question == record["input"] and form.pairwise == ""  # the report is judged whole: no cut
    assert tasks()["longweave"].labelling(record) == form


def test_biog_asks_a_fixed_draw_of_its_facts_and_says_where_the_judge_stopped_reading():
    long_answer = " ".join(f"w{n}" for n in range(1, 1101))
    sentences = generate("biog", "1k", 0, 0).target["target_sentences"]
    ids = tuple(range(1, len(sentences) + 1))
    reply = json.dumps([{"id": i, "covered": i % 2 == 0} for i in ids])
    record = record_of("biog", 0, long_answer, score_biog, {ids: reply})
    form = label_form(record)
    assert len(sentences) > MAX_TARGETS == len(form.criteria)
    rated = {r.criterion for r in ratings(as_scores(record))}
    assert {c.name for c in form.criteria} < rated  # every one asked is rated (no gate in BioG)
    for criterion in form.criteria:
        fact = int(criterion.name.split()[1].rstrip(":"))
        assert criterion.name == f"fact {fact}: covered" and sentences[fact - 1] in criterion.description
    assert label_form(record) == form  # the same facts for every rater and run
    other = label_form(record_of("biog", 1, long_answer))
    assert [c.name for c in other.criteria] != [c.name for c in form.criteria]  # drawn per sample
    assert form.question.startswith("[The judge read only the first 1,024 words of the answer, up to “…w1017 w1018")
    assert "w1024”" in form.question.splitlines()[0] and form.question.endswith(record["input"])
    assert label_form(record_of("biog", 0, "A short life.")).question == record["input"]


def test_nw_describes_the_statement_its_flaw_and_its_ap_form():
    sample = generate("nw", "1k", 0, 0)
    statement = sample.target["statements"][0]
    form = label_form(record_of("nw", 0, "An article."))
    names = [c.name for c in form.criteria]
    assert names[:2] == [f"statement {statement['id']}: exists", f"statement {statement['id']}: follows rules"]
    assert len(names) == 2 * len(sample.target["statements"])
    exists, rules = form.criteria[:2]
    assert statement["statement"] in exists.description
    for text in (statement["statement"], statement["reason"], statement["correct"], statement["category"]):
        assert text in rules.description
    assert sample.target["rubric"][statement["category"]]["criteria"] in form.question  # the rules: in the task


def test_cf_asks_the_relevance_gate_and_rule_scored_tasks_nothing():
    cf = label_form(record_of("cf", 0, "```python\nprint(1)\n```"))
    assert [(c.name, c.low, c.high) for c in cf.criteria] == [("relevant and complete", 0, 1)]
    assert "the whole program" in cf.criteria[0].description
    for task in ("kvg", "sms", "pr"):
        assert label_form(record_of(task, 0, "an answer")).criteria == []  # the viewer's default form

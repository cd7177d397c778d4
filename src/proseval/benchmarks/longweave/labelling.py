"""What a person labelling a LongWeave answer is asked: the judge's questions, yes/no.

BioG, SR and NW: per target (a fact, a question with its reference answer, a statement) each
field the judge gives (`judging.replies.VERDICT_FIELDS`), named as `judging.ratings` names the
verdict (``fact 3: covered``, ``question 2: correct``), with the target in the description. CF:
the relevance gate, ``relevant and complete``. KVG, SMS and PR are scored by rule: no judge to
compare with, so their answers get the viewer's default form. A label is 1 (yes) or 0 (no), the
judge's scale; `proseval agreement` pairs it with the verdict of the same name.

Every field of an asked target is asked, the dependent one too (``correct``, ``follows rules``:
answer no when the first field is no). The ratings leave out a dependent field the judge's first
verdict gated, so such a label is reported unmatched; asking only the fields the judge rated
would tell the rater its first verdict. A long sample asks about `MAX_TARGETS` of its targets,
drawn from the sample id: the same ones in every run and for every rater. BioG and NW judges read
only the answer's first target-length words, so the question says where they end. No pairs: the
judge's verdicts are absolute, per target.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from proseval.benchmarks.longweave.judging.ratings import RELEVANCE, TARGET_KIND, field_name
from proseval.benchmarks.longweave.judging.replies import VERDICT_FIELDS
from proseval.benchmarks.longweave.scorers.length import count_words, truncate_to_words
from proseval.kit import strip_reasoning
from proseval.kit.views import LabelCriterion, LabelForm

MAX_TARGETS = 12  # targets asked per answer (BioG has 83 facts at 1k words, 716 at 8k)
CUT_TASKS = ("biog", "nw")  # the judge reads the first target_words words only
CUT_WORDS_SHOWN = 8

Describe = Callable[[Any], str]  # a target -> the question on one of its fields


def _fact(sentence: Any) -> str:
    return (
        "Does the biography state this fact? Any wording counts; missing, only hinted at or contradicted "
        f"(another year, place, role or name) does not.\nFact: {sentence}"
    )


def _answered(pair: Any) -> str:
    return (
        f"Does the report take up this question and give an answer to it, right or wrong?\nQuestion: {pair['question']}"
    )


def _correct(pair: Any) -> str:
    return (
        "Does the report's answer agree with the reference answer: the same people, products or other entities, "
        "and figures equal up to rounding? No when the report does not answer it.\n"
        f"Question: {pair['question']}\nReference answer: {pair['answer']}"
    )


def _exists(statement: Any) -> str:
    return (
        "Does the article convey the information of this statement, verbatim or paraphrased?\n"
        f"Statement: {statement['statement']}"
    )


def _follows_rules(statement: Any) -> str:  # the category's rules are in the task
    return (
        f"Does the passage that conveys it follow the AP rules of {statement['category']} given in the task, "
        "with the flaw fixed? No when the article does not convey it.\n"
        f"Statement: {statement['statement']}\nIts flaw: {statement['reason']}\n"
        f"In AP style: {statement['correct']}"
    )


DESCRIPTIONS: dict[str, dict[str, Describe]] = {
    "biog": {"covered": _fact},
    "sr": {"answered": _answered, "correct": _correct},
    "nw": {"exists": _exists, "follows_rules": _follows_rules},
}
# What a rater reads above each field's question, by task and field ({n}: the target's number).
TITLES: dict[str, dict[str, str]] = {
    "biog": {"covered": "Fact {n}: does the biography state it?"},
    "sr": {
        "answered": "Question {n}: does the report answer it?",
        "correct": "Question {n}: is the report's answer right?",
    },
    "nw": {
        "exists": "Statement {n}: does the article convey it?",
        "follows_rules": "Statement {n}: does the article follow the AP rules there?",
    },
}
RELEVANCE_TITLE = "Is the answer a version of the whole given program?"
RELEVANCE_QUESTION = (
    "Is the code in the answer a version of the given program (edited, reformatted or corrected; not a refusal, an "
    "explanation, or unrelated or generic code) and the whole program (not a fragment, an outline, a diff or "
    "instructions)? Whether the fixes are good does not matter."
)


def targets(task: str, target: Mapping[str, Any]) -> dict[int, Any]:
    """A judged task's targets by the id its judge numbers them with."""
    if task == "biog":
        return dict(enumerate(target["target_sentences"], start=1))
    if task == "sr":
        return dict(enumerate(target["qa_pairs"], start=1))
    return {int(statement["id"]): statement for statement in target["statements"]}


def asked_ids(sample_id: str, ids: list[int]) -> list[int]:
    """All of `ids`, or `MAX_TARGETS` of them drawn from the sample id (the same in every run)."""
    if len(ids) <= MAX_TARGETS:
        return ids
    return sorted(random.Random(sample_id).sample(ids, MAX_TARGETS))


def where_the_judge_stops(record: Mapping[str, Any]) -> str:
    """A line saying where a BioG or NW judge stopped reading the answer ("" when it read all)."""
    words = (record.get("metadata") or {}).get("target_words")
    answer = strip_reasoning(str((record.get("state") or {}).get("output") or "")).text
    if not isinstance(words, int) or count_words(answer) <= words:
        return ""
    ending = " ".join(truncate_to_words(answer, words).split()[-CUT_WORDS_SHOWN:])
    return (
        f"[The judge read only the first {words:,} words of the answer, up to “…{ending}”: judge that part alone.]\n\n"
    )


def label_form(record: dict[str, Any]) -> LabelForm:
    task = (record.get("metadata") or {}).get("task")
    target = record.get("target") or {}
    question = str(record.get("input") or "")
    criteria: list[LabelCriterion] = []
    if task in TARGET_KIND:
        by_id = targets(task, target)
        for target_id in asked_ids(str(record.get("id", "")), sorted(by_id)):
            criteria += [
                LabelCriterion(
                    field_name(task, target_id, field),
                    DESCRIPTIONS[task][field](by_id[target_id]),
                    0,
                    1,
                    title=TITLES[task][field].format(n=target_id),
                )
                for field in VERDICT_FIELDS[task]
            ]
        if task in CUT_TASKS:
            question = where_the_judge_stops(record) + question
    elif task == "cf":
        criteria = [LabelCriterion(RELEVANCE, RELEVANCE_QUESTION, 0, 1, title=RELEVANCE_TITLE)]
    return LabelForm(question=question, criteria=criteria, pairwise="")

"""Judge calls for LongWeave: targets split into batches, each batch one chat request."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks.longweave.judging.config import JudgedConfig, JudgedTask
from proseval.benchmarks.longweave.judging.prompts import PROMPTS
from proseval.benchmarks.longweave.scorers.length import truncate_to_words
from proseval.kit import PromptTemplate

Messages = list[dict[str, str]]


@dataclass(frozen=True)
class JudgeCall:
    """One judge request: the ids of the targets it judges and the chat messages to send."""

    task: JudgedTask
    target_ids: tuple[int, ...]
    messages: Messages
    label: str = ""  # NW: the rule category


def split_batches(ids: Sequence[int], max_per_call: int) -> list[tuple[int, ...]]:
    """Consecutive batches of at most ``max_per_call`` ids, in the given order."""
    if max_per_call < 1:
        raise ValueError(f"max_per_call must be >= 1, got {max_per_call}")
    if len(set(ids)) != len(ids):
        raise ValueError("target ids must be unique")
    return [tuple(ids[i : i + max_per_call]) for i in range(0, len(ids), max_per_call)]


def judged_text(response: str, target_words: int | None, config: JudgedConfig) -> str:
    """What the judge sees: the response cut after ``target_words`` words (None: all of it)."""
    if target_words is None:
        return response
    return truncate_to_words(response, target_words, keep_layout=config.keep_layout)


def _messages(user: str, prompts: Mapping[str, PromptTemplate]) -> Messages:
    return [{"role": "system", "content": prompts["judge_system"].render()}, {"role": "user", "content": user}]


def _reply_instructions(ids: tuple[int, ...], fields: Sequence[str], text_fields: Sequence[str] = ()) -> str:
    """The output format: one object per id with boolean ``fields`` (and string
    ``text_fields``), and a valid JSON example built from the first (at most two) ids."""
    example = []
    for k, target_id in enumerate(ids[:2]):
        item: dict[str, Any] = {"id": target_id}
        item.update({name: k == 0 for name in fields})
        item.update(dict.fromkeys(text_fields, "..."))
        example.append(item)
    names = ", ".join(f'"{name}"' for name in (*fields, *text_fields))
    return (
        f"Reply with JSON only: an array with exactly one object per item ({len(ids)} in "
        f'all), in the order listed, each with the item\'s number as "id" and the fields '
        f"{names}. Write true and false without quotes. Example of the form (the values are "
        f"placeholders): {json.dumps(example)}"
    )


def biog_judge_calls(
    response: str,
    target: Mapping[str, Any],
    target_words: int,
    config: JudgedConfig = JudgedConfig(),
    prompts: Mapping[str, PromptTemplate] = PROMPTS,
) -> list[JudgeCall]:
    """Judge calls for a BioG answer: which target sentences (facts) the biography states.

    ``target`` is ``Sample.target`` (its ``target_sentences`` are the targets, ids 1..n);
    the judge sees the first ``target_words`` words of the response.
    """
    sentences = list(target["target_sentences"])
    text = judged_text(response, target_words, config)
    calls = []
    for ids in split_batches(range(1, len(sentences) + 1), config.biog_batch_size):
        facts = "\n".join(f"[{i}] {sentences[i - 1]}" for i in ids)
        user = prompts["judge_biog"].render(text=text, facts=facts, reply_format=_reply_instructions(ids, ("covered",)))
        calls.append(JudgeCall("biog", ids, _messages(user, prompts)))
    return calls


def sr_judge_calls(
    response: str,
    target: Mapping[str, Any],
    config: JudgedConfig = JudgedConfig(),
    prompts: Mapping[str, PromptTemplate] = PROMPTS,
) -> list[JudgeCall]:
    """Judge calls for an SR report: is each question answered, and answered correctly.

    ``target`` is ``Sample.target`` (its ``qa_pairs`` are the targets, ids 1..n); the whole
    report is judged (no truncation, as officially).
    """
    pairs = list(target["qa_pairs"])
    calls = []
    for ids in split_batches(range(1, len(pairs) + 1), config.sr_batch_size):
        items = "\n\n".join(
            f"[{i}] Question: {pairs[i - 1]['question']}\n    Reference answer: {pairs[i - 1]['answer']}" for i in ids
        )
        user = prompts["judge_sr"].render(
            report=response, items=items, reply_format=_reply_instructions(ids, ("answered", "correct"))
        )
        calls.append(JudgeCall("sr", ids, _messages(user, prompts)))
    return calls


def nw_judge_calls(
    response: str,
    target: Mapping[str, Any],
    target_words: int,
    config: JudgedConfig = JudgedConfig(),
    prompts: Mapping[str, PromptTemplate] = PROMPTS,
) -> list[JudgeCall]:
    """Judge calls for an NW article: per category, is each statement present and in AP style.

    ``target`` is ``Sample.target``: ``statements[]`` (their ``id`` is the target id),
    ``categories`` (call order) and ``rubric``. One call per category, split further when
    ``config.nw_batch_size`` is set; the judge sees the first ``target_words`` words.
    """
    text = judged_text(response, target_words, config)
    calls = []
    for category in target["categories"]:
        statements = {s["id"]: s for s in target["statements"] if s["category"] == category}
        size = config.nw_batch_size or max(1, len(statements))
        rubric = target["rubric"][category]
        rules = (
            f"Criteria: {rubric['criteria']}\n"
            f"Incorrect examples: {' | '.join(rubric['incorrect_examples'])}\n"
            f"Correct examples: {' | '.join(rubric['correct_examples'])}"
        )
        for ids in split_batches(list(statements), size):
            items = "\n\n".join(
                f"[{i}] Original statement: {statements[i]['statement']}\n"
                f"    What breaks the rules: {statements[i]['reason']}\n"
                f"    AP-style form: {statements[i]['correct']}"
                for i in ids
            )
            user = prompts["judge_nw"].render(
                category=category,
                rules=rules,
                article=text,
                items=items,
                reply_format=_reply_instructions(ids, ("exists", "follows_rules"), ("evidence",)),
            )
            calls.append(JudgeCall("nw", ids, _messages(user, prompts), label=category))
    return calls


def cf_relevance_messages(
    original_code: str, fixed_code: str, prompts: Mapping[str, PromptTemplate] = PROMPTS
) -> Messages:
    """One judge call: is the candidate's code a relevant and complete version of the original.

    ``original_code`` is ``Sample.target["original_code"]``; ``fixed_code`` is the code
    extracted from the answer (``scorers.cf.extract_code``).
    """
    user = prompts["judge_cf"].render(original=original_code, output=fixed_code)
    return _messages(user, prompts)

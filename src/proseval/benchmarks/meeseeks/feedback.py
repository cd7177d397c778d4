"""Feedback between Meeseeks rounds (pure functions: no I/O, no model calls).

After round k every sub-question of an item has a result: 1 (met), 0 (not met) or None
(undecided: unscored judge verdict, checker error, missing dependency, undecided gate).
Only items with at least one result 0 get another round; undecided checks alone never
trigger one, because there is nothing the candidate could be told to fix (they are counted
by the metrics instead). An item without any result (the candidate call failed) gets no
feedback either: retrying a failed call is the runtime's job.

Two modes:

* ``reask`` (default, the reference implementation): round k+1 is one user message with no
  history, built from the round-1 question, the requirements that failed in round k and the
  round-k answer. The failed requirements are rendered as the official code renders them,
  ``str()`` of a Python list of strings (one ``"<requirement> <connector> <reason>"`` element
  per failed sub-question). The template is English for every language, as officially; a
  user-supplied copy of the official template replaces ours with `--prompt reask=FILE`.
* ``chat`` (the paper-era implementation): the conversation goes on; the round-k answer
  becomes an assistant turn and the feedback a new user turn with one numbered entry per
  failed sub-question. The official feedback of that era was Chinese; proseval offers an
  English (default) and a Chinese wording.

Requirement texts and reasons are passed through as they are (mostly Chinese in every
language of the data), so a translated frame would not make the feedback monolingual;
hence no per-language templates beyond these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from proseval.kit import Message, PromptTemplate

from .metrics import checks_from_sub_questions

FeedbackMode = Literal["reask", "chat"]
ChatLanguage = Literal["en", "zh"]

REASK_TEMPLATE = PromptTemplate(
    "reask",
    """\
Your previous answer did not satisfy every requirement of the task below. Revise it so that \
all requirements are met, and reply with the revised answer only.

[Task]
{question}

[Requirements not met last time]
{errors}

[Your previous answer]
{previous_answer}

[Revised answer]
""",
    ("question", "errors", "previous_answer"),
    description="the re-ask message of rounds 2+ (--feedback reask): task, unmet requirements, previous answer",
)


@dataclass(frozen=True)
class _Wording:
    """How one failed requirement is described: ``<requirement><not_met>[<details><reason>]``."""

    not_met: str
    details: str


_ENGLISH = _Wording(" -> not satisfied.", " Details: ")

_CHAT_TEXT: dict[ChatLanguage, tuple[str, _Wording, str]] = {
    # (opening line, wording of each failed requirement, closing line)
    "en": (
        "Your answer does not meet every requirement yet. These were not satisfied:",
        _ENGLISH,
        "Please give a corrected, complete answer that meets all requirements, and reply with the answer only.",
    ),
    "zh": (
        "你的回答还没有满足全部要求，以下要求未达到：",
        _Wording("——未满足。", "具体情况："),
        "请修改后重新给出完整的回答，确保满足所有要求，只输出回答本身。",
    ),
}


@dataclass(frozen=True)
class CheckOutcome:
    """One sub-question after checking: its requirement text, result (1, 0, None) and reason.

    ``reason`` is the checker's or judge's explanation (or "Dependencies failed"); it is
    shown to the candidate verbatim.
    """

    requirement: str
    result: int | None
    reason: str = ""


def outcomes_from_sub_questions(
    sub_questions: Sequence[Mapping[str, object]], *, where: str = "item"
) -> list[CheckOutcome]:
    """Outcomes from sub-questions in the official round-file layout.

    Reads ``question``, ``eval_result`` (0/1/bool/missing, normalised like the metrics do)
    and ``eval_explanation``.
    """
    checks = checks_from_sub_questions(sub_questions, where=where)
    return [
        CheckOutcome(str(sq.get("question", "")), check.result, str(sq.get("eval_explanation") or ""))
        for sq, check in zip(sub_questions, checks)
    ]


def failed_requirements(outcomes: Sequence[CheckOutcome]) -> list[CheckOutcome]:
    """The outcomes that failed (result 0), in sub-question order."""
    return [o for o in outcomes if o.result == 0]


def needs_another_round(outcomes: Sequence[CheckOutcome]) -> bool:
    """Whether an item is re-asked (reask) or continued (chat): some requirement failed.

    The same rule serves both modes: the reference re-asks items with any failed
    sub-question, the paper-era loop stops an item once nothing fails.
    """
    return any(o.result == 0 for o in outcomes)


def items_needing_another_round(outcomes_by_item: Mapping[str, Sequence[CheckOutcome]]) -> list[str]:
    """Ids of the items that get another round, in the mapping's order."""
    return [item_id for item_id, outcomes in outcomes_by_item.items() if needs_another_round(outcomes)]


def _failures(outcomes: Sequence[CheckOutcome]) -> list[CheckOutcome]:
    failures = failed_requirements(outcomes)
    if not failures:
        raise ValueError("no failed requirement: the item needs no feedback")
    return failures


def _describe(outcome: CheckOutcome, wording: _Wording) -> str:
    reason = outcome.reason.strip()
    text = f"{outcome.requirement}{wording.not_met}"
    return f"{text}{wording.details}{reason}" if reason else text


def reask_errors(outcomes: Sequence[CheckOutcome]) -> str:
    """The failed requirements as the official re-ask prompt shows them: ``str()`` of a list."""
    return str([_describe(o, _ENGLISH) for o in _failures(outcomes)])


def reask_prompt(
    original_question: str,
    previous_answer: str,
    outcomes: Sequence[CheckOutcome],
    *,
    template: PromptTemplate = REASK_TEMPLATE,
) -> str:
    """The single re-ask message: round-1 question, failed requirements, previous answer."""
    return template.render(question=original_question, errors=reask_errors(outcomes), previous_answer=previous_answer)


def chat_feedback(outcomes: Sequence[CheckOutcome], *, language: ChatLanguage = "en") -> str:
    """The feedback turn of the chat mode: one numbered entry per failed requirement.

    Continuation lines of a multi-line reason (e.g. a judge's analysis) are indented, so
    every entry starts with its number.
    """
    opening, wording, closing = _CHAT_TEXT[language]
    lines = [
        f"{n}. " + _describe(o, wording).replace("\n", "\n   ") for n, o in enumerate(_failures(outcomes), start=1)
    ]
    return "\n".join([opening, *lines, closing])


def first_round_messages(question: str, *, system: str | None = "") -> list[Message]:
    """Round-1 messages; the official runner sends an empty system message first.

    ``system=None`` leaves the system message out.
    """
    head = [] if system is None else [{"role": "system", "content": system}]
    return [*head, {"role": "user", "content": question}]


def _leading_system(messages: Sequence[Message]) -> list[Message]:
    head: list[Message] = []
    for message in messages:
        if message.get("role") != "system":
            break
        head.append(dict(message))
    return head


def reask_messages(
    previous_messages: Sequence[Message],
    original_question: str,
    answer: str,
    outcomes: Sequence[CheckOutcome],
    *,
    template: PromptTemplate = REASK_TEMPLATE,
) -> list[Message]:
    """Round k+1 in reask mode: the leading system message(s) of round k, then the re-ask."""
    prompt = reask_prompt(original_question, answer, outcomes, template=template)
    return [*_leading_system(previous_messages), {"role": "user", "content": prompt}]


def chat_messages(
    previous_messages: Sequence[Message],
    answer: str,
    outcomes: Sequence[CheckOutcome],
    *,
    language: ChatLanguage = "en",
) -> list[Message]:
    """Round k+1 in chat mode: round k's messages, its answer, then the feedback turn."""
    if not previous_messages or previous_messages[-1].get("role") != "user":
        raise ValueError("chat mode: the previous round's messages must end with a user turn")
    return [
        *(dict(m) for m in previous_messages),
        {"role": "assistant", "content": answer},
        {"role": "user", "content": chat_feedback(outcomes, language=language)},
    ]


def next_round_messages(
    mode: FeedbackMode,
    previous_messages: Sequence[Message],
    original_question: str,
    answer: str,
    outcomes: Sequence[CheckOutcome],
    *,
    template: PromptTemplate = REASK_TEMPLATE,
    language: ChatLanguage = "en",
) -> list[Message]:
    """Messages of round k+1 from round k's messages (without its answer), answer and outcomes.

    ``template`` applies to reask mode, ``language`` to chat mode. Raises ValueError when
    nothing failed (see `needs_another_round`).
    """
    if mode == "reask":
        return reask_messages(previous_messages, original_question, answer, outcomes, template=template)
    if mode == "chat":
        return chat_messages(previous_messages, answer, outcomes, language=language)
    raise ValueError(f"unknown feedback mode {mode!r}; expected 'reask' or 'chat'")

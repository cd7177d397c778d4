"""Feedback between rounds: who is re-asked, and what the next round's messages are."""

from __future__ import annotations

import ast

import pytest

from proseval.benchmarks.meeseeks.feedback import (
    REASK_TEMPLATE,
    CheckOutcome,
    chat_feedback,
    first_round_messages,
    items_needing_another_round,
    needs_another_round,
    next_round_messages,
    outcomes_from_sub_questions,
    reask_errors,
    reask_prompt,
)
from proseval.core.prompt import PromptError

PASS = CheckOutcome("是否给出了文案", 1, "ok")
FAIL_COUNT = CheckOutcome("是否生成了4条文案", 0, "3 items, expected [4, 4]")
FAIL_DEP = CheckOutcome("文案是否避免重复", 0, "Dependencies failed")
UNDECIDED = CheckOutcome("是否押韵", None, "no checker for rule 'pingze'")


# ------------------------------------------------------------------ who gets another round


def test_a_failed_requirement_triggers_another_round():
    assert needs_another_round([PASS, FAIL_COUNT])


def test_passes_and_undecided_checks_alone_do_not():
    assert not needs_another_round([PASS, UNDECIDED])
    assert not needs_another_round([PASS])


def test_an_item_without_any_result_gets_no_feedback():
    assert not needs_another_round([])


def test_items_needing_another_round_keeps_the_given_order():
    outcomes = {"b": [FAIL_COUNT], "a": [PASS], "c": [UNDECIDED, FAIL_DEP], "d": [UNDECIDED]}
    assert items_needing_another_round(outcomes) == ["b", "c"]


def test_outcomes_from_official_round_layout():
    subs = [
        {"point_id": 0, "question": "q0", "eval_result": True, "eval_explanation": "fine"},
        {"point_id": 1, "question": "q1", "eval_result": 0, "eval_explanation": "too short"},
        {"point_id": 2, "question": "q2"},
    ]
    assert outcomes_from_sub_questions(subs) == [
        CheckOutcome("q0", 1, "fine"),
        CheckOutcome("q1", 0, "too short"),
        CheckOutcome("q2", None, ""),
    ]


def test_outcomes_reject_a_non_binary_result():
    with pytest.raises(ValueError, match="file.json item 3, sub-question 0"):
        outcomes_from_sub_questions([{"question": "q", "eval_result": [1]}], where="file.json item 3")


# ------------------------------------------------------------------ reask mode


def test_reask_errors_are_a_python_list_of_failed_requirements_only():
    rendered = reask_errors([PASS, FAIL_COUNT, UNDECIDED, FAIL_DEP])
    elements = ast.literal_eval(rendered)  # str() of a list, as in the reference
    assert isinstance(elements, list) and len(elements) == 2
    assert elements[0].startswith("是否生成了4条文案") and elements[0].endswith("3 items, expected [4, 4]")
    assert elements[1].startswith("文案是否避免重复") and elements[1].endswith("Dependencies failed")


def test_reask_errors_escape_line_breaks_like_str_of_a_list():
    rendered = reask_errors([CheckOutcome("q", 0, "分析：太短\n判断：否")])
    assert "\n" not in rendered and "\\n" in rendered


def test_a_failure_without_reason_is_still_listed():
    (element,) = ast.literal_eval(reask_errors([CheckOutcome("需要标题", 0, "  ")]))
    assert element.startswith("需要标题") and "Details" not in element


def test_reask_prompt_contains_original_question_errors_and_previous_answer_in_order():
    prompt = reask_prompt("写4条文案 {not a field}", "文案一\n文案二\n文案三", [PASS, FAIL_COUNT])
    parts = ("写4条文案 {not a field}", "是否生成了4条文案", "文案一\n文案二\n文案三")
    q, e, a = (prompt.index(part) for part in parts)
    assert q < e < a
    assert "是否给出了文案" not in prompt  # passed requirements are not mentioned


def test_reask_prompt_uses_a_supplied_template():
    template = REASK_TEMPLATE.replaced_by("Q={question}|E={errors}|A={previous_answer}", "mine.txt")
    prompt = reask_prompt("orig", "old", [FAIL_COUNT], template=template)
    assert prompt == f"Q=orig|E={reask_errors([FAIL_COUNT])}|A=old"


@pytest.mark.parametrize(
    "template",
    [
        "{question} {errors}",  # missing placeholder
        "{question} {errors} {previous_answer} {other}",  # unknown placeholder
        "{question.__class__} {errors} {previous_answer}",  # attribute access
        "{question[0]} {errors} {previous_answer}",  # indexing
        "{question!r} {errors} {previous_answer}",  # conversion
        "{question:>9} {errors} {previous_answer}",  # format spec
    ],
)
def test_bad_reask_templates_are_rejected(template):
    with pytest.raises(PromptError, match="prompt 'reask' \\(mine.txt\\): .*placeholder"):
        REASK_TEMPLATE.replaced_by(template, "mine.txt")


def test_a_stray_brace_in_a_reask_template_is_text():
    template = REASK_TEMPLATE.replaced_by('{question} {errors} {previous_answer} {"a": {', "mine.txt")
    assert template.render(question="q", errors="e", previous_answer="p") == 'q e p {"a": {'


def test_reask_messages_drop_history_but_keep_the_system_message():
    round1 = first_round_messages("写4条文案")
    assert round1 == [{"role": "system", "content": ""}, {"role": "user", "content": "写4条文案"}]
    round2 = next_round_messages("reask", round1, "写4条文案", "answer 1", [FAIL_COUNT])
    assert [m["role"] for m in round2] == ["system", "user"]
    assert round2[1]["content"] == reask_prompt("写4条文案", "answer 1", [FAIL_COUNT])
    # round 3 is built from round 2's messages but still quotes the round-1 question only once
    round3 = next_round_messages("reask", round2, "写4条文案", "answer 2", [FAIL_DEP])
    assert len(round3) == 2 and round3[1]["content"].count("写4条文案") == 1
    assert "answer 1" not in round3[1]["content"] and "answer 2" in round3[1]["content"]


def test_reask_without_system_message():
    round1 = first_round_messages("q", system=None)
    assert round1 == [{"role": "user", "content": "q"}]
    assert [m["role"] for m in next_round_messages("reask", round1, "q", "a", [FAIL_COUNT])] == ["user"]


# ------------------------------------------------------------------ chat mode


def test_chat_feedback_has_one_numbered_line_per_failure():
    text = chat_feedback([FAIL_COUNT, PASS, FAIL_DEP])
    lines = text.splitlines()
    assert len(lines) == 4  # opening, two failures, closing
    assert lines[1].startswith("1. 是否生成了4条文案") and lines[1].endswith("3 items, expected [4, 4]")
    assert lines[2].startswith("2. 文案是否避免重复") and lines[2].endswith("Dependencies failed")


def test_chat_feedback_indents_multi_line_reasons():
    text = chat_feedback([CheckOutcome("q", 0, "分析：太短\n判断：否"), FAIL_COUNT])
    assert text.splitlines()[1:4] == [
        "1. q -> not satisfied. Details: 分析：太短",
        "   判断：否",
        "2. 是否生成了4条文案 -> not satisfied. Details: 3 items, expected [4, 4]",
    ]


def test_chat_feedback_in_chinese():
    text = chat_feedback([FAIL_COUNT], language="zh")
    assert text.splitlines()[1].startswith("1. 是否生成了4条文案")
    assert "not satisfied" not in text and "未满足" in text


def test_chat_messages_continue_the_conversation():
    round1 = first_round_messages("写4条文案")
    round2 = next_round_messages("chat", round1, "写4条文案", "answer 1", [FAIL_COUNT])
    assert round2[:2] == round1
    assert round2[2] == {"role": "assistant", "content": "answer 1"}
    assert round2[3] == {"role": "user", "content": chat_feedback([FAIL_COUNT])}
    round3 = next_round_messages("chat", round2, "写4条文案", "answer 2", [FAIL_DEP], language="zh")
    assert [m["role"] for m in round3] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert round3[4]["content"] == "answer 2"
    assert round1 == first_round_messages("写4条文案")  # inputs are not modified


def test_chat_needs_a_conversation_ending_with_a_user_turn():
    with pytest.raises(ValueError, match="user turn"):
        next_round_messages("chat", [], "q", "a", [FAIL_COUNT])


@pytest.mark.parametrize("mode", ["reask", "chat"])
def test_feedback_without_failure_is_a_caller_error(mode):
    with pytest.raises(ValueError, match="no failed requirement"):
        next_round_messages(mode, first_round_messages("q"), "q", "a", [PASS, UNDECIDED])


def test_unknown_mode():
    with pytest.raises(ValueError, match="unknown feedback mode"):
        next_round_messages("email", first_round_messages("q"), "q", "a", [FAIL_COUNT])  # type: ignore[arg-type]  # an unknown mode, on purpose

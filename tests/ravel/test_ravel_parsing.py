"""Reading the policy's decisions and the tools' answers."""

from __future__ import annotations

import json

import jsonschema
import pytest

from proseval.benchmarks.ravel.actions import (
    Decision,
    Invalid,
    parse_decision,
    validate,
)
from proseval.benchmarks.ravel.schemas import TOOL_SCHEMAS, decision_schema
from proseval.benchmarks.ravel.tools import (
    ToolError,
    parse_draft,
    parse_outline,
    parse_refinement,
    parse_review,
    read_score,
)


def test_a_decision_is_read_from_prose_and_fences():
    d = parse_decision(
        'I think so.\n```json\n{"thought": "go", "action": "draft", "params": {"section_id": 1}}\n```', 3
    )
    assert d == Decision("draft", {"section_id": 1}, "go") and d.section_id == 1
    assert parse_decision('{"action": "finish", "params": {}}') == Decision("finish", {}, "")
    assert parse_decision('{"action": "plan_outline", "params": {"topic": "x"}}').action == "outline"  # official name


@pytest.mark.parametrize(
    "reply, reason",
    [
        ("", "empty reply"),
        ("I will draft the first section.", "no JSON object"),
        ('{"thought": "x", "params": {}}', "no 'action'"),
        ('{"action": "polish", "params": {}}', "unknown action 'polish'"),
        ('{"action": "finish"}', "no 'params'"),
        ('{"action": "draft", "params": [0]}', "'params' must be an object"),
        ('{"action": "draft", "params": {}}', "needs params.section_id"),
        ('{"action": "review", "params": {"section_id": "1"}}', "must be a whole number"),
        ('{"action": "review", "params": {"section_id": 1.5}}', "must be a whole number"),
        ('{"action": "review", "params": {"section_id": true}}', "must be a whole number"),
        ('{"action": "refine", "params": {"section_id": 3}}', "valid ids are 0..2"),
        ('{"action": "draft", "params": {"section_id": -1}}', "does not exist"),
    ],
)
def test_invalid_decisions_say_why(reply, reason):
    result = parse_decision(reply, 3)
    assert isinstance(result, Invalid) and reason in result.reason


def test_without_an_outline_every_section_id_is_out_of_range():
    result = validate({"action": "draft", "params": {"section_id": 0}}, 0)
    assert isinstance(result, Invalid) and "no outline yet" in result.reason
    assert isinstance(validate(["draft"]), Invalid)


def test_outline_answers():
    o = parse_outline('{"title": "Water", "sections": [{"title": "Intro", "points": ["a", "b"]}, "Body"]}', 5)
    assert o.title == "Water" and o.sections == [("Intro", ["a", "b"]), ("Body", [])]
    o = parse_outline('{"outline": [{"section_title": "One", "points": "single"}]}', 5)
    assert o.sections == [("One", ["single"])]
    with pytest.raises(ToolError, match="at most 1"):
        parse_outline('{"sections": ["a", "b"]}', 1)
    sixteen = json.dumps({"sections": [f"S{i}" for i in range(16)]})
    assert len(parse_outline(sixteen).sections) == 16  # no cap by default (the paper saw 15.5 on average)
    with pytest.raises(ToolError, match="16 sections \\(at most 15\\)"):
        parse_outline(sixteen, 15)
    with pytest.raises(ToolError, match="no usable section"):
        parse_outline('{"sections": [{"points": ["x"]}]}', 5)
    with pytest.raises(ToolError, match="no JSON outline"):
        parse_outline("Intro, body, conclusion.", 5)


def test_text_answers_fall_back_to_plain_text():
    d = parse_draft('{"content": "Water is odd. It expands.", "summary": "Odd water."}')
    assert (d.content, d.summary, d.read_as) == ("Water is odd. It expands.", "Odd water.", "json")
    d = parse_draft("Water is odd. It expands when it freezes.")
    assert (d.content, d.summary, d.read_as) == (
        "Water is odd. It expands when it freezes.",
        "Water is odd.",
        "plain_text",
    )
    assert parse_refinement('{"revised_content": "New.", "change_log": "x"}').content == "New."
    with pytest.raises(ToolError, match="writer returned no text"):
        parse_draft("   ")


def test_review_answers():
    r = parse_review('Here: {"score": 8.5, "feedback": "fine"}')
    assert (r.score, r.feedback, r.read_as) == (8.5, "fine", "json")
    assert read_score("7") == (7.0, "coerced") and read_score([6]) == (6.0, "coerced")
    for bad, match in (
        ("great", "not a number"),
        (11, "outside"),
        (-1, "outside"),
        (True, "not a number"),
        (float("nan"), "not a number"),
    ):
        with pytest.raises(ToolError, match=match):
            read_score(bad)
    with pytest.raises(ToolError, match="no JSON object with a 'score'"):
        parse_review('{"feedback": "no score"}')


def test_only_section_actions_have_a_section_id():
    assert Decision("finish", {"section_id": 9}).section_id is None
    assert Decision("outline", {"section_id": 0}).section_id is None
    assert Decision("review", {"section_id": 2}).section_id == 2


def test_structured_decisions_and_tool_answers_read_as_usual():
    """What a schema-constrained endpoint returns (null section_id for outline/finish) is read by the
    same validation; a null id on a section action is a failed decision."""
    finish = {"thought": "done", "action": "finish", "params": {"section_id": None}}
    jsonschema.validate(finish, decision_schema())
    assert parse_decision(json.dumps(finish), 2) == Decision("finish", {"section_id": None}, "done")
    draft = {"thought": "", "action": "draft", "params": {"section_id": None}}
    jsonschema.validate(draft, decision_schema())
    assert "whole number" in parse_decision(json.dumps(draft), 2).reason
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**finish, "action": "polish"}, decision_schema())
    answers = {
        "outline": {"title": "T", "sections": [{"title": "A", "points": ["p"]}]},
        "draft": {"content": "Body.", "summary": "S."},
        "review": {"score": 8.5, "feedback": "ok"},
        "refine": {"content": "New body.", "changes": "c"},
    }
    for action, answer in answers.items():
        jsonschema.validate(answer, TOOL_SCHEMAS[action])
    assert parse_outline(json.dumps(answers["outline"]), 3).sections == [("A", ["p"])]
    assert parse_review(json.dumps(answers["review"])).score == 8.5
    assert parse_refinement(json.dumps(answers["refine"])).content == "New body."


def test_decisions_carrying_texts():
    """--tool-text policy: review needs content, refine content and feedback, as strings; the
    structured schema then has both keys (null for the other actions)."""
    refine = {"thought": "", "action": "refine", "params": {"section_id": 1, "content": "Old.", "feedback": "Fix."}}
    jsonschema.validate(refine, decision_schema(texts=True))
    jsonschema.validate(
        {"thought": "", "action": "finish", "params": {"section_id": None, "content": None, "feedback": None}},
        decision_schema(texts=True),
    )
    with pytest.raises(jsonschema.ValidationError):  # without texts the schema has no such keys
        jsonschema.validate(refine, decision_schema())
    assert parse_decision(json.dumps(refine), 2, texts=True) == Decision("refine", refine["params"], "")
    no_feedback = {**refine, "params": {"section_id": 1, "content": "Old."}}
    assert "refine needs params.feedback" in parse_decision(json.dumps(no_feedback), 2, texts=True).reason
    number = {"thought": "", "action": "review", "params": {"section_id": 0, "content": 7}}
    assert "review needs params.content" in parse_decision(json.dumps(number), 2, texts=True).reason
    # Without texts from the policy the same decisions stay valid (the texts come from the state).
    assert isinstance(parse_decision(json.dumps(no_feedback), 2), Decision)
    assert isinstance(parse_decision(json.dumps({**refine, "params": {"section_id": 0}}), 2), Decision)

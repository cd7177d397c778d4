"""The criterion schema, the criteria-writing prompt and its parser."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from proseval.benchmarks.writingbench.criteria import Criterion, criteria_messages, parse_criteria, validate_checklist
from writingbench.wb_fixtures import criterion


def test_criterion_keeps_official_keys_and_order():
    raw = criterion("Tone")
    parsed = Criterion.model_validate(raw)
    assert parsed.name == "Tone"
    assert parsed.band_9_10 == "excellent"
    assert list(parsed.to_official_dict()) == ["name", "criteria_description", "1-2", "3-4", "5-6", "7-8", "9-10"]
    assert parsed.to_official_dict() == raw


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"1-2": ""}, "1-2"),
        ({"name": " Tone"}, "name"),
        ({"name": "   "}, "name"),
        ({"9-10": 10}, "9-10"),
        ({"extra": "x"}, "extra"),
        ({"description": "x"}, "description"),  # only the official key criteria_description
    ],
)
def test_criterion_validation(change, field):
    with pytest.raises(ValidationError, match=field):
        Criterion.model_validate({**criterion("Tone"), **change})


def test_criterion_missing_band():
    raw = criterion("Tone")
    del raw["5-6"]
    with pytest.raises(ValidationError, match="5-6"):
        Criterion.model_validate(raw)


def test_validate_checklist_size_and_uniqueness():
    assert len(validate_checklist([criterion("a"), criterion("b")])) == 2
    with pytest.raises(ValueError, match="expected 5 criteria, got 2"):
        validate_checklist([criterion("a"), criterion("b")], size=5)
    with pytest.raises(ValueError, match=r"duplicate criterion names: \['a'\]"):
        validate_checklist([criterion("a"), criterion("a")])
    with pytest.raises(ValueError, match="criterion 1: "):
        validate_checklist([criterion("a"), {"name": "b"}])


def test_prompt_contains_query_and_count():
    messages = criteria_messages("Write a eulogy for {my} grandmother.", count=3)
    assert len(messages) == 1 and messages[0]["role"] == "user"
    content = messages[0]["content"]
    assert "Write a eulogy for {my} grandmother." in content
    assert "exactly 3 criteria" in content
    for key in ("criteria_description", '"1-2"', '"9-10"'):
        assert key in content


FIVE = [criterion(f"Criterion {n}") for n in range(1, 6)]


def test_parse_plain_array():
    parsed = parse_criteria(json.dumps(FIVE))
    assert parsed.error is None and not parsed.repaired
    assert [c.name for c in parsed.criteria] == [f"Criterion {n}" for n in range(1, 6)]


def test_parse_fenced_after_reasoning_and_prose():
    text = "<think>let me plan</think>Here you go:\n```json\n" + json.dumps(FIVE, indent=2) + "\n```\nHope it helps."
    parsed = parse_criteria(text)
    assert parsed.error is None
    assert parsed.criteria[4].name == "Criterion 5"


def test_parse_object_wrapper_and_padded_names():
    padded = [{**c, "name": f"  {c['name']} "} for c in FIVE]
    parsed = parse_criteria(json.dumps({"criteria": padded}))
    assert parsed.criteria[0].name == "Criterion 1"


def test_parse_repairs_broken_json():
    broken = json.dumps(FIVE)[:-2]  # lost the closing brace and bracket
    parsed = parse_criteria(broken)
    assert parsed.repaired
    assert parsed.error is None and len(parsed.criteria) == 5


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("I cannot help with that.", "no JSON array of criteria"),
        (json.dumps(FIVE[:4]), "expected 5 criteria, got 4"),
        (json.dumps([*FIVE[:4], FIVE[0]]), "duplicate criterion names"),
        (json.dumps([*FIVE[:4], {"name": "x"}]), "criterion 4"),
        ("", "no JSON array of criteria"),
    ],
)
def test_parse_failures_give_a_reason(text, error):
    parsed = parse_criteria(text)
    assert parsed.criteria is None
    assert error in parsed.error

"""The judge: reading answers (robust, with the official reading beside it) and the ablations' prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

from proseval.benchmarks._shared.c3e import data
from proseval.benchmarks._shared.c3e.judge import (
    JudgeSetup,
    judge_messages,
    judge_response_format,
    judge_schema,
    official_reading,
    parse_verdict,
)
from proseval.benchmarks.c3ebench.prompts import PROMPTS


@pytest.mark.parametrize(
    "text, score, status",
    [
        ('{"score": 7, "verdict": "good"}', 7, "ok"),
        ('Here: {"analysis": {"x": 1}, "score": [7]}', 7, "coerced"),
        ('{"score": "8"}', 8, "coerced"),
        ('{"score": 6.0}', 6, "ok"),
        ('{"score": 3} and then {"score": 9}', 9, "ok"),  # the last object with a score
        ('<think>{"score": 2}</think>{"score": 5}', 5, "ok"),
        ('{"score": 11}', None, "out_of_range"),
        ('{"score": 6.5}', None, "unparsable"),
        ('{"score": [1-10]}', None, "unparsable"),
        ("I would give it a seven.", None, "unparsable"),
        ("", None, "empty"),
    ],
)
def test_parse_verdict(text, score, status):
    verdict = parse_verdict(text)
    assert (verdict.score, verdict.status) == (score, status)


def test_official_reading_drops_what_the_official_parser_drops():
    assert official_reading('{"score": 7}') == 7.0
    assert official_reading('{"score": 6.5}') == 6.5  # no range or integer check officially
    assert official_reading('{"score": 1000}') == 1000.0
    assert official_reading('{"score": "7"}') is None  # a string, even a numeric one: dropped officially
    assert official_reading('{"score": "7.5"}') is None
    assert official_reading('{"score": [7]}') is None  # a list: silently dropped officially
    assert official_reading('{"score": {"value": 7}}') is None
    assert official_reading('{"score": null}') is None
    assert official_reading('{"score": true}') is None  # a JSON boolean is not a number
    assert official_reading('{"verdict": "good"}') is None  # no score
    assert official_reading('{"score": 7} {"score": 8}') is None  # greedy first-{ to last-}: not JSON
    assert official_reading("no json") is None


@pytest.fixture
def edit_item(tiny_dir: Path) -> data.Item:
    return next(i for i in data.load_folder(tiny_dir, ["en"]).items if i.task == "edit")


def messages(item, setup: JudgeSetup | None = None):
    system, user = judge_messages(item, "Floods wreck crops.", setup or JudgeSetup(), PROMPTS.__getitem__)
    return system["content"], user["content"]


def test_full_judge_sees_reference_traits_and_bands(edit_item):
    system, user = messages(edit_item)
    assert "[Reference]\n" + edit_item.reference in user and "[Candidate]\nFloods wreck crops." in user
    assert "[Draft]\nFloods are bad." in user and "[Critique]\nToo vague" in user
    assert PROMPTS["traits_edit_en"].text in system and PROMPTS["bands_edit_en"].text in system
    assert "worth exactly 6" in system


def test_no_reference_removes_the_reference_and_its_anchor(edit_item):
    system, user = messages(edit_item, JudgeSetup(reference=False))
    assert edit_item.reference not in user and "[Reference]" not in user and "[Reference]" not in system
    assert PROMPTS["bands_noref_en"].text in system and "worth exactly 6" not in system
    assert PROMPTS["traits_edit_en"].text in system


def test_no_rubric_replaces_the_bands_by_the_bare_scale(edit_item):
    system, user = messages(edit_item, JudgeSetup(rubric=False))
    assert PROMPTS["bands_edit_en"].text not in system and PROMPTS["scale_plain_en"].text in system
    assert PROMPTS["traits_edit_en"].text in system and edit_item.reference in user


def test_no_traits_removes_the_task_traits(edit_item):
    system, _ = messages(edit_item, JudgeSetup(traits=False))
    assert PROMPTS["traits_edit_en"].text not in system and PROMPTS["traits_generic_en"].text in system
    assert PROMPTS["bands_edit_en"].text in system


def test_the_edit_rubric_is_generic(tiny_dir: Path):
    for name in ("judge_edit_en", "traits_edit_en", "bands_edit_en", "judge_edit_zh", "traits_edit_zh"):
        text = PROMPTS[name].text.lower()
        assert not any(word in text for word in ("animal", "mortality", "spared", "family memory"))


def _shape(value):
    """Keys of a JSON example (nested objects as dicts of their keys; anything else as None)."""
    return {key: _shape(sub) for key, sub in value.items()} if isinstance(value, dict) else None


def _schema_shape(schema):
    return (
        {key: _schema_shape(sub) for key, sub in schema["properties"].items()}
        if schema.get("type") == "object"
        else None
    )


@pytest.mark.parametrize("task", ["cloze", "expand", "edit", "end2end"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_structured_schema_has_the_rubric_example_keys_with_the_score_first(task, lang):
    import json

    text = PROMPTS[f"judge_{task}_{lang}"].text
    example = json.loads(text[text.rindex("\n{") + 1 :])
    schema = judge_schema(task)
    assert _schema_shape(schema) == _shape(example)
    assert list(schema["properties"])[0] == "score" and schema["properties"]["score"] == {"type": "integer"}
    assert schema["required"] == list(schema["properties"]) and schema["additionalProperties"] is False
    assert judge_response_format(task)["response_format"]["json_schema"]["schema"] == schema


def test_a_score_first_answer_cut_at_the_token_limit_still_gives_its_score():
    cut = '{"score": 7, "critique": {"strengths_and_weaknesses": "The passage fits the context and'
    verdict = parse_verdict(cut)
    assert (verdict.score, verdict.status) == (7, "repaired")
    assert official_reading(cut) is None  # the official parser needs a closing brace

"""SCHEMA:json_schema — JSON extraction and per-field validation points."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule
from proseval.benchmarks.meeseeks.rules.schema import extract_json, schema_points

OBJECT = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "能力项": "主题约束"},
        "scope": {"type": "integer", "enum": [1, 2, 3], "能力项": "特定格式"},
        "note": {"type": "string"},
    },
    "required": ["name", "scope"],
}
ARRAY = {
    "type": "array",
    "items": {"type": "object", "properties": {"title": {"type": "string", "maxLength": 4}, "tag": {"type": "string"}}},
    "minItems": 5,
}


def check(response, schema, compat="fixed"):
    return evaluate_rule("SCHEMA:json_schema", response, RuleContext(json_schema=schema, compat=compat), "cjk")


@pytest.mark.parametrize(
    "response",
    [
        '{"name": "a", "scope": 2}',
        'Result:\n```json\n{"name": "a", "scope": 2}\n```\nDone.',
        "Here: {'name': 'a', 'scope': 2} thanks",
        '{"name": "a", "scope": 2, "extra": true}',
    ],
)
def test_valid_object_responses(response):
    assert check(response, OBJECT).passed is True


@pytest.mark.parametrize(
    "response",
    [
        '{"name": "a"}',
        '{"name": "a", "scope": 7}',
        '{"name": 5, "scope": 1}',
        "no json",
        "",
        "[]",
        '{"name": "a", "scope": 1}\n{"name": "b", "scope": 9}',
    ],
)
def test_invalid_object_responses(response):
    assert check(response, OBJECT).passed is False


def test_points_one_set_per_object_with_tags():
    points = schema_points('[{"name": "a", "scope": 1}, {"name": "b", "scope": 9}]', OBJECT)
    assert [(p.path, p.passed, p.tags) for p in points] == [
        ("name", True, "主题约束、JSON"),
        ("scope", True, "特定格式、JSON"),
        ("name", True, "主题约束、JSON"),
        ("scope", False, "特定格式、JSON"),
    ]


def test_array_points_aggregate_over_items_and_ignore_array_size():
    assert check('[{"title": "abcd", "tag": ""}]', ARRAY).passed is True
    points = schema_points('[{"title": "abcd"}, {"title": "abcdef", "tag": "x"}]', ARRAY)
    assert [(p.path, p.passed) for p in points] == [("[*].title", False), ("[*].tag", True)]
    assert check('[{"tag": "x"}]', ARRAY).passed is False  # title found in no item


def test_nested_arrays_of_objects_get_their_own_points():
    schema = {
        "type": "object",
        "required": ["data"],
        "properties": {
            "data": {"type": "array", "items": {"type": "object", "properties": {"unit": {"enum": ["g", "mg"]}}}}
        },
    }
    points = schema_points('{"data": [{"unit": "g"}, {"unit": "kg"}]}', schema)
    assert [(p.path, p.passed) for p in points] == [("data", False), ("data[*].unit", False)]


def test_deeply_nested_json_is_preserved_only_in_fixed_mode():
    text = 'see ```\n{"a": {"b": {"c": 1}}}\n``` end'
    assert extract_json(text) == {"a": {"b": {"c": 1}}}
    assert extract_json(text, "head") == [{"b": {"c": 1}}]


def test_several_values_in_prose_become_a_list():
    assert extract_json('A {"x": 1} and B {"x": 2}') == [{"x": 1}, {"x": 2}]
    with pytest.raises(ValueError):
        extract_json("nothing here")


def test_missing_schema_is_undecidable():
    verdict = evaluate_rule("SCHEMA:json_schema", "{}", RuleContext(), "latin")
    assert verdict.passed is None and verdict.status == "undecidable"

"""Finding and repairing JSON in judge answers; integer scores in range."""

from __future__ import annotations

import pytest

from proseval.judging.parse import extract_json, parse_score


@pytest.mark.parametrize(
    ("text", "value", "status"),
    [
        ('{"score": 7, "reason": "ok"}', {"score": 7, "reason": "ok"}, "ok"),
        ('Here you go:\n```json\n{"score": 3}\n```\nThanks', {"score": 3}, "ok"),
        ('<think>maybe {"score": 1}</think>{"score": 9}', {"score": 9}, "ok"),
        ('{"score": 6, "reason": "fine",}', {"score": 6, "reason": "fine"}, "repaired"),
        ("{'score': 5}", {"score": 5}, "repaired"),
        ('{"score": 4, "reason": "cut off', {"score": 4, "reason": "cut off"}, "repaired"),
        ("[1, 2, 3]", [1, 2, 3], "ok"),
        ("", None, "empty"),
        ("<think>only thoughts</think>", None, "empty"),
        ("I cannot rate this.", None, "unparsable"),
    ],
)
def test_extract_json(text, value, status):
    parsed = extract_json(text)
    assert (parsed.value, parsed.status) == (value, status)


@pytest.mark.parametrize(
    ("raw", "value", "status"),
    [
        (7, 7, "ok"),
        (7.0, 7, "ok"),
        ("8", 8, "coerced"),
        ("8/10", None, "unparsable"),
        (" 10 ", 10, "coerced"),
        (1, 1, "ok"),
        (0, None, "out_of_range"),
        (11, None, "out_of_range"),
        ("42", None, "out_of_range"),
        (7.5, None, "unparsable"),
        ("seven", None, "unparsable"),
        (None, None, "unparsable"),
        (True, None, "unparsable"),
        ([7], None, "unparsable"),
    ],
)
def test_parse_score(raw, value, status):
    parsed = parse_score(raw, 1, 10)
    assert (parsed.value, parsed.status) == (value, status)

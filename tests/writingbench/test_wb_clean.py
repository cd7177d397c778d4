"""Removing reasoning text from responses."""

from __future__ import annotations

import pytest

from proseval.benchmarks.writingbench.clean import strip_reasoning, strip_reasoning_official


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<think>plan</think>\n\nThe essay.", "The essay."),
        ("<think>plan</think>The essay.", "The essay."),
        ("<THINK>plan</Think>  The essay.", "The essay."),
        ("<thinking>a</thinking>\nText", "Text"),
        ("<reasoning>a</reasoning>Text", "Text"),
        ("<thought>a</thought>Text", "Text"),
        ('<think type="long">a</think>Text', "Text"),
        ("<think>outer <think>inner</think> still outer</think>Answer", "Answer"),
        ("<think>a</think>Part one. <think>b</think>Part two.", "Part one. Part two."),
        ("reasoning whose opening tag was in the template</think>\n\nAnswer", "Answer"),
        ("<think>never closed, cut off by the token limit", ""),
        ("Answer first. <think>then unfinished thoughts", "Answer first."),
        ("<thinking>a<think>b</think>c</thinking>Answer", "Answer"),
    ],
)
def test_strip_reasoning(raw, expected):
    cleaned = strip_reasoning(raw)
    assert cleaned.text == expected
    assert cleaned.stripped


@pytest.mark.parametrize(
    "raw",
    ["A plain answer.", "  Indented answer with <b>html</b>\n", "Think about <thinker> and <thoughtful> tags", ""],
)
def test_text_without_reasoning_is_unchanged(raw):
    cleaned = strip_reasoning(raw)
    assert cleaned.text == raw
    assert not cleaned.stripped


def test_removed_text_is_recorded():
    cleaned = strip_reasoning("<think>one</think>Answer<think>two</think>")
    assert cleaned.removed == ("<think>one</think>", "<think>two</think>")
    assert cleaned.text == "Answer"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<think>a</think>\n\nAnswer", "Answer"),
        ("<think>a</think>\nAnswer", "<think>a</think>\nAnswer"),  # one newline: not stripped
        ("<think>a</think>\n\nB</think>\n\nC", "B</think>\n\nC"),  # first marker only
        ("<thinking>a</thinking>\n\nAnswer", "<thinking>a</thinking>\n\nAnswer"),
        ("a</think>\n\n  Answer", "  Answer"),
    ],
)
def test_official_marker_rule(raw, expected):
    assert strip_reasoning_official(raw).text == expected

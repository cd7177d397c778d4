"""Extraction prompts, code unwrapping and list-answer parsing."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.extract import (
    EXTRACTOR_PROMPTS,
    Extraction,
    checker_input,
    classify_part,
    code_extraction_prompt,
    code_from_answer,
    extraction_from_sandbox,
    json_field,
    list_from_response,
    llm_extraction_prompt,
    parse_list_answer,
)
from proseval.sandbox import SandboxResult

RESPONSE = "Here you go:\n1. alpha\n2. beta\nHope it helps."


def test_classify_part_reads_the_marker():
    assert classify_part("#CODE#split the names").kind == "code"
    assert classify_part("#CODE#split the names").instruction == "split the names"
    part = classify_part("#JSONSCHEMA#:name")
    assert (part.kind, part.json_key) == ("json", "name")
    assert classify_part("#LISTSCHEMA#x").kind == "list"
    assert classify_part("请你按照python list的格式抓取").kind == "llm"
    assert classify_part("x #CODE#").kind == "llm"


def test_code_prompt_removes_newlines_and_fills_the_instruction():
    prompt = code_extraction_prompt(RESPONSE, "the list items", single=False)
    assert "Here you go:1. alpha2. betaHope it helps." in prompt
    assert "the list items" in prompt and "extract_info_list" in prompt
    single = code_extraction_prompt(RESPONSE, "the poem", single=True)
    assert "[cleaned_text]" in single and single != prompt


def test_prompts_accept_a_user_template_with_the_official_placeholders():
    prompts = {
        "extractor_code_single": EXTRACTOR_PROMPTS["extractor_code_single"].replaced_by(
            "<{model_response}|{instruction}>", "a.txt"
        ),
        "extractor_list": EXTRACTOR_PROMPTS["extractor_list"].replaced_by(
            "{input_instruction}/{model_response}/{extraction_prompt}", "b.txt"
        ),
    }
    code = code_extraction_prompt("a\nb", "I", single=True, prompts=prompts)
    assert code == "<ab|I>"
    llm = llm_extraction_prompt("Q", "R {braces}", "E", single=False, prompts=prompts)
    assert llm == "Q/R {braces}/E"


def test_llm_prompt_mentions_all_only_for_single_items():
    single = llm_extraction_prompt("write a poem", RESPONSE, "the poem", single=True)
    multi = llm_extraction_prompt("write a poem", RESPONSE, "the lines", single=False)
    assert "ALL" in single and "ALL" not in multi
    assert RESPONSE in single and "write a poem" in multi


FUNCTION = "def extract_info_list(model_response):\n    return [model_response]\n"


@pytest.mark.parametrize(
    "answer",
    [
        f"```python\n{FUNCTION}```",
        f"Sure, here it is:\n```py\n{FUNCTION}```\nThis works.",
        f"```\n{FUNCTION}```",
        f"```python\n{FUNCTION}",  # unterminated fence
        FUNCTION,
        f"```text\nnotes\n```\n```python\n{FUNCTION}```",
    ],
)
def test_code_from_answer_fixed_finds_the_function(answer):
    assert code_from_answer(answer) == FUNCTION


def test_code_from_answer_fixed_without_function_is_none():
    assert code_from_answer("```python\nprint(1)\n```") is None
    assert code_from_answer("I cannot do that.") is None


def test_code_from_answer_head_unwraps_only_python_fences():
    assert code_from_answer(f"```python\n{FUNCTION}```", compat="head") == FUNCTION
    other = f"```py\n{FUNCTION}```"
    assert code_from_answer(other, compat="head") == other


def sandbox_ok(value) -> SandboxResult:
    return SandboxResult(ok=True, value=value, error_kind=None, error=None, duration=0.1)


def test_extraction_from_sandbox():
    assert extraction_from_sandbox(sandbox_ok(["a", "b"])).items == ["a", "b"]
    assert extraction_from_sandbox(sandbox_ok("ab")).items == ["ab"]
    assert extraction_from_sandbox(sandbox_ok("ab"), compat="head").items == ["a", "b"]
    failed = SandboxResult(ok=False, value=None, error_kind="timeout", error="slow", duration=1)
    extraction = extraction_from_sandbox(failed)
    assert (extraction.ok, extraction.failure, extraction.detail) == (False, "timeout", "slow")


@pytest.mark.parametrize(
    ("answer", "items"),
    [
        ("['a', 'b']", ["a", "b"]),
        ('["a", "b"]', ["a", "b"]),
        ("```python\n['a', \"it's\"]\n```", ["a", "it's"]),
        ("The parts are: ['x', 'y'] as requested.", ["x", "y"]),
        ('["a", "b"', ["a", "b"]),  # truncated: repaired
        ("[1, 2]", ["1", "2"]),
        ("[]", []),
        ("'one text'", ["one text"]),
    ],
)
def test_parse_list_answer_fixed(answer, items):
    assert parse_list_answer(answer, RESPONSE).items == items


@pytest.mark.parametrize("answer", ["ALL", "all", '"ALL"', "'ALL'", " ALL \n", "```\nALL\n```"])
def test_whole_response_shortcut_fixed(answer):
    assert parse_list_answer(answer, RESPONSE).items == [RESPONSE]


@pytest.mark.parametrize("answer", ["Sorry, I cannot find it.", '{"a": 1}', "[['nested']]", "None", ""])
def test_unparseable_answers_fail_in_fixed_mode(answer):
    extraction = parse_list_answer(answer, RESPONSE)
    assert extraction.failure == "unparseable"
    assert checker_input(extraction) is None


def test_head_mode_reproduces_the_official_json_repair_reading():
    assert parse_list_answer('"ALL"', RESPONSE, compat="head").items == [RESPONSE]
    # A bare ALL is read as an empty string: the checkers see nothing at all.
    assert parse_list_answer("ALL", RESPONSE, compat="head").items == []
    assert parse_list_answer('"ab"', RESPONSE, compat="head").items == ["a", "b"]
    assert parse_list_answer('{"k": 1}', RESPONSE, compat="head").items == ["k"]
    assert parse_list_answer("['a', 'b']", RESPONSE, compat="head").items == ["a", "b"]
    assert parse_list_answer("42", RESPONSE, compat="head").failure == "unparseable"


@pytest.mark.parametrize(
    ("response", "items"),
    [
        ('{"name": "Ann", "age": 3}', ["Ann"]),
        ('Result:\n```json\n{"name": {"first": "Ann"}}\n```', ["{'first': 'Ann'}"]),
        ('```\n[{"name": "Bo"}, {"name": "Cy"}]\n```', ["Bo"]),
        ('{"name": 7}', ["7"]),
    ],
)
def test_json_field(response, items):
    assert json_field(response, "name").items == items


@pytest.mark.parametrize("response", ["no json here", '{"other": 1}', "[]", "```json\n{bad\n```"])
def test_json_field_failures(response):
    assert json_field(response, "name").failure == "invalid_json"


def test_list_from_response():
    assert list_from_response("Items: ['a', 'b']").items == ["a", "b"]
    assert list_from_response("no list").failure == "invalid_list"
    assert list_from_response("Items: ['a']", compat="head").failure == "invalid_list"


def test_checker_input_short_circuits_failures_except_head_sentinels():
    assert checker_input(Extraction(["a"])) == ["a"]
    assert checker_input(Extraction([])) == []
    json_failure = Extraction(None, "invalid_json", "x")
    code_failure = Extraction(None, "exception", "x")
    assert checker_input(json_failure) is None
    assert checker_input(code_failure) is None
    assert checker_input(code_failure, compat="head") is None
    assert checker_input(json_failure, compat="head") == list("INVALID JSON")

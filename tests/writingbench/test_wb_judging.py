"""Judge prompts, judge-reply parsing and the input-budget helper."""

from __future__ import annotations

import pytest

from proseval.benchmarks.writingbench.criteria import Criterion
from proseval.benchmarks.writingbench.judging import (
    JUDGE_SYSTEM,
    PER_CRITERION_TEMPLATE,
    TRUNCATION_MARKER,
    batched_judge_messages,
    fit_response,
    judge_messages,
    parse_batched_reply,
    parse_judge_reply,
    render_criterion,
)
from proseval.judging.parse import parse_score
from writingbench.wb_fixtures import criterion

TONE = Criterion.model_validate(criterion("Tone"))

# --- prompts --------------------------------------------------------------------------------


def test_render_criterion_is_python_repr():
    quoted = Criterion.model_validate({**criterion("Writer's voice"), "1-2": 'says "no"', "3-4": 'it\'s "weak"\nsee'})
    assert render_criterion(quoted) == (
        "{'name': \"Writer's voice\", 'criteria_description': \"How well the response handles Writer's voice.\", "
        "'1-2': 'says \"no\"', '3-4': 'it\\'s \"weak\"\\nsee', '5-6': 'adequate', '7-8': 'good', '9-10': 'excellent'}"
    )


def test_per_criterion_prompt_structure():
    messages = judge_messages("REQUEST {x}", "RESPONSE }{", TONE)
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    rendered = render_criterion(TONE)
    assert user.count(rendered) == 2
    first, request, response, second = (
        user.index(rendered),
        user.index("REQUEST {x}"),
        user.index("RESPONSE }{"),
        user.rindex(rendered),
    )
    assert first < request < response < second
    assert user.count('"score"') == 2 and user.count('"reason"') == 2
    assert user.index("1-2") < user.index("9-10") < first


def test_batched_prompt_lists_every_criterion():
    criteria = [Criterion.model_validate(criterion(name)) for name in ("A", "B", "C")]
    user = batched_judge_messages("Q", "R", criteria)[1]["content"]
    for c in criteria:
        assert user.count(render_criterion(c)) == 2
    assert "3. {'name': 'C'" in user
    assert '{"scores": [{"name": "<criterion name>"' in user


def test_custom_template_is_used():
    template = PER_CRITERION_TEMPLATE.replaced_by("<{criteria}|{query}|{response}>", "mine.txt")
    messages = judge_messages("q", "r", TONE, template, JUDGE_SYSTEM.replaced_by("S", "s.txt"))
    user = f"<{render_criterion(TONE)}|q|r>"
    assert messages == [{"role": "system", "content": "S"}, {"role": "user", "content": user}]


# --- single replies -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "score", "status"),
    [
        ('{"score": 8, "reason": "clear"}', 8, "ok"),
        ('```json\n{"score": 3, "reason": "weak"}\n```', 3, "ok"),
        ('Here is my verdict: {"score": 9, "reason": "great"} Thanks!', 9, "ok"),
        ('<think>hmm {"score": 2}</think>{"score": 7, "reason": "fine"}', 7, "ok"),
        ('{"score": 8.0, "reason": "x"}', 8, "ok"),
        ('{"score": "8", "reason": "x"}', 8, "coerced"),
        ('{"score": 10, "reason": "x"}', 10, "ok"),
        ('{"score": 1, "reason": "x"}', 1, "ok"),
        ('{"score": 6, "reason": "he said "wow" twice"}', 6, "repaired"),
        ('{"score": 5, "reason": "cut off', 5, "repaired"),
        ('Draft: {"score": 4, "reason": "a"} Final: {"score": 6, "reason": "b"}', 6, "ok"),
        ('{"score": 6}', 6, "ok"),
    ],
)
def test_parse_scored_replies(reply, score, status):
    verdict = parse_judge_reply(reply)
    assert (verdict.score, verdict.status) == (score, status)
    assert verdict.scored


def test_reason_is_kept():
    assert parse_judge_reply('{"score": 8, "reason": "clear"}').reason == "clear"


@pytest.mark.parametrize(
    ("reply", "status", "error"),
    [
        ('{"score": 0, "reason": "x"}', "invalid", "outside 1-10"),
        ('{"score": 11, "reason": "x"}', "invalid", "outside 1-10"),
        ('{"score": 7.5, "reason": "x"}', "invalid", "not a whole number"),
        ('{"score": true, "reason": "x"}', "invalid", "not a number"),
        ('{"score": "eight", "reason": "x"}', "invalid", "not a number"),
        ('{"score": null, "reason": "x"}', "invalid", "not a number"),
        ("I'm sorry, but I can't evaluate this response.", "unparsable", "no JSON object"),
        ('{"verdict": "good"}', "unparsable", "no JSON object"),
        ("", "unparsable", "empty reply"),
        ("<think>I will score it 8", "unparsable", "empty reply"),
    ],
)
def test_unscored_replies_are_none_never_zero(reply, status, error):
    verdict = parse_judge_reply(reply)
    assert verdict.score is None and not verdict.scored
    assert verdict.status == status
    assert error in verdict.error


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (7, (7, "ok", "")),
        (7.0, (7, "ok", "")),
        (" 7 ", (7, "coerced", "")),
        ("7.0", (7, "coerced", "")),
        ("+8", (8, "coerced", "")),
        ("7/10", (None, "unparsable", "score '7/10' is not a number")),
        (7.5, (None, "unparsable", "score 7.5 is not a whole number")),
        (float("nan"), (None, "unparsable", "score nan is not a whole number")),
        (False, (None, "unparsable", "score False is not a number")),
        (None, (None, "unparsable", "score None is not a number")),
        (-3, (None, "out_of_range", "score -3 is outside 1-10")),
        (11, (None, "out_of_range", "score 11 is outside 1-10")),
    ],
)
def test_every_judge_score_is_read_by_one_parser(value, expected):
    parsed = parse_score(value, 1, 10)
    assert (parsed.value, parsed.status, parsed.detail) == expected


# --- batched replies ------------------------------------------------------------------------

NAMES = ["Tone", "Word_Count", "结构清晰"]


def test_batched_list_form_with_loose_names():
    reply = (
        '{"scores": [{"name": "Tone", "score": 8, "reason": "a"}, '
        '{"name": "word count", "score": "6", "reason": "b"}, '
        '{"name": "结构清晰", "score": 12, "reason": "c"}]}'
    )
    verdicts = parse_batched_reply(reply, NAMES)
    assert [(v.score, v.status) for v in verdicts.values()] == [(8, "ok"), (6, "coerced"), (None, "invalid")]


def test_batched_mapping_form_and_missing_criterion():
    reply = 'Result:\n```json\n{"Tone": {"score": 9, "reason": "a"}, "Word_Count": {"score": 4, "reason": "b"}}\n```'
    verdicts = parse_batched_reply(reply, NAMES)
    assert verdicts["Tone"].score == 9 and verdicts["Word_Count"].score == 4
    assert verdicts["结构清晰"].score is None
    assert verdicts["结构清晰"].error == "criterion missing from the reply"


def test_batched_repair_and_refusal():
    broken = '{"scores": [{"name": "Tone", "score": 7, "reason": "a"}, {"name": "Word_Count", "score": 5'
    verdicts = parse_batched_reply(broken, NAMES)
    assert (verdicts["Tone"].score, verdicts["Tone"].status) == (7, "repaired")
    assert verdicts["Word_Count"].score == 5
    assert verdicts["结构清晰"].score is None
    refusal = parse_batched_reply("I won't grade this.", NAMES)
    assert all(v.status == "unparsable" and v.score is None for v in refusal.values())


# --- input budget ---------------------------------------------------------------------------


def words(text: str) -> int:
    return len(text.split())


def test_fit_response_unchanged_when_it_fits():
    fitted = fit_response("one two three", max_input_tokens=10, prompt_tokens=7, count_tokens=words)
    assert (fitted.text, fitted.truncated, fitted.original_tokens, fitted.kept_tokens) == ("one two three", False, 3, 3)


def test_fit_response_keeps_the_head():
    response = " ".join(f"w{i}" for i in range(100))
    marker_words = words(TRUNCATION_MARKER)
    fitted = fit_response(response, max_input_tokens=50, prompt_tokens=20, count_tokens=words)
    assert fitted.truncated and fitted.original_tokens == 100
    assert fitted.kept_tokens == 30
    assert fitted.text.endswith(TRUNCATION_MARKER)
    kept = fitted.text.removesuffix(TRUNCATION_MARKER).split()
    assert kept == [f"w{i}" for i in range(30 - marker_words)]


def test_fit_response_overflow_when_nothing_fits():
    fitted = fit_response("a b c", max_input_tokens=10, prompt_tokens=12, count_tokens=words)
    assert fitted.text is None and fitted.error == "context_overflow" and not fitted.truncated

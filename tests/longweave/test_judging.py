"""Judged LongWeave metrics: prompts, batching, reply parsing and per-sample formulas.

Every expected number is computed by hand in the comment next to it.
"""

from __future__ import annotations

import json
import re

import pytest

from proseval.benchmarks.longweave.judging.calls import (
    JudgeCall,
    biog_judge_calls,
    cf_relevance_messages,
    judged_text,
    nw_judge_calls,
    split_batches,
    sr_judge_calls,
)
from proseval.benchmarks.longweave.judging.config import JudgedConfig
from proseval.benchmarks.longweave.judging.replies import ParsedBatch, parse_cf_relevance, parse_reply
from proseval.benchmarks.longweave.judging.scores import (
    collect_verdicts,
    empty_answer_score,
    score_biog,
    score_nw,
    score_sr,
)

OFFICIAL = JudgedConfig.official()


def call(task: str, ids: tuple[int, ...]) -> JudgeCall:
    return JudgeCall(task, ids, [])  # type: ignore[arg-type]  # the task as a plain string


def reply(items: list[dict]) -> str:
    return json.dumps(items)


def biog_target(n: int) -> dict:
    return {"target_sentences": [f"Fact number {i} holds." for i in range(1, n + 1)]}


def user_text(judge_call: JudgeCall) -> str:
    return judge_call.messages[-1]["content"]


# --- batching and prompts ------------------------------------------------------------------


def test_split_batches_keeps_order_and_ids():
    assert split_batches(list(range(1, 24)), 10) == [
        tuple(range(1, 11)),
        tuple(range(11, 21)),
        (21, 22, 23),
    ]
    assert split_batches([], 5) == []
    with pytest.raises(ValueError, match="max_per_call"):
        split_batches([1, 2], 0)
    with pytest.raises(ValueError, match="unique"):
        split_batches([1, 1], 2)


def test_biog_calls_are_batched_with_stable_ids():
    calls = biog_judge_calls("Some text.", biog_target(12), 1024, JudgedConfig(biog_batch_size=5))
    assert [c.target_ids for c in calls] == [(1, 2, 3, 4, 5), (6, 7, 8, 9, 10), (11, 12)]
    last = user_text(calls[2])
    assert "[11] Fact number 11 holds." in last and "[12] Fact number 12 holds." in last
    assert "Fact number 10 " not in last
    assert calls[0].messages[0]["role"] == "system" and calls[0].messages[1]["role"] == "user"


def test_biog_default_batch_is_the_official_ten():
    calls = biog_judge_calls("x", biog_target(25), 1024)
    assert [len(c.target_ids) for c in calls] == [10, 10, 5]


def test_prompt_example_is_valid_json_with_the_batch_ids():
    calls = sr_judge_calls("r", {"qa_pairs": [{"question": "Q?", "answer": "A."}] * 7})
    example = re.search(r"placeholders\): (\[.*\])", user_text(calls[1])).group(1)
    assert [item["id"] for item in json.loads(example)] == [6, 7]
    assert set(json.loads(example)[0]) == {"id", "answered", "correct"}


def test_biog_judge_sees_only_the_first_target_words():
    response = "One, two. Three four five."
    text = user_text(biog_judge_calls(response, biog_target(1), 3)[0])
    assert "One, two. Three\n<<<BIOGRAPHY END>>>" in text
    official = user_text(biog_judge_calls(response, biog_target(1), 3, OFFICIAL)[0])
    assert "One two Three\n<<<BIOGRAPHY END>>>" in official


def test_sr_judge_sees_the_whole_report():
    report = " ".join(["word"] * 50)
    text = user_text(sr_judge_calls(report, {"qa_pairs": [{"question": "Q", "answer": "A"}]})[0])
    assert report in text
    assert judged_text(report, None, JudgedConfig()) == report


NW_TARGET = {
    "categories": ["Beta", "Alpha"],
    "statements": [
        {"id": 1, "category": "Beta", "statement": "b1", "reason": "r", "correct": "B1"},
        {"id": 2, "category": "Alpha", "statement": "a2", "reason": "r", "correct": "A2"},
        {"id": 3, "category": "Beta", "statement": "b3", "reason": "r", "correct": "B3"},
        {"id": 4, "category": "Beta", "statement": "b4", "reason": "r", "correct": "B4"},
    ],
    "rubric": {
        c: {"criteria": f"{c} criteria", "incorrect_examples": ["bad"], "correct_examples": ["ok"]}
        for c in ("Alpha", "Beta")
    },
}


def test_nw_one_call_per_category_in_category_order():
    calls = nw_judge_calls("article", NW_TARGET, 1024)
    assert [(c.label, c.target_ids) for c in calls] == [("Beta", (1, 3, 4)), ("Alpha", (2,))]
    assert "Beta criteria" in user_text(calls[0]) and "Alpha criteria" not in user_text(calls[0])
    split = nw_judge_calls("article", NW_TARGET, 1024, JudgedConfig(nw_batch_size=2))
    assert [c.target_ids for c in split] == [(1, 3), (4,), (2,)]


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="biog_batch_size"):
        JudgedConfig(biog_batch_size=0)
    with pytest.raises(ValueError, match="min_scored_share"):
        JudgedConfig(min_scored_share=1.5)


# --- reply parsing -------------------------------------------------------------------------


def test_parse_matches_by_id_in_any_order():
    parsed = parse_reply(
        call("biog", (4, 5, 6)),
        reply(
            [
                {"id": 6, "covered": False},
                {"id": 4, "covered": True},
                {"id": 5, "covered": True},
            ]
        ),
    )
    assert parsed.status == "ok"
    assert [v.verdict for v in parsed.verdicts] == [
        {"covered": True},
        {"covered": True},
        {"covered": False},
    ]


def test_parse_ignores_reasoning_and_prose():
    text = (
        '<think>draft: [{"id": 1, "covered": false}]</think>'
        'Here is my verdict:\n```json\n[{"id": 1, "covered": true}]\n```\nDone.'
    )
    parsed = parse_reply(call("biog", (1,)), text)
    assert parsed.verdicts[0].verdict == {"covered": True} and parsed.status == "ok"


def test_parse_repairs_a_list_cut_inside_its_last_object():
    text = '[{"id": 1, "covered": true}, {"id": 2, "covered": false'
    parsed = parse_reply(call("biog", (1, 2)), text)
    assert parsed.status == "repaired"
    assert [v.verdict for v in parsed.verdicts] == [{"covered": True}, {"covered": False}]


def test_parse_list_missing_its_bracket_uses_the_complete_objects():
    text = '[{"id": 1, "covered": true}, {"id": 2, "covered": false}'
    parsed = parse_reply(call("biog", (1, 2)), text)
    assert [v.verdict for v in parsed.verdicts] == [{"covered": True}, {"covered": False}]


def test_parse_accepts_one_object_per_line():
    text = '{"id": 1, "covered": true}\n{"id": 2, "covered": false}'
    parsed = parse_reply(call("biog", (1, 2)), text)
    assert parsed.status == "ok"
    assert [v.verdict for v in parsed.verdicts] == [{"covered": True}, {"covered": False}]


def test_unparsable_reply_leaves_every_target_unscored():
    parsed = parse_reply(call("biog", (1, 2, 3)), "All facts are covered, well done!")
    assert parsed.status == "unparsable"
    assert parsed.unscored_ids == (1, 2, 3)
    assert all(v.verdict is None and v.reason for v in parsed.verdicts)


def test_failed_call_leaves_every_target_unscored():
    parsed = parse_reply(call("sr", (1, 2)), None)
    assert parsed.status == "no_reply" and parsed.unscored_ids == (1, 2)


def test_partially_answered_batch():
    parsed = parse_reply(
        call("biog", (1, 2, 3, 4, 5)),
        reply(
            [
                {"id": 1, "covered": True},
                {"id": 2, "covered": False},
                {"id": 4, "covered": True},
            ]
        ),
    )
    assert parsed.status == "partial"
    assert parsed.unscored_ids == (3, 5)
    assert parsed.verdicts[2].reason == "missing from the judge reply"


def test_unknown_and_repeated_ids_are_ignored_first_wins():
    parsed = parse_reply(
        call("biog", (1, 2)),
        reply(
            [
                {"id": 1, "covered": True},
                {"id": 9, "covered": True},
                {"id": 1, "covered": False},
                {"id": "2", "covered": "no"},
            ]
        ),
    )
    assert [v.verdict for v in parsed.verdicts] == [{"covered": True}, {"covered": False}]
    assert any("unknown id 9" in n for n in parsed.notes)
    assert any("repeated id 1" in n for n in parsed.notes)


def test_positional_matching_only_when_counts_agree():
    booleans = parse_reply(call("biog", (7, 8, 9)), "[true, false, true]")
    assert [v.verdict for v in booleans.verdicts] == [
        {"covered": True},
        {"covered": False},
        {"covered": True},
    ]
    assert booleans.notes == ("items matched by position (no ids)",)
    short = parse_reply(call("biog", (7, 8, 9)), "[true, false]")
    assert short.status == "unparsable" and short.unscored_ids == (7, 8, 9)


def test_invalid_field_value_unscored_with_reason():
    parsed = parse_reply(
        call("biog", (1, 2)),
        reply(
            [
                {"id": 1, "covered": "maybe"},
                {"id": 2, "covered": "YES"},
            ]
        ),
    )
    assert parsed.verdicts[0].verdict is None and "covered" in parsed.verdicts[0].reason
    assert parsed.verdicts[1].verdict == {"covered": True}
    assert parsed.status == "partial"


def test_sr_correct_is_forced_false_when_not_answered():
    parsed = parse_reply(
        call("sr", (1, 2, 3)),
        reply(
            [
                {"id": 1, "answered": False},
                {"id": 2, "answered": False, "correct": True},
                {"id": 3, "answered": True},
            ]
        ),
    )
    assert parsed.verdicts[0].verdict == {"answered": False, "correct": False}
    assert parsed.verdicts[1].verdict == {"answered": False, "correct": False}
    assert parsed.verdicts[2].verdict is None  # answered but no "correct": undecided


def test_nw_accepts_official_key_names_and_keeps_evidence():
    parsed = parse_reply(
        call("nw", (3,)),
        json.dumps(
            {
                "verdicts": [
                    {"statement_id": 3, "exists_in_article": True, "follows_rules": False, "evidence": "b3"},
                ]
            }
        ),
    )
    assert parsed.verdicts[0].verdict == {"exists": True, "follows_rules": False}
    assert parsed.verdicts[0].evidence == "b3"


def test_collect_prefers_a_scored_retry():
    failed = parse_reply(call("biog", (1, 2)), "garbage")
    retry = parse_reply(call("biog", (1, 2)), "[true, true]")
    chosen = collect_verdicts([1, 2, 3], [failed, retry])
    assert chosen[1].verdict == {"covered": True} and chosen[2].verdict == {"covered": True}
    assert chosen[3].verdict is None and chosen[3].reason == "not judged"


# --- per-sample metrics --------------------------------------------------------------------


def biog_batches() -> list[ParsedBatch]:
    """10 facts in batches (1-4), (5-8), (9-10); the middle batch unparsable."""
    return [
        parse_reply(call("biog", (1, 2, 3, 4)), "[true, true, false, true]"),
        parse_reply(call("biog", (5, 6, 7, 8)), "{not json at all"),
        parse_reply(call("biog", (9, 10)), "[true, false]"),
    ]


def test_biog_coverage_over_judged_sentences():
    score = score_biog("text", biog_target(10), biog_batches(), 1024)
    # covered 3 + 1 = 4 of 6 judged sentences; 4 unscored leave the denominator
    assert score.value == pytest.approx(4 / 6)
    assert score.metrics["sentence_coverage_rate"] == pytest.approx(4 / 6)
    assert score.trace["unscored_targets"] == 4
    assert score.trace["judged_targets"] == 6
    assert set(score.trace["unscored_reasons"]) == {5, 6, 7, 8}


def test_biog_official_counts_failed_batch_as_uncovered():
    score = score_biog("text", biog_target(10), biog_batches(), 1024, OFFICIAL)
    assert score.value == pytest.approx(4 / 10)
    assert score.trace["unscored_counted_as_negative"] is True


def test_biog_sample_unscored_below_min_share():
    score = score_biog("text", biog_target(10), biog_batches(), 1024, JudgedConfig(min_scored_share=0.7))
    # 6 of 10 judged < 0.7
    assert score.value is None and score.metrics["sentence_coverage_rate"] is None
    assert "6 of 10" in score.reason
    assert score.metrics["words"] == 1.0  # words are still reported


def test_all_batches_failed_is_unscored_never_zero():
    batches = [parse_reply(call("biog", (1, 2)), None)]
    score = score_biog("text", biog_target(2), batches, 1024)
    assert score.value is None and score.reason == "no target could be judged"
    assert score_biog("text", biog_target(2), batches, 1024, OFFICIAL).value == 0.0


def test_no_targets_is_unscored():
    score = score_biog("text", biog_target(0), [], 1024)
    assert score.value is None and "no targets" in score.reason


def test_words_and_length_adherence():
    response = " ".join(["word"] * 1024)
    batches = [parse_reply(call("biog", (1,)), "[true]")]
    score = score_biog(response, biog_target(1), batches, 1024)
    assert score.metrics["words"] == 1024.0 and score.metrics["length_adherence"] == 1.0
    short = score_biog(" ".join(["word"] * 768), biog_target(1), batches, 1024)
    # 256 words short = 25 % of 1024: 1 / (1 + 1^2) = 0.5
    assert short.metrics["length_adherence"] == pytest.approx(0.5)


SR_TARGET = {"qa_pairs": [{"question": f"Q{i}", "answer": f"A{i}"} for i in range(1, 6)]}


def sr_batches() -> list[ParsedBatch]:
    """Five questions: (a, c) = (T, T), (T, F), (F, -), (T, T), unscored."""
    return [
        parse_reply(
            call("sr", (1, 2, 3)),
            reply(
                [
                    {"id": 1, "answered": True, "correct": True},
                    {"id": 2, "answered": True, "correct": False},
                    {"id": 3, "answered": False, "correct": False},
                ]
            ),
        ),
        parse_reply(
            call("sr", (4, 5)),
            reply(
                [
                    {"id": 4, "answered": True, "correct": True},
                    {"id": 5, "answered": "unsure"},
                ]
            ),
        ),
    ]


def test_sr_rates_and_harmonic_mean():
    score = score_sr("report", SR_TARGET, sr_batches(), 1024)
    # judged 4: a = 3/4, c = 2/4, total = 2 / (4/3 + 2) = 0.6
    assert score.metrics["answered_rate"] == pytest.approx(0.75)
    assert score.metrics["correctness_rate"] == pytest.approx(0.5)
    assert score.value == pytest.approx(0.6)
    assert score.trace["unscored_targets"] == 1


def test_sr_official_counts_unscored_as_unanswered():
    score = score_sr("report", SR_TARGET, sr_batches(), 1024, OFFICIAL)
    # a = 3/5, c = 2/5, total = 2 / (5/3 + 5/2) = 12/25
    assert score.value == pytest.approx(12 / 25)


def test_sr_nothing_correct_gives_zero_total():
    batches = [
        parse_reply(
            call("sr", (1, 2, 3, 4, 5)), reply([{"id": i, "answered": True, "correct": False} for i in range(1, 6)])
        )
    ]
    score = score_sr("report", SR_TARGET, batches, 1024)
    assert score.metrics["answered_rate"] == 1.0 and score.value == 0.0


def nw_batches(fifth: str) -> list[ParsedBatch]:
    """Beta: 1 found+AP, 3 found not AP, 4 missing; Alpha: statement 2 per ``fifth``."""
    return [
        parse_reply(
            call("nw", (1, 3, 4)),
            reply(
                [
                    {"id": 1, "exists": True, "follows_rules": True},
                    {"id": 3, "exists": True, "follows_rules": False},
                    {"id": 4, "exists": False, "follows_rules": True},
                ]
            ),
        ),
        parse_reply(call("nw", (2,)), fifth),
    ]


def test_nw_macro_average_over_categories():
    found = reply([{"id": 2, "exists": True, "follows_rules": True}])
    score = score_nw("article", NW_TARGET, nw_batches(found), 1024)
    # Beta: recall 2/3, ap 1/3; Alpha: recall 1, ap 1
    # recall = 5/6, ap = 2/3, total = 2 / (6/5 + 3/2) = 20/27
    assert score.metrics["recall_rate"] == pytest.approx(5 / 6)
    assert score.metrics["ap_total_score"] == pytest.approx(2 / 3)
    assert score.value == pytest.approx(20 / 27)


def test_nw_unjudged_category_leaves_the_average():
    score = score_nw("article", NW_TARGET, nw_batches("no verdict"), 1024)
    # 3 of 4 judged; Alpha has no verdict: recall = 2/3, ap = 1/3, total = 2 / (3 + 3/2) = 4/9
    assert score.trace["unscored_categories"] == ["Alpha"]
    assert score.value == pytest.approx(4 / 9)
    official = score_nw("article", NW_TARGET, nw_batches("no verdict"), 1024, OFFICIAL)
    # Alpha counts 0: recall = 1/3, ap = 1/6, total = 2 / (6 + 3) = 2/9
    assert official.value == pytest.approx(2 / 9)


def test_empty_answer_scores_zero_everywhere():
    score = empty_answer_score("sr")
    assert score.value == 0.0
    assert set(score.metrics) == {
        "answered_rate",
        "correctness_rate",
        "total_score",
        "words",
        "length_adherence",
    }
    assert all(v == 0.0 for v in score.metrics.values())


# --- CF relevance gate ---------------------------------------------------------------------


def test_cf_messages_show_both_programs():
    messages = cf_relevance_messages("def f():\n    pass", "def f():\n    return 1")
    assert "def f():\n    pass" in messages[1]["content"]
    assert "def f():\n    return 1" in messages[1]["content"]


@pytest.mark.parametrize(
    ("text", "relevant", "statuses"),
    [
        ('{"relevant_and_complete": false}', False, {"ok"}),
        ('<think>{"relevant_and_complete": false}</think> {"is_relevant_and_complete": true}', True, {"ok"}),
        ('Verdict: {"relevant_and_complete": True}', True, {"repaired", "text"}),
        ("relevant_and_complete: false", False, {"text"}),
    ],
)
def test_cf_relevance_parsing(text, relevant, statuses):
    verdict = parse_cf_relevance(text)
    assert verdict.relevant is relevant and verdict.status in statuses


def test_cf_unparsable_is_unscored_official_defaults_to_relevant():
    verdict = parse_cf_relevance("I am not sure.")
    assert verdict.relevant is None and verdict.status == "unparsable" and verdict.reason
    assert parse_cf_relevance(None).status == "no_reply"
    official = parse_cf_relevance("I am not sure.", OFFICIAL)
    assert official.relevant is True and official.status == "defaulted"


# --- with generated samples ----------------------------------------------------------------


@pytest.mark.parametrize("task", ["biog", "sr", "nw"])
def test_generated_sample_all_positive_judge_scores_one(task):
    from proseval.benchmarks.longweave.generators import generate

    sample = generate(task, "2k", 5)
    words = sample.metadata["target_words"]
    builders = {
        "biog": lambda: biog_judge_calls("text", sample.target, words),
        "sr": lambda: sr_judge_calls("text", sample.target),
        "nw": lambda: nw_judge_calls("text", sample.target, words),
    }
    scorers = {"biog": score_biog, "sr": score_sr, "nw": score_nw}
    fields = {"biog": ("covered",), "sr": ("answered", "correct"), "nw": ("exists", "follows_rules")}
    calls = builders[task]()
    judged = [i for c in calls for i in c.target_ids]
    assert len(judged) == len(set(judged))  # every target in exactly one call
    batches = [
        parse_reply(c, reply([{"id": i, **dict.fromkeys(fields[task], True)} for i in reversed(c.target_ids)]))
        for c in calls
    ]
    score = scorers[task]("text", sample.target, batches, words)
    assert score.value == 1.0
    assert score.trace["targets"] == len(judged) and score.trace["unscored_targets"] == 0

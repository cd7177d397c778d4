"""Hand-made cases for the LongWeave rule scorers; expected values are computed by hand."""

from __future__ import annotations

import random
import re

import pytest

from proseval.benchmarks.longweave.scorers import cf as cf_module
from proseval.benchmarks.longweave.scorers.cf import (
    CFCase,
    CFConfig,
    count_functions,
    extract_code,
    func_count_score,
    score_cf,
    score_cf_batch,
)
from proseval.benchmarks.longweave.scorers.code_checks import CodeCheck
from proseval.benchmarks.longweave.scorers.kvg import KVGConfig, KVGInstance, score_kvg
from proseval.benchmarks.longweave.scorers.length import (
    count_words,
    length_adherence,
    truncate_to_words,
)
from proseval.benchmarks.longweave.scorers.pr import (
    PRConfig,
    align_to_originals,
    extract_segments,
    kendall_tau_b,
    score_pr,
)
from proseval.benchmarks.longweave.scorers.sms import SMSConfig, SMSInstance, score_sms
from proseval.core.closeness import _WORD

OFFICIAL_CF = CFConfig.official()

# --------------------------------------------------------------------------------------------
# CF

CLEAN_ONE_FUNCTION = "def add(a, b):\n    return a + b"
ORIGINAL_ONE_FUNCTION = "def Add(a,b):\n  return a+b\n"


def fenced(code: str, tag: str = "python") -> str:
    return f"Here you go:\n```{tag}\n{code}\n```\nDone."


def test_cf_clean_code_costs_only_the_missing_final_newline():
    score = score_cf(fenced(CLEAN_ONE_FUNCTION), ORIGINAL_ONE_FUNCTION)
    # The extracted code is stripped, so W292 is the one violation: s = 1 / (1 + 1/50) = 50/51.
    assert score.trace["violation_codes"] == {"W292": 1}
    assert score.metrics["runnable_ratio"] == 1.0
    assert score.metrics["style_quality_score"] == pytest.approx(50 / 51)
    assert score.metrics["func_count_score"] == 1.0
    # 3 / (1 + 51/50 + 1) = 150/151
    assert score.value == pytest.approx(150 / 151)
    assert score.trace["relevance"] == "not judged"


def test_cf_a_known_original_function_count_is_used_as_given():
    """The original is not parsed when its function count is known (here: claimed to be 3)."""
    score = score_cf(fenced(CLEAN_ONE_FUNCTION), "not python at all (", original_functions=3)
    assert score.trace["original_functions"] == 3
    # f = 1 / (1 + (|1 - 3| / max(1, 3/4))^2) = 1/5
    assert score.metrics["func_count_score"] == pytest.approx(0.2)


def test_cf_file_level_noqa_gives_full_marks():
    score = score_cf(fenced("# flake8: noqa\n" + CLEAN_ONE_FUNCTION), ORIGINAL_ONE_FUNCTION)
    assert score.trace["violations"] == 0
    assert score.value == 1.0


@pytest.mark.parametrize("answer", ["", "   \n\t "])
def test_cf_empty_answer_scores_zero_everywhere(answer):
    score = score_cf(answer, ORIGINAL_ONE_FUNCTION)
    assert score.value == 0.0
    assert set(score.metrics.values()) == {0.0}


def test_cf_prose_is_not_runnable_but_keeps_its_function_score():
    original = "\n".join(f"def f{i}():\n    pass" for i in range(4))
    score = score_cf("I cannot fix this file, sorry.", original)
    # 0 functions against 4: scale max(1, 4/4) = 1, f = 1 / (1 + 4^2) = 1/17 -> 0.0588
    assert score.metrics == {
        "runnable_ratio": 0.0,
        "style_quality_score": 0.0,
        "func_count_score": 0.0588,
        "total_score": 0.0,
    }
    assert score.trace["compile_error"].startswith("SyntaxError")


def test_cf_judged_irrelevant_zeroes_everything_without_running_flake8():
    score = score_cf(fenced(CLEAN_ONE_FUNCTION), ORIGINAL_ONE_FUNCTION, relevant=False)
    assert score.value == 0.0 and set(score.metrics.values()) == {0.0}
    assert "violations" not in score.trace
    assert score.trace["relevance"] == "judged irrelevant"


def test_cf_judged_relevant_keeps_the_rule_scores():
    score = score_cf(fenced(CLEAN_ONE_FUNCTION), ORIGINAL_ONE_FUNCTION, relevant=True)
    assert score.value == pytest.approx(150 / 151)
    assert score.trace["relevance"] == "judged relevant"


def test_cf_default_ignored_codes_count_only_in_the_official_setting():
    code = "def add(a, b):\n    return a+b"  # E226 (default-ignored) + W292
    assert score_cf(fenced(code), ORIGINAL_ONE_FUNCTION).trace["violations"] == 1
    official = score_cf(fenced(code), ORIGINAL_ONE_FUNCTION, config=OFFICIAL_CF)
    assert official.trace["violation_codes"] == {"E226": 1, "W292": 1}
    assert official.metrics["style_quality_score"] == pytest.approx(50 / 52)


def test_cf_naming_codes_can_be_left_out():
    code = "def AddThem(a, b):\n    return a + b"  # N802 + W292
    assert score_cf(fenced(code), ORIGINAL_ONE_FUNCTION).trace["violation_codes"] == {
        "N802": 1,
        "W292": 1,
    }
    without = score_cf(fenced(code), ORIGINAL_ONE_FUNCTION, config=CFConfig(count_naming=False))
    assert without.trace["violation_codes"] == {"W292": 1}


def test_cf_extraction_takes_the_first_python_or_untagged_block():
    assert extract_code("a\n```python\nx = 1\n```\n```python\ny = 2\n```") == (
        "x = 1",
        "first fenced block",
    )
    assert extract_code("```PYTHON\nx = 1\n```")[0] == "x = 1"
    assert extract_code("```\nx = 1\n```")[0] == "x = 1"
    # Other tags are not consumed: they stay in the code, as in the official scorer.
    assert extract_code("```py\nx = 1\n```")[0] == "py\nx = 1"
    assert extract_code("```python3\nx = 1\n```")[0] == "3\nx = 1"
    assert extract_code("  x = 1  \n") == ("x = 1", "whole answer")


def test_cf_extraction_finds_what_the_official_expression_finds():
    """The block is found with str.find; on random answers made of fences, tags, whitespace
    and code it must give the official expression's group, or no block when it finds none."""
    official = re.compile(r"```(?:python)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
    pieces = [
        "```",
        "`",
        "``",
        "````",
        "python",
        "PyThOn",
        "py",
        "python3",
        " ",
        "\n",
        "\t",
        "\u00a0",
        "x = 1",
        "def f():",
        "pass",
        "#",
        "é",
    ]
    rng = random.Random(11)
    answers = ["```python```", "``````", "````", "```python \n```", "a```b```c```d"]
    answers += ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12))) for _ in range(3000)]
    for answer in answers:
        match = official.search(answer)
        code, how = extract_code(answer)
        assert (how == "first fenced block") == (match is not None), repr(answer)
        if match:
            assert code == match.group(1).strip(), repr(answer)


def test_cf_lone_fence_line_is_dropped_unless_official():
    answer = "x = 1\ny = 2\n```"
    assert extract_code(answer) == (
        "x = 1\ny = 2",
        "whole answer without its lone fence line",
    )
    assert extract_code("```python\nx = 1")[0] == "x = 1"
    assert extract_code(answer, strip_lone_fence=False)[0] == answer
    official = score_cf(answer, "x = 0\n", config=OFFICIAL_CF)
    assert official.metrics["runnable_ratio"] == 0.0 and official.value == 0.0
    assert score_cf(answer, "x = 0\n").metrics["runnable_ratio"] == 1.0


def test_cf_function_counts():
    code = (
        "# def commented\n"
        "def outer():\n"
        "    def inner():\n"
        "        pass\n"
        "    return 'def '\n"
        "\n"
        "async def later():\n"
        "    pass\n"
    )
    # "def " substrings: the comment, outer, inner, the string literal, later
    assert count_functions(code, ast_count=False) == 5
    assert count_functions(code) == 2  # outer and later
    broken = "def a(:\n    pass\ndef b():\n    def c():\n  async def d():\n"
    assert count_functions(broken) == 2  # column-0 def lines: a and b
    assert count_functions("   ") == 0


def test_cf_function_count_score_scale():
    # 10 against 13: scale 13/4 = 3.25, 1 / (1 + (3 / 3.25)^2) = 0.53994... -> 0.5399
    assert func_count_score(10, 13) == 0.5399
    # 2 against 0: scale max(1, 0) = 1, 1 / (1 + 4) = 0.2
    assert func_count_score(2, 0) == 0.2
    assert func_count_score(7, 7) == 1.0


def test_cf_flake8_failure_is_unscored_not_zero(monkeypatch):
    def failing(sources, settings, processes):
        return [CodeCheck(None, 1, flake8_error="RuntimeError: plugin crashed") for _ in sources]

    monkeypatch.setattr(cf_module, "check_sources", failing)
    score = score_cf(fenced(CLEAN_ONE_FUNCTION), ORIGINAL_ONE_FUNCTION)
    assert score.value is None
    assert score.metrics["style_quality_score"] is None and score.metrics["total_score"] is None
    assert score.metrics["runnable_ratio"] == 1.0
    assert "plugin crashed" in score.reason


def test_cf_batch_in_worker_processes_matches_in_process():
    cases = [
        (fenced(CLEAN_ONE_FUNCTION), ORIGINAL_ONE_FUNCTION),
        CFCase(fenced("import os\nx=1"), ORIGINAL_ONE_FUNCTION),
        ("not code at all", ORIGINAL_ONE_FUNCTION),
        (fenced("def add(a, b):\n    return a+b"), ORIGINAL_ONE_FUNCTION, True),
        ("", ORIGINAL_ONE_FUNCTION),
    ]
    in_process = score_cf_batch(cases, processes=1)
    in_workers = score_cf_batch(cases, processes=2)
    assert in_workers == in_process
    # import os: F401; x=1: E225; no final newline: W292
    assert in_process[1].trace["violation_codes"] == {"E225": 1, "F401": 1, "W292": 1}


def test_cf_bad_process_count_is_refused():
    with pytest.raises(ValueError, match="processes"):
        score_cf_batch([(fenced(CLEAN_ONE_FUNCTION), ORIGINAL_ONE_FUNCTION)], processes=0)


# --------------------------------------------------------------------------------------------
# KVG


def kv_answer(pairs: list[tuple[str, str]], quote: str = "'") -> str:
    body = ", ".join(f"{quote}{k}{quote}: {quote}{v}{quote}" for k, v in pairs)
    return "{" + body + "}"


def filler(i: int) -> tuple[str, str]:
    return (chr(ord("A") + i) * 4, chr(ord("a") + i) * 4)


SMALL = KVGInstance("TTTT", "tttt", target_index=2, num_entries=4, key_length=4, value_length=4)


def test_kvg_perfect_answer():
    pairs = [filler(0), filler(1), ("TTTT", "tttt"), filler(3)]
    score = score_kvg(kv_answer(pairs), SMALL)
    assert score.metrics == dict.fromkeys(
        [
            "key_existence",
            "position_score",
            "entry_num_score",
            "avg_length_score",
            "total_score",
        ],
        1.0,
    )


def test_kvg_reference_point_from_the_specification():
    # N = 20, target index 10, the target at 15 (5 off), 18 entries, exact 32/32 lengths.
    instance = KVGInstance("T" * 32, "t" * 32, target_index=10, num_entries=20)
    pairs = [(f"K{i:031d}", f"v{i:031d}") for i in range(17)]
    pairs.insert(15, ("T" * 32, "t" * 32))
    score = score_kvg(kv_answer(pairs), instance)
    # position: 1 / (1 + (5/5)^2) = 0.5; entries: 1 / (1 + (2/5)^2) = 1/1.16
    assert score.metrics["position_score"] == 0.5
    assert score.metrics["entry_num_score"] == round(1 / 1.16, 4)
    assert score.metrics["avg_length_score"] == 1.0
    assert score.value == pytest.approx(3 / (2 + 1.16 + 1))  # 0.72115...


def test_kvg_length_score_averages_keys_and_values():
    pairs = [("AA", "aaaa"), ("BB", "bbbb"), ("TT", "tttt"), ("CC", "cccc")]
    instance = KVGInstance("TT", "tttt", target_index=2, num_entries=4, key_length=4, value_length=4)
    score = score_kvg(kv_answer(pairs), instance)
    # keys: mean length 2 against 4, scale max(1, 1) = 1 -> 1 / (1 + 4) = 0.2; values exact -> 1
    assert score.metrics["avg_length_score"] == 0.6
    assert score.value == pytest.approx(3 / (1 + 1 + 1 / 0.6))


def test_kvg_unpaired_target_passes_only_officially():
    pairs = [("TTTT", "aaaa"), filler(1), ("CCCC", "tttt"), filler(3)]
    assert score_kvg(kv_answer(pairs), SMALL).value == 0.0
    official = score_kvg(kv_answer(pairs), SMALL, config=KVGConfig.official())
    assert official.metrics["key_existence"] == 1.0
    # target key at index 0 instead of 2: 1 / (1 + (2/1)^2) = 0.2
    assert official.metrics["position_score"] == 0.2


def test_kvg_apostrophe_breaks_only_the_official_parser():
    answer = '{"AAAA": "it\'s", "BBBB": "bbbb", "TTTT": "tttt", "CCCC": "cccc"}'
    default = score_kvg(answer, SMALL)
    assert default.metrics["key_existence"] == 1.0 and default.trace["parsing"] == "JSON"
    assert score_kvg(answer, SMALL, config=KVGConfig.official()).value == 0.0


def test_kvg_python_literal_fallback():
    answer = "{'AAAA': True, 'BBBB': 'bbbb', 'TTTT': 'tttt', 'CCCC': 'cccc',}"
    score = score_kvg(answer, SMALL)
    assert score.trace["parsing"] == "Python literal"
    # values "True" (4 chars), so every length is exact
    assert score.value == 1.0
    assert score_kvg(answer, SMALL, config=KVGConfig.official()).value == 0.0


def test_kvg_duplicate_keys_keep_first_position_and_last_value():
    answer = "{'TTTT': 'xxxx', 'AAAA': 'aaaa', 'BBBB': 'bbbb', 'TTTT': 'tttt'}"
    score = score_kvg(answer, SMALL)
    assert score.trace["target_position"] == 0 and score.trace["entries"] == 3
    # position 1 / (1 + 2^2) = 0.2; entries 1 / (1 + 1^2) = 0.5
    assert score.metrics["position_score"] == 0.2
    assert score.metrics["entry_num_score"] == 0.5


@pytest.mark.parametrize("answer", ["", "no dictionary here", "} {", "{'a': }", "{}"])
def test_kvg_unreadable_or_empty_answers_score_zero(answer):
    score = score_kvg(answer, SMALL)
    assert score.value == 0.0 and set(score.metrics.values()) == {0.0}
    assert score.trace["problem"]


def test_kvg_bad_instance_is_refused():
    with pytest.raises(ValueError, match="positive"):
        KVGInstance("T", "t", target_index=0, num_entries=0)


# --------------------------------------------------------------------------------------------
# SMS

# From S0 on "0120": S0 -0-> S0 emits 0; S0 -1-> S1 emits 1; S1 -2-> S0 emits 0;
# S0 -0-> S0 emits 0.
MACHINE = SMSInstance("0120")
ROWS = ["S0 | 0 | S0 | 0", "S0 | 1 | S1 | 1", "S1 | 2 | S0 | 0", "S0 | 0 | S0 | 0"]
HEADER = "Current State | Input | Next State | Output Signal\n----------------------------"


def test_sms_expected_outputs():
    assert MACHINE.expected_outputs() == ["0", "1", "0", "0"]
    # 3 states, 2 outputs: S0 -2-> S2 emits 0; S2 -2-> S1 (4 mod 3) emits 0 (4 mod 2).
    assert SMSInstance("22", num_states=3, output_size=2).expected_outputs() == [
        "0",
        "0",
    ]


def test_sms_correct_table():
    score = score_sms(HEADER + "\n" + "\n".join(ROWS), MACHINE)
    assert score.value == 1.0 and score.trace["is_correct"]
    assert score.trace["first_problem"] is None


def test_sms_prefix_ratio_stops_at_the_first_wrong_output():
    rows = [*ROWS[:2], "S1 | 2 | S0 | 2", ROWS[3]]
    score = score_sms("\n".join(rows), MACHINE)
    assert score.value == 2 / 4 and score.trace["valid_steps"] == 2


def test_sms_only_the_output_column_counts():
    rows = [row.replace("S0", "S9") for row in ROWS]
    assert score_sms("\n".join(rows), MACHINE).value == 1.0


def test_sms_truncated_table():
    score = score_sms(HEADER + "\n" + "\n".join(ROWS[:3]), MACHINE)
    assert score.value == 3 / 4
    assert "ends after 3 of 4" in score.trace["first_problem"]


def test_sms_comma_and_colon_separators_and_blank_lines():
    assert score_sms("S0, 0, S0, 0\n\nS0: 1: S1: 1\nS1,2,S0,0\nS0|0|S0|0", MACHINE).value == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        "| Current State | Input | Next State | Output Signal |\n|---|---|---|---|\n"
        + "\n".join(f"| {row} |" for row in ROWS),
        "Here is the table:\n" + HEADER + "\n" + "\n".join(ROWS),
        "```\n" + HEADER + "\n" + "\n".join(ROWS) + "\n```",
        "State | Input | Next | Output\n" + "\n".join(ROWS),
    ],
    ids=["markdown", "preamble", "fenced", "unknown-header"],
)
def test_sms_table_wrappers_count_only_by_default(answer):
    assert score_sms(answer, MACHINE).value == 1.0
    assert score_sms(answer, MACHINE, config=SMSConfig.official()).value == 0.0


def test_sms_fewer_than_four_columns_stop_the_scan():
    assert score_sms("0\n1\n0\n0", MACHINE).value == 0.0


def test_sms_empty_input_string_is_unscored():
    score = score_sms("anything", SMSInstance(""))
    assert score.value is None and score.reason


def test_sms_invalid_machine_is_refused():
    with pytest.raises(ValueError, match="position 2"):
        SMSInstance("0x1").expected_outputs()


# --------------------------------------------------------------------------------------------
# PR

DOC = ["alpha beta gamma", "delta epsilon zeta", "theta iota kappa"]


def blocks(labels_and_texts: list[tuple[int, str]], marker: str = "[[Segment {}]]\n") -> str:
    return "\n\n".join(marker.format(label) + text for label, text in labels_and_texts)


def test_kendall_tau_b_by_hand():
    assert kendall_tau_b([0, 1, 2]) == 1.0
    assert kendall_tau_b([2, 1, 0]) == -1.0
    # pairs (0,1) +, (0,2) +, (1,2) -: (2 - 1) / 3
    assert kendall_tau_b([0, 2, 1]) == pytest.approx(1 / 3)
    # one tie in y: C - D = 2, n0 = 3, n2 = 1 -> 2 / sqrt(3 * 2)
    assert kendall_tau_b([0, 0, 1]) == pytest.approx(2 / 6**0.5)
    assert kendall_tau_b([1, 1, 1]) is None
    assert kendall_tau_b([0]) is None


def test_pr_alignment_by_content():
    assert align_to_originals(["zeta epsilon", "gamma alpha", "kappa"], DOC) == [
        1,
        0,
        2,
    ]
    # nothing in common with any original: the first original wins
    assert align_to_originals(["omega"], DOC) == [0]


def test_pr_correct_order_with_arbitrary_unique_labels():
    answer = blocks([(2, DOC[0]), (0, DOC[1]), (1, DOC[2])])
    score = score_pr(answer, DOC)
    assert score.value == pytest.approx(1.0)
    assert score.trace["aligned"] == [0, 1, 2]


def test_pr_one_swap():
    answer = blocks([(0, DOC[1]), (1, DOC[0]), (2, DOC[2])])
    # aligned [1, 0, 2]: tau = (-1 + 1 + 1) / 3 = 1/3 -> (1 + 1/3) / 2 = 2/3
    assert score_pr(answer, DOC).value == pytest.approx(2 / 3)


def test_pr_reversed_order():
    answer = blocks([(0, DOC[2]), (1, DOC[1]), (2, DOC[0])])
    assert score_pr(answer, DOC).value == pytest.approx(0.0)


def test_pr_missing_repeated_or_out_of_range_labels():
    missing = blocks([(0, DOC[0]), (1, DOC[1])])
    assert score_pr(missing, DOC).value == 0.0
    repeated = blocks([(0, DOC[0]), (1, DOC[1]), (1, DOC[2])])
    assert extract_segments(repeated, 3) == [(0, DOC[0]), (1, DOC[1])]
    out_of_range = blocks([(0, DOC[0]), (1, DOC[1]), (7, DOC[2])])
    score = score_pr(out_of_range, DOC)
    assert score.value == 0.0 and score.trace["labels"] == [0, 1]


def test_pr_all_segments_matching_one_original_scores_zero():
    answer = blocks([(0, DOC[0]), (1, DOC[0]), (2, DOC[0])])
    score = score_pr(answer, DOC)
    assert score.value == 0.0 and score.trace["tau_b"] is None


@pytest.mark.parametrize(
    "marker",
    ["**[[Segment {}]]**\n", "[[Segment {}]] ", "__[[Segment {}]]__ "],
    ids=["bold", "inline", "underscored"],
)
def test_pr_decorated_markers_count_only_by_default(marker):
    answer = blocks(list(enumerate(DOC)), marker=marker)
    assert score_pr(answer, DOC).value == pytest.approx(1.0)
    assert score_pr(answer, DOC, config=PRConfig.official()).value == 0.0


def test_pr_empty_body_swallows_the_next_marker_only_officially():
    answer = "[[Segment 0]]\n\n[[Segment 1]]\nalpha beta gamma\n\n[[Segment 2]]\ntheta iota kappa"
    assert [label for label, _ in extract_segments(answer, 3, tolerant=False)] == [0, 2]
    assert extract_segments(answer, 3) == [
        (0, ""),
        (1, "alpha beta gamma"),
        (2, "theta iota kappa"),
    ]


def test_pr_single_segment_document_is_unscored():
    score = score_pr("[[Segment 0]]\nalpha", ["alpha"])
    assert score.value is None and score.reason


# --------------------------------------------------------------------------------------------
# Length


def test_count_words_uses_word_tokens():
    # Hello / world / It / s / 2024 / 05 / 03
    assert count_words("Hello, world! It's 2024-05-03.") == 7
    assert count_words("") == 0


def test_count_words_finds_the_official_word_tokens():
    """The official token is `\\b\\w+\\b`; ours must find exactly the same tokens."""
    official = re.compile(r"\b\w+\b")
    texts = [
        "naïve café_au_lait 3.14 don't",
        "中文字符 and 日本語テキスト",
        "a__b--c  \n\t x1y2",
        "ümlaut-ß ½ ²",
        "def f(x):\n    return x_1 + 2",
    ]
    for text in texts:
        assert count_words(text) == len(official.findall(text))
        assert [m.span() for m in _WORD.finditer(text)] == [m.span() for m in official.finditer(text)]


def test_count_words_ascii_fast_path_counts_what_the_expression_finds():
    """ASCII text is counted with a byte table; it must equal the regular expression's count,
    at the edges too (a word at the start or end, runs of separators, every ASCII character)."""
    official = re.compile(r"\b\w+\b")
    rng = random.Random(7)
    alphabet = [chr(code) for code in range(128)]
    texts = ["x", "_", " ", "ab", "a b", " a", "a ", "".join(alphabet), "\x00word\x7f"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 200))) for _ in range(500)]
    for text in texts:
        assert text.isascii()
        assert count_words(text) == len(official.findall(text)), repr(text)


def test_truncate_keeps_layout_by_default():
    text = "One, two.\nThree four!"
    assert truncate_to_words(text, 3) == "One, two.\nThree"
    assert truncate_to_words(text, 3, keep_layout=False) == "One two Three"
    assert truncate_to_words(text, 10) == text
    assert truncate_to_words(text, 0) == ""


def test_length_adherence():
    assert length_adherence("a b c d", 4).value == 1.0
    # 5 words against 4: scale 1, 1 / (1 + 1) = 0.5
    assert length_adherence("a b c d e", 4).value == 0.5
    assert length_adherence("a b c d e", 4).trace["ratio"] == 1.25
    with pytest.raises(ValueError):
        length_adherence("a", 0)

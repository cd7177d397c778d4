"""Differential test of the rule checkers against the official verdicts in shared/vectors.

Every disagreement must be listed in fixtures/rules/vector_deviations.json with its reason:
a deliberate fix of an official defect (reproduced exactly under ``compat="head"``), a rule
family without a checker yet (undecided verdict), or a documented unexplained difference.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule

_OPTIONAL = ("simplemma", "jsonschema", "pyphen", "opencc", "strokes", "pinyin_order", "pypinyin")
_MISSING = [m for m in _OPTIONAL if importlib.util.find_spec(m) is None]
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"checker dependencies not installed: {_MISSING}")

DEVIATIONS = json.loads((Path(__file__).parent / "fixtures" / "rules" / "vector_deviations.json").read_text("utf-8"))
TOTAL_CASES = 23005
AGREEING_CASES = 22709


def _expected(case: dict) -> int:
    return int(case.get("pipeline_score", case["official_result"]))


def _verdict(case: dict, compat: str):
    ctx = RuleContext(language=case["lang"], json_schema=case["extra"].get("json_schema"), compat=compat)
    return evaluate_rule(case["rule"], case["items"], ctx, case["checker_family"])


@pytest.fixture(scope="module")
def cases(shared_dir) -> list[dict]:
    path = shared_dir / "vectors" / "meeseeks" / "rule_vectors.jsonl"
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


@pytest.fixture(scope="module")
def fixed_verdicts(cases) -> dict:
    return {case["id"]: _verdict(case, "fixed") for case in cases}


def _agrees(verdict, case) -> bool:
    return verdict.passed is not None and int(verdict.passed) == _expected(case)


def test_disagreements_are_exactly_the_documented_deviations(cases, fixed_verdicts):
    assert len(cases) == TOTAL_CASES
    disagreeing = {c["id"] for c in cases if not _agrees(fixed_verdicts[c["id"]], c)}
    assert disagreeing == set(DEVIATIONS["cases"])
    assert TOTAL_CASES - len(disagreeing) == AGREEING_CASES


# Families the vectors' README marks as official defects (always crashing, never passing, or
# mis-parsing their parameter); cases where the official checker raised are defects too.
README_DEFECT_FAMILIES = frozenset({
    "jpn_yayun", "hanzi_structure", "jpn_mixed_ratio", "arabic_feminine_indefinite_total",
    "arabic_feminine_definite_total", "french_adverbial_y", "check_keyword_inflections_each",
    "check_russian_derived_words", "check_russian_participle_usage", "check_russian_verb_temporal_relation",
    "detect_russian_multiple_plural_forms_enhanced", "russian_adjective_type_count", "check_russian_gender_agreement",
    "has_correct_abbreviation_format_only", "has_correct_compound_hyphen_usage", "has_correct_spanish_address_format",
    "has_correct_spanish_date_names_case", "has_spanish_abbreviation_count", "has_complete_exclamations",
})


def _official_defect(case: dict) -> bool:
    return case["family"] in README_DEFECT_FAMILIES or str(case["official_result"]).startswith("error")


def test_every_case_has_a_decided_verdict(cases, fixed_verdicts):
    assert [c["id"] for c in cases if fixed_verdicts[c["id"]].passed is None] == []


def test_agreement_on_cases_not_marked_as_official_defects_is_at_least_99_percent(cases, fixed_verdicts):
    sound = [c for c in cases if not _official_defect(c)]
    agreeing = sum(_agrees(fixed_verdicts[c["id"]], c) for c in sound)
    assert (len(sound), agreeing) == (21846, 21702)
    assert agreeing / len(sound) >= 0.99


def test_every_deviation_has_a_reason():
    assert set(DEVIATIONS["cases"].values()) <= set(DEVIATIONS["reasons"])


def test_unsupported_deviations_are_undecided_not_failed(cases, fixed_verdicts):
    for case in cases:
        if DEVIATIONS["cases"].get(case["id"]) == "unsupported":
            verdict = fixed_verdicts[case["id"]]
            assert (verdict.passed, verdict.status) == (None, "unsupported"), case["id"]


def test_fixed_defects_are_reproduced_under_the_head_profile(cases):
    fixed = [c for c in cases if DEVIATIONS["cases"].get(c["id"], "").startswith("fixed:")]
    assert len(fixed) == 293
    wrong = [c["id"] for c in fixed if not _agrees(_verdict(c, "head"), c)]
    assert wrong == []


@pytest.mark.parametrize(
    "family", ["hanzi_structure", "jpn_mixed_ratio", "has_complete_exclamations", "language_ratio", "any_keywords",
               "non_word_freq", "check_hyphenated_words_count", "check_fronted_emphasis",
               "check_informal_imperative_sentence", "check_keyword_inflections_each", "check_russian_derived_words",
               "french_ne_usage", "french_adverbial_y", "portuguese_euro_format", "has_spanish_abbreviation_count",
               "arabic_feminine_indefinite_total"],
)
def test_head_profile_matches_every_case_of_the_quirky_families(cases, family):
    selected = [c for c in cases if c["family"] == family]
    assert selected
    assert [c["id"] for c in selected if not _agrees(_verdict(c, "head"), c)] == []

"""Differential test of the rule checkers against the official verdicts in shared/vectors.

Both vector files (``rule_vectors.jsonl``, and ``rule_vectors_round2.jsonl`` for the families
that had none) are checked the same way. Every disagreement must be listed in the round's
deviations fixture with its reason: a deliberate fix of an official defect (``fixed:…``,
reproduced exactly under ``compat="head"``), the lemma-language choice of deviation R11
(``r11:…``), or a documented unexplained difference (``other:…``). Agreement is reported over
all cases; no family is left out of it.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from proseval.benchmarks.meeseeks.rules.agreement import (
    agrees,
    always_erroring_families,
    family_agreement,
    load_cases,
    verdict,
)
from proseval.benchmarks.meeseeks.rules.base import Verdict

_OPTIONAL = ("simplemma", "jsonschema", "pyphen", "opencc", "strokes", "pinyin_order", "pypinyin")
_MISSING = [m for m in _OPTIONAL if importlib.util.find_spec(m) is None]
pytestmark = [
    pytest.mark.skipif(bool(_MISSING), reason=f"checker dependencies not installed: {_MISSING}"),
    pytest.mark.slow,
]

FIXTURES = Path(__file__).parent / "fixtures" / "rules"


@dataclass(frozen=True)
class Round:
    vectors: str
    deviations: str
    total: int
    agreeing_default: int
    agreeing_head: int
    fixed: int
    erroring_families: tuple[str, ...]


ROUNDS = {
    "round1": Round(
        "rule_vectors.jsonl",
        "vector_deviations.json",
        23005,
        22709,
        23002,
        293,
        (
            "latin:arabic_feminine_definite_total",
            "latin:arabic_feminine_indefinite_total",
            "latin:check_keyword_inflections_each",
            "latin:check_russian_derived_words",
            "latin:check_russian_participle_usage",
            "latin:check_russian_verb_temporal_relation",
            "latin:french_adverbial_y",
            "latin:has_correct_spanish_date_names_case",
            "latin:has_spanish_abbreviation_count",
            "latin:russian_adjective_type_count",
        ),
    ),
    "round2": Round(
        "rule_vectors_round2.jsonl",
        "vector_deviations_round2.json",
        810,
        739,
        808,
        69,
        (
            "cjk:jpn_yayun",
            "latin:detect_russian_multiple_plural_forms_enhanced",
            "latin:has_correct_abbreviation_format_only",
            "latin:has_correct_compound_hyphen_usage",
            "latin:has_correct_spanish_address_format",
        ),
    ),
}


@dataclass
class Loaded:
    spec: Round
    cases: list[dict]
    deviations: dict
    fixed_verdicts: dict


@pytest.fixture(scope="module")
def round_cases(shared_dir) -> dict[str, list[dict]]:
    return {name: load_cases(shared_dir / "vectors" / "meeseeks" / spec.vectors) for name, spec in ROUNDS.items()}


@pytest.fixture(scope="module")
def verdicts(round_cases) -> dict[tuple[str, str], Verdict]:
    """Every case's verdict under both profiles, computed once for all the tests: (case id, profile)
    -> verdict (case ids are unique across the two vector files)."""
    return {
        (c["id"], profile): verdict(c, profile)
        for cases in round_cases.values()
        for c in cases
        for profile in ("fixed", "head")
    }


def judged(verdicts: dict[tuple[str, str], Verdict]) -> Callable[[dict, str], Verdict]:
    return lambda case, profile: verdicts[(case["id"], profile)]


@pytest.fixture(scope="module", params=sorted(ROUNDS))
def data(request, round_cases, verdicts) -> Loaded:
    spec = ROUNDS[request.param]
    cases = round_cases[request.param]
    deviations = json.loads((FIXTURES / spec.deviations).read_text("utf-8"))
    return Loaded(spec, cases, deviations, {c["id"]: verdicts[(c["id"], "fixed")] for c in cases})


@pytest.fixture(scope="module")
def all_cases(round_cases) -> list[dict]:
    return [c for name in ROUNDS for c in round_cases[name]]


def test_disagreements_are_exactly_the_documented_deviations(data):
    assert len(data.cases) == data.spec.total
    disagreeing = {c["id"] for c in data.cases if not agrees(data.fixed_verdicts[c["id"]], c)}
    assert disagreeing == set(data.deviations["cases"])
    assert data.spec.total - len(disagreeing) == data.spec.agreeing_default


def test_every_case_has_a_decided_verdict(data):
    assert [c["id"] for c in data.cases if data.fixed_verdicts[c["id"]].passed is None] == []


def test_every_deviation_has_a_reason_naming_its_family(data):
    assert set(data.deviations["cases"].values()) <= set(data.deviations["reasons"])
    families = {c["id"]: f"{c['checker_family']}:{c['family']}" for c in data.cases}
    for case_id, reason in data.deviations["cases"].items():
        kind, _, family = reason.partition(":")
        assert kind in ("fixed", "r11", "other") and family == families[case_id], case_id


def test_fixed_defects_are_reproduced_under_the_head_profile(data, verdicts):
    fixed = [c for c in data.cases if data.deviations["cases"].get(c["id"], "").startswith("fixed:")]
    assert len(fixed) == data.spec.fixed
    assert [c["id"] for c in fixed if not agrees(verdicts[(c["id"], "head")], c)] == []


def test_agreement_over_all_cases_under_both_profiles(data, verdicts):
    rows = family_agreement(data.cases, judged(verdicts))
    assert sum(r.cases for r in rows) == data.spec.total
    assert sum(r.default for r in rows) == data.spec.agreeing_default
    assert sum(r.head for r in rows) == data.spec.agreeing_head
    not_fixed = len(data.deviations["cases"]) - data.spec.fixed
    assert data.spec.total - data.spec.agreeing_head == not_fixed


def test_families_where_the_official_code_always_errors(data):
    assert tuple(always_erroring_families(data.cases)) == data.spec.erroring_families


@pytest.mark.parametrize(
    "family",
    [
        "hanzi_structure",
        "jpn_mixed_ratio",
        "has_complete_exclamations",
        "language_ratio",
        "any_keywords",
        "non_word_freq",
        "check_hyphenated_words_count",
        "check_fronted_emphasis",
        "check_informal_imperative_sentence",
        "check_keyword_inflections_each",
        "check_russian_derived_words",
        "french_ne_usage",
        "french_adverbial_y",
        "portuguese_euro_format",
        "has_spanish_abbreviation_count",
        "arabic_feminine_indefinite_total",
        "jpn_yayun",
        "detect_russian_multiple_plural_forms_enhanced",
        "has_correct_abbreviation_format_only",
        "has_correct_compound_hyphen_usage",
        "has_correct_spanish_address_format",
        "is_vigesimal_number",
        "french_seven_digit_number",
        "german_clause_verb",
        "portuguese_address_abbreviation",
        "check_si_usage",
        "pingze",
    ],
)
def test_head_profile_matches_every_case_of_the_quirky_families(all_cases, verdicts, family):
    cases = [c for c in all_cases if c["family"] == family]
    assert cases
    assert [c["id"] for c in cases if not agrees(verdicts[(c["id"], "head")], c)] == []


def test_agreement_table_and_erroring_families_on_synthetic_cases():
    from proseval.benchmarks.meeseeks.rules.agreement import format_table

    base = {"lang": "en", "checker_family": "latin", "extra": {}, "family": "item_count"}
    cases = [
        {**base, "rule": "item_count:[1,1]", "items": ["a"], "official_result": 1},
        {**base, "rule": "item_count:[1,1]", "items": ["a", "b"], "official_result": 1},
        {
            **base,
            "family": "x",
            "rule": "item_count:[1,1]",
            "items": ["a"],
            "official_result": "error: NameError",
            "pipeline_score": 0,
        },
        {**base, "family": "x", "rule": "item_count:[1,1]", "items": [], "official_result": 0},
    ]
    rows = family_agreement(cases)
    assert [(r.family, r.cases, r.default, r.head, r.errors) for r in rows] == [
        ("item_count", 2, 1, 1, 0),
        ("x", 2, 1, 1, 1),
    ]
    assert always_erroring_families(cases) == ["latin:x"]
    assert "| **listed** | | 4 | 2 (50.0 %) | 2 (50.0 %) |" in format_table(rows)

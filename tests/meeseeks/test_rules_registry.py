"""Dispatch, parameter parsing, undecided verdicts and the coverage report."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from proseval.benchmarks.meeseeks.data import load_items
from proseval.benchmarks.meeseeks.rules import registry
from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.coverage import format_coverage_table, rule_coverage
from proseval.benchmarks.meeseeks.rules.params import list_param, name_suffix
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule, find_spec, label_family

FIXTURES = Path(__file__).parent / "fixtures" / "data"


def test_unknown_label_is_unsupported_never_passed_or_failed():
    verdict = evaluate_rule("no_such_rule:[1]", ["x"], RuleContext(), "latin")
    assert (verdict.passed, verdict.status) == (None, "unsupported")


def test_labels_of_one_dispatcher_are_unknown_to_the_other():
    assert evaluate_rule("has_dakuten_count:1", ["が"], RuleContext(), "latin").status == "unsupported"
    assert evaluate_rule("arabic_each_length:[1,1]", ["x"], RuleContext(), "cjk").status == "unsupported"


def test_longest_prefix_wins():
    assert find_spec("arabic_each_length:[1,2]", "latin").family == "arabic_each_length"
    assert find_spec("each_length:[1,2]", "latin").family == "each_length"
    assert find_spec("each_word_freq2:['a']", "latin").family == "each_word_freq"
    assert find_spec("non_word_freq2:['a']", "cjk").family == "non_word_freq"
    assert find_spec("Portuguese_each_length:[1,2]", "latin").family == "portuguese_each_length"
    assert find_spec("russian_each_lengthth:[1,2]", "latin").family == "russian_each_length"


def test_unparsable_parameters_are_undecidable():
    verdict = evaluate_rule("item_count:[1,", ["x"], RuleContext(), "cjk")
    assert (verdict.passed, verdict.status) == (None, "undecidable")
    assert "item_count:[1," in verdict.reason


def test_parameters_are_parsed_as_literals_never_evaluated():
    assert list_param("keywords:[\"a\", 'b'],") == ["a", "b"]
    with pytest.raises(ValueError):
        list_param("keywords:[__import__('os').system('true')]")
    assert name_suffix("word_freq12:['x']", "word_freq") == 12
    assert name_suffix("word_freq:['x']", "word_freq") == 1


def test_bare_string_reading_follows_the_spec():
    # item_count reads a bare string as its characters, the ratio checks as one item.
    assert evaluate_rule("item_count:[3,3]", "abc", RuleContext(), "cjk").passed is True
    assert evaluate_rule("chinese_english_ratio:[1,1]", "花 web", RuleContext(), "cjk").passed is True


def test_missing_optional_dependency_is_reported_not_failed(monkeypatch):
    monkeypatch.setattr(registry, "module_available", lambda name: name != "pyphen")
    verdict = evaluate_rule("french_yayun", ["amour"], RuleContext(language="fr"), "latin")
    assert (verdict.passed, verdict.status) == (None, "missing_dependency")
    assert "pyphen" in verdict.reason and "proseval[meeseeks]" in verdict.reason


def test_label_family_for_unknown_labels():
    assert label_family("no_such_rule12:[1]", "cjk") == "no_such_rule"
    assert label_family("word_freq3:['a']", "cjk") == "word_freq"


def test_rule_coverage_on_fixture_items():
    rows = rule_coverage(load_items(FIXTURES))
    as_tuples = {(r.dispatcher, r.label): (r.family, r.implemented, r.occurrences, r.status) for r in rows}
    assert as_tuples == {
        ("cjk", "item_count:[3,3]"): ("item_count", True, 1, "implemented"),
        ("cjk", "each_length:[5,5]"): ("each_length", True, 1, "implemented"),
        ("cjk", "jpn_yayun"): ("jpn_yayun", True, 1, "implemented"),
        ("latin", "SCHEMA:json_schema"): ("schema", True, 1, "implemented"),
        ("latin", "item_count:[2,2]"): ("item_count", True, 1, "implemented"),
        ("latin", "item_count:[1,1]"): ("item_count", True, 1, "implemented"),
        ("latin", "no_such_rule:[1]"): ("no_such_rule", False, 1, "unsupported"),
        ("latin", 'keywords:["Haus"]'): ("keywords", True, 1, "implemented"),
    }


def test_rule_coverage_marks_missing_extras(monkeypatch):
    monkeypatch.setattr(registry, "module_available", lambda name: name != "simplemma")
    rows = {r.label: r for r in rule_coverage(load_items(FIXTURES, ["de"]))}
    assert rows['keywords:["Haus"]'].status == "needs_extra"
    assert rows["item_count:[1,1]"].status == "implemented"


def test_format_coverage_table_renders_families():
    console = Console(record=True, width=140)
    console.print(format_coverage_table(rule_coverage(load_items(FIXTURES))))
    out = console.export_text()
    assert "item_count" in out and "no_such_rule" in out and "Meeseeks rule coverage" in out


def test_official_data_coverage(shared_dir):
    rows = rule_coverage(load_items(shared_dir / "data" / "meeseeks"))
    assert sum(r.occurrences for r in rows) == 41351 - 19624
    implemented = sum(r.occurrences for r in rows if r.implemented)
    # Families without a checker yet are listed in docs/meeseeks.md (1707 of 21727 rule uses).
    assert implemented >= 20020

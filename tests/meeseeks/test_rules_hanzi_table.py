"""The Chinese character table that replaces the char-similar package."""

from __future__ import annotations

from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.chinese import STRUCTURES, char_table, tone_of
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule


def _passes(label: str, items: list[str]) -> bool | None:
    return evaluate_rule(label, items, RuleContext(language="zh"), "cjk").passed


def test_the_table_covers_the_common_characters_with_every_column():
    components, structures, tones = char_table("component"), char_table("struct"), char_table("tone")
    assert len(components) > 20_000 and len(structures) > 20_000 and len(tones) > 20_000
    for ch in "好明天花地我们山水":
        assert ch in components and ch in structures and ch in tones


def test_known_characters_have_their_component_structure_and_tone():
    assert char_table("component")["好"] == "女"
    assert char_table("component")["河"] == "氵"
    assert STRUCTURES[int(char_table("struct")["好"])] == "左右结构"
    assert STRUCTURES[int(char_table("struct")["思"])] == "上下结构"
    assert STRUCTURES[int(char_table("struct")["人"])] == "独体字"
    assert tone_of("花") == 1 and tone_of("明") == 2 and tone_of("好") == 3 and tone_of("地") == 4
    assert tone_of("A") is None


def test_component_and_structure_rules_read_the_table():
    assert _passes("hanzi_component女:[2,2]", ["好妈天"]) is True
    assert _passes("hanzi_component女:[2,2]", ["好天"]) is False
    assert _passes("hanzi_structure上下结构:[1,1]", ["思人"]) is True
    assert _passes("start_hanzi_tone:3", ["好花"]) is True
    assert _passes("start_hanzi_tone:3", ["花好"]) is False

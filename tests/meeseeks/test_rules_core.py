"""Hand-made cases for the core rule families (counts, lengths, keywords, frequencies, repetition)."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks import text
from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule

ZH = RuleContext(language="zh")
EN = RuleContext(language="en")
RU = RuleContext(language="ru")


def cjk(label, items, ctx=ZH):
    return evaluate_rule(label, items, ctx, "cjk").passed


def latin(label, items, ctx=EN):
    return evaluate_rule(label, items, ctx, "latin").passed


# --- text normalisers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("1. 春天来了！", "春天来了"),
        ("  (3) 桃花 red 12 开", "桃花开"),
        ("[a]ひらがなカタカナ", "ひらがなカタカナ"),
        ("한국어 문장입니다.", "한국어문장입니다"),
        ("Hello, 123!", ""),
    ],
)
def test_cjk_clean(raw, cleaned):
    assert text.cjk_clean(raw) == cleaned


def test_iteration_mark_counts_only_in_fixed_mode():
    assert len(text.cjk_clean("人々")) == 2
    assert len(text.cjk_clean("人々", "head")) == 1


def test_word_count_per_alphabet():
    assert text.word_count("Hello, 3 world! — 42 %") == 2
    assert text.word_count("Straße über 7 Tore", "german") == 3
    assert text.word_count("Привет мир и hello", "russian") == 3
    assert text.word_count("مرحبا بالعالم hi", "arabic") == 2


def test_script_clean_keeps_the_dominant_alphabet():
    assert text.script_clean("Hello, dear 世界!! kata-kata") == "Hello dear katakata"
    assert text.script_clean("Привет, world мир") == "Привет мир"


# --- counts and lengths -------------------------------------------------------------------


def test_item_count():
    assert cjk("item_count:[2,3]", ["a", "b"]) is True
    assert cjk("item_count:[2,3]", ["a"]) is False
    assert latin("item_count:[0,0]", []) is True


def test_cjk_each_length_counts_cjk_characters_only():
    assert cjk("each_length:[4,4]", ["1. 春天 spring 来了!", "夏天很热"]) is True
    assert cjk("each_length:[4,4]", ["春天来了吗"]) is False
    assert cjk("each_length:[3,3]", []) is True


def test_cjk_total_length():
    assert cjk("total_length:[7,7]", ["春天来了", "夏天热"]) is True
    assert cjk("total_length:[8,10]", ["春天来了", "夏天热"]) is False


def test_latin_each_length_counts_words_with_letters():
    assert latin("each_length:[3,3]", ["One two, 3 three!"]) is True
    assert latin("each_length:[3,3]", ["One two"]) is False
    assert latin("each_length:[0,5]", []) is False


def test_language_specific_lengths():
    assert latin("russian_each_length:[2,2]", ["Привет мир hello"]) is True
    assert latin("portuguese_each_length:[2,2]", ["guarda-chuva azul"]) is True
    assert latin("german_total_length:[4,4]", ["Das Haus", "ist schön 12"]) is True
    assert latin("has_spanish_word_count:[2.9,3.9]", ["Li Hua come pan"]) is True


def test_mixed_language_each_length():
    # 3 Han characters (我们很) + 3 German words (gehen nach Hause).
    assert latin("mixed_language_each_length:german:[6,6]", ["我们 gehen 很 nach Hause"]) is True
    assert latin("mixed_language_each_length:german:[5,5]", ["我们 gehen 很 nach Hause"]) is False


# --- keywords ----------------------------------------------------------------------------


def test_cjk_keywords_are_substrings():
    assert cjk('keywords:["春天"]', ["美丽的春天", "春天来了"]) is True
    assert cjk('keywords:["春天"]', ["美丽的春天", "夏天"]) is False
    assert cjk('non_keywords:["秋"]', ["春天", "夏天"]) is True
    assert cjk('non_keyword:["夏"]', ["春天", "夏天"]) is False


def test_latin_keywords_match_whole_words_and_inflections():
    assert latin('keywords:["house"]', ["Two HOUSES stand here."]) is True
    assert latin('keywords:["house"]', ["A greenhouse."]) is False
    assert latin('keywords:["завтрак"]', ["время завтрака"], RU) is True
    assert latin('non_keywords:["cat"]', ["The cats sleep."]) is False


def test_any_keywords_fixed_and_head():
    assert cjk('any_keywords2:["春","夏","秋"]', ["春天", "夏天"]) is True
    # "天'" + "," + " '夏" in the repr of the list contains the keyword "', '" only in head mode.
    assert cjk("any_keywords1:[\"', '\"]", ["春天", "夏天"]) is False
    assert cjk("any_keywords1:[\"', '\"]", ["春天", "夏天"], RuleContext(language="zh", compat="head")) is True


# --- frequencies -------------------------------------------------------------------------


def test_word_freq_exact_in_every_item():
    assert cjk('word_freq2:["花"]', ["花开花落", "一花一花"]) is True
    assert cjk('word_freq2:["花"]', ["花开花落", "一花"]) is False
    assert latin('word_freq2:["tidak"]', ["tidak mau, tidak bisa"], RuleContext(language="id")) is True


def test_non_word_freq_fixed_checks_every_item_head_only_the_first():
    items = ["花", "花花花"]
    assert cjk('non_word_freq2:["花"]', items) is False
    assert cjk('non_word_freq2:["花"]', items, RuleContext(language="zh", compat="head")) is True


def test_latin_non_word_freq_head_checks_only_the_first_keyword():
    items = ["un chat, un chien, un oiseau"]
    label = 'non_word_freq2:["le","un"]'
    assert latin(label, items, RuleContext(language="fr")) is False
    assert latin(label, items, RuleContext(language="fr", compat="head")) is True


def test_any_word_freq_and_notation_freq():
    assert cjk('any_word_freq3:["々","ゝ"]', ["人々ゝ々"]) is True
    assert cjk('notation_freq2:["ー"]', ["コーヒーです"]) is True
    assert cjk('notation_freq2:["ー"]', ["コーヒー", "ケーキ"]) is False


def test_character_freq_counts_over_all_items():
    assert latin("character_freq_e:[3,3]", ["Eel", "tree"]) is False
    assert latin("character_freq_e:[4,4]", ["Eel", "tree"]) is True


# --- repetition --------------------------------------------------------------------------


def test_repeat_each():
    assert cjk("repeat_each", ["1. 春天来了", "春天 来了!"]) is False
    assert cjk("repeat_each", ["春天来了", "夏天来了"]) is True
    assert latin("repeat_each", ["Hello there", "  HELLO  there!! "]) is False


def test_no_word_repeat_differs_per_dispatcher():
    assert cjk("no_word_repeat", ["春天", "天空"]) is False
    assert latin("no_word_repeat", ["the sun", "the moon"]) is True
    assert latin("no_word_repeat", ["the sun and the moon"]) is False


def test_each_no_word_repeat_and_no_character_repeat():
    assert cjk("each_no_word_repeat", ["春天", "天空"]) is True
    assert cjk("each_no_word_repeat", ["天天"]) is False
    assert latin("no_character_repeat", ["dog", "god"]) is True
    assert latin("no_character_repeat", ["the cat"]) is False


def test_non_very_similar_uses_dice_above_three_quarters():
    # {春,天,来,了} vs {春,天,来,啦}: Dice = 2*3/8 = 0.75, not above the limit.
    assert cjk("non_very_similar", ["春天来了", "春天来啦"]) is True
    # {春,天,来,了} vs {春,天,来,了,吗}: Dice = 2*4/9 ≈ 0.89.
    assert cjk("non_very_similar", ["春天来了", "春天来了吗"]) is False


# --- affixes and notation -----------------------------------------------------------------


def test_affixes():
    assert cjk('endswith_each:["厅"],', ["餐厅。", "大厅!"]) is True
    assert cjk('startswith_each:["美"]', ["1. 美丽", "丑"]) is False
    assert latin('endswith_each:["great"]', ["This is GREAT!"]) is True
    assert latin('endswith_each:["great"]', ["great 123"]) is False
    assert cjk("endswithany_each:['요','다']", ["좋아요", "갔다!"]) is True


def test_non_special_notation():
    assert cjk("non_special_notation:\n", ["one paragraph"]) is True
    assert cjk("non_special_notation:\n", ["two\nparagraphs"]) is False


# --- ratios -------------------------------------------------------------------------------


def test_chinese_english_ratio_is_exact_per_item():
    assert cjk("chinese_english_ratio:[3,2]", ["鱼 cloud 路 web 树"]) is True
    assert cjk("chinese_english_ratio:[3,2]", ["鱼路树树"]) is False  # no English word → ratio 1


def test_language_ratio_pairs_counts_of_the_same_item_unless_head():
    items = ["习 Stabilität", "习 umfasst 学 atemberaubenden"]
    label = "language_ratio:german:[1,1]"
    assert latin(label, items, RuleContext(language="de")) is True
    assert latin(label, items, RuleContext(language="de", compat="head")) is False

"""Hand-made cases for the language-specific rule families."""

from __future__ import annotations

import importlib.util

import pytest

from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule

HEAD = RuleContext(language="ja", compat="head")
ZH = RuleContext(language="zh")
PT = RuleContext(language="pt")


def cjk(label, items, ctx=ZH):
    return evaluate_rule(label, items, ctx, "cjk").passed


def latin(label, items, ctx=PT):
    return evaluate_rule(label, items, ctx, "latin").passed


# --- Japanese ----------------------------------------------------------------------------


def test_voiced_and_semi_voiced_kana_are_counted_precomposed():
    assert cjk("has_dakuten_count:3", ["がぎ", "ヴあ"]) is True
    assert cjk("has_dakuten_count:3", ["か\u3099ぎヴ"]) is False  # decomposed が is not counted
    assert cjk("has_handakuten_count:2", ["ぱパば"]) is True


def test_small_kana_total_or_per_numbered_entry():
    assert cjk("has_small_kana2", ["きゃっ"]) is True
    assert cjk("has_small_kana1", ["1. きゃ\n2. しゅ"]) is True
    assert cjk("has_small_kana1", ["1. きゃ\n2. しゅっ"]) is False


def test_furigana_and_honorifics():
    assert cjk("has_furigana_pattern:2", ["漢字（かんじ）と山(やま)", "かんじ（漢字）"]) is True
    assert cjk("has_honorific_prefix_each", ["お茶です", "ご連絡"]) is True
    assert cjk("has_honorific_prefix_each", ["おちゃ"]) is False


def test_kana_row_uses_the_bracketed_reading():
    assert cjk("jpn_starts_with_kana_row:か行", ["明日（ぐのか）", "きらい"]) is True
    assert cjk("jpn_starts_with_kana_row:か行", ["カタカナ"]) is False


def test_mixed_ratio_fixed_normalises_weights_head_does_not():
    items = ["ああアア亜亜"]  # shares 1/3 each
    assert cjk("jpn_mixed_ratio:[1,1,1]", items) is True
    assert cjk("jpn_mixed_ratio:[1,1,1]", items, HEAD) is False


def test_jpn_yayun_intended_check_and_head_failure():
    lines = ["はなが さく", "あめが ふる", "かぜが ふく"]  # endings く/る/く → u, u, u
    assert cjk("jpn_yayun", lines) is True
    assert cjk("jpn_yayun", ["さくら", "うみ", "そと"]) is False  # a, i, o → 1/3
    assert cjk("jpn_yayun", lines, HEAD) is False


# --- Korean ------------------------------------------------------------------------------


def test_tense_initials_and_abbreviations():
    assert cjk("double_consonants:3", ["까치 또 씨", "있다"]) is True  # 있 has a tense final only
    assert cjk("each_has_double_consonants:1", ["까치", "또"]) is True
    assert cjk("has_korean_abbreviation:ㅈㅎㅅ", ["1. 존 훙 시!"]) is True
    assert cjk("has_korean_abbreviation:ㅈㅎㅅ", ["존훙시요"]) is False


def test_kor_yayun_shares_vowel_and_final():
    assert cjk("kor_yayun", ["사랑", "바랑", "노래"]) is True
    assert cjk("kor_yayun", ["사랑", "노래", "바다"]) is False


# --- Chinese -----------------------------------------------------------------------------


def test_word_structure_palindrome_and_chains():
    assert cjk("word_structure:AAB", ["毛毛雨", "1. 悄悄话"]) is True
    assert cjk("word_structure:AAB", ["好好好"]) is False
    assert cjk("has_palindrome", ["上海自来水来自海上"]) is True
    assert cjk("jielong", ["一心一意", "意气风发", "发扬光大"]) is True
    assert cjk("jielong2", ["一帆风顺", "二龙戏珠"]) is True
    assert cjk("jielong3", ["风调雨顺", "春风化雨"]) is False


@pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("opencc", "strokes")),
    reason="the meeseeks extra is not installed",
)
def test_chinese_character_data_rules():
    assert cjk("fanti", ["我們明天見"]) is True
    assert cjk("fanti", ["我们"]) is False
    assert cjk("stroke_count_total:6", ["人月"]) is True  # 2 + 4 strokes
    assert cjk("start_hanzi_tone:1", ["花开"]) is True
    assert cjk("end_hanzi_tone:4", ["花地"]) is True
    assert cjk("hanzi_structure左右结构:[2,2]", ["好明天"]) is True
    assert cjk("hanzi_structure左右结构:[2,2]", ["好明天"], RuleContext(language="zh", compat="head")) is False


# --- rhyme and European counts ------------------------------------------------------------


def test_vowel_rhyme_share():
    assert latin("portuguese_yayun", ["meu coração", "a canção", "o sol"]) is True  # o, o, ol → 2/3
    assert latin("portuguese_yayun", ["o mar", "a flor", "o sol", "a lua"]) is False
    assert latin("spanish_yayun:0", ["una canción\nla pasión"]) is True


def test_arabic_rhyme_strips_the_article():
    assert latin("arabic_yayun", ["في النهار", "أنوار"]) is True


def test_diacritic_word_counts():
    assert latin("has_nasal_vowel:[2,2]", ["A irmã e a alemã."]) is True
    assert latin("has_acute_accent:[2,2]", ["café", "água e pão"]) is True
    assert latin("has_nasal_and_cedilla_words:[1,1]", ["Uma canção e uma praça."]) is True
    assert latin("french_diaeresis_total:[2.0]", ["Voici maïs.", "Noël"], RuleContext(language="fr")) is True


def test_german_articles_and_english_case():
    de = RuleContext(language="de")
    assert latin("german_article_der:[2]", ["Der Hund und der Baum"], de) is True
    assert latin("german_article_count:[4]", ["Der Hund, die Katze, das Haus"], de) is False
    assert latin("ENG_cap_num:2", ["YES", "NO 123", "Maybe"], RuleContext(language="en")) is True


def test_spanish_sentence_marks():
    es = RuleContext(language="es")
    assert latin("has_complete_questions:1", ["¿Qué tal? Bien."], es) is True
    assert latin("has_complete_exclamations:[3,1000]", ["¡Hola! ¡Vamos!"], es) is False
    assert (
        latin("has_complete_exclamations:[3,1000]", ["¡Hola! ¡Vamos!"], RuleContext(language="es", compat="head"))
        is True
    )


def test_bare_number_exclamation_label_means_at_least_n_in_both_profiles():
    for compat in ("fixed", "head"):
        es = RuleContext(language="es", compat=compat)
        assert latin("has_complete_exclamations:2", ["¡Hola! ¡Vamos!"], es) is True
        assert latin("has_complete_exclamations:2", ["¡Hola! ¡Vamos! ¡Ya!", "¡Bien!"], es) is True
        assert latin("has_complete_exclamations:2", ["¡Hola! Vamos."], es) is False
        assert latin("has_complete_exclamations:1", [], es) is False


def test_bare_number_accent_label_stays_exact():
    es = RuleContext(language="es")
    assert latin("has_spanish_accent_count:2", ["café y té"], es) is True
    assert latin("has_spanish_accent_count:2", ["café, té y sofá"], es) is False


def test_arabic_punctuation_separates_words_and_a_bare_string_fails():
    ar = RuleContext(language="ar")
    assert latin("ar_no_word_repeat", ["الشمس، الشمس."], ar) is False
    assert latin("ar_no_word_repeat", ["الشمس، تشرق", "الشمس."], ar) is True
    assert latin("ar_repeat_each", ["بحر، جبل", "بحر, جبل"], ar) is False
    assert latin("ar_no_word_repeat", "الشمس تشرق صباحا", ar) is False
    assert latin("ar_repeat_each", "الشمس تشرق", ar) is False


def test_rhyme_reads_only_words_of_the_language_script():
    assert latin("yayun", ["кот", "рот"], RuleContext(language="en")) is False
    assert latin("russian_yayun", ["cat", "hat"], RuleContext(language="ru")) is False
    assert latin("russian_yayun", ["строка 1", "строка 2"], RuleContext(language="ru")) is True
    assert latin("yayun", ["line 1", "line 2"], RuleContext(language="en")) is True

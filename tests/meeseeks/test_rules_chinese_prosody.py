"""Hand-made cases for Chinese prosody (rhyme groups, 平仄, regulated verse) and Japanese okurigana."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

from proseval.benchmarks.meeseeks.rules import chinese_prosody as cp
from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule

# Found, not imported: importing pypinyin takes every worker's collection 0.4 s.
pytestmark = pytest.mark.skipif(
    find_spec("pypinyin") is None, reason="Chinese prosody needs pypinyin (proseval[meeseeks])"
)

ZH = RuleContext(language="zh")
JA = RuleContext(language="ja")
JINGYESI = ["床前明月光，", "疑是地上霜。", "举头望明月，", "低头思故乡。"]
DENGGUANQUE = ["白日依山尽", "黄河入海流", "欲穷千里目", "更上一层楼"]


def cjk(label, items, ctx=ZH):
    return evaluate_rule(label, items, ctx, "cjk")


# --- rhyme groups --------------------------------------------------------------------------


def test_rhyme_options_cover_every_reading():
    assert cp.rhyme_options("光") == ("十六唐",)
    assert cp.rhyme_options("月") == ("四皆", "十姑")  # yue4, ru4
    assert cp.rhyme_options("流") == ("十二侯",)
    assert cp.rhyme_options(None) == ()


def test_best_groups_maximises_the_largest_group_and_keeps_first_readings():
    assert cp.best_groups([("四皆", "十姑"), ("十姑",)]) == ["十姑", "十姑"]
    assert cp.best_groups([("四皆", "十姑"), ("七齐", "十四寒")]) == ["四皆", "七齐"]
    assert cp.best_groups([(), ("十姑",)]) == [None, "十姑"]
    assert cp.best_groups([]) == []


def test_pingshui_groups_are_disjoint_and_ordered():
    sizes = sum(len(chars) for chars in cp._PINGSHUI.values())
    assert sizes == len(cp.PINGSHUI_GROUP)
    assert cp.PINGSHUI_ORDER == ("五微", "六鱼", "七虞", "八齐", "九佳")
    assert cp.PINGSHUI_GROUP["歸"] == cp.PINGSHUI_GROUP["归"] == "五微"


# --- yayun, pingze, lvshi_yayun ---------------------------------------------------------------


def test_yayun_half_of_the_lines_suffice():
    assert cjk("yayun", JINGYESI).passed is True
    assert cjk("yayun", ["春眠不觉晓\n处处闻啼鸟\n夜来风雨声\n花落知多少"]).passed is True  # lines inside one item
    assert cjk("yayun", ["一二三", "四五六七"]).passed is True  # 1 of 2 lines is 50 %
    assert cjk("yayun", ["天", "地", "人"]).passed is False


def test_yayun_uses_heteronyms():
    assert cjk("yayun", ["秋天树夜月", "天时意天竹"]).passed is True  # 月 read ru4 rhymes with 竹


def test_yayun_degenerate_inputs_fail():
    assert cjk("yayun", []).passed is False
    assert cjk("yayun", [""]).passed is False
    assert cjk("yayun", ["abc", "def"]).passed is False


def test_yayun_cjk_side_differs_from_latin_side():
    assert cjk("yayun", ["光", "霜"]).passed is True
    assert evaluate_rule("yayun", ["light", "night"], RuleContext(), "latin").passed is True


def test_pingze_needs_identical_patterns():
    assert cjk("pingze", ["春花秋月", "春花秋月。"]).passed is True
    assert cjk("pingze", ["春花秋月", "冬雪夏雨"]).passed is False
    assert cjk("pingze", ["床前明月光", "疑是地上霜"]).passed is False
    assert cjk("pingze", ["山高水长", "风清月白"]).passed is True  # modern tones: 白 bai2 is 平
    assert cjk("pingze", ["山高水远", "风清月白"]).passed is False
    assert cjk("pingze", ["天高", "山青"]).passed is True
    assert cjk("pingze", []).passed is False
    assert cjk("pingze", [""]).passed is False


def test_tone_pattern_classes():
    assert cp.tone_pattern("天地人好") == "平仄平仄"
    assert cp.tone_pattern("我的") == "仄轻"


def test_lvshi_yayun_even_lines_share_a_group():
    assert cjk("lvshi_yayun", DENGGUANQUE).passed is True
    assert cjk("lvshi_yayun", [*DENGGUANQUE[:3], "更上一层天"]).passed is False
    assert cjk("lvshi_yayun", ["床前明月光"]).passed is False
    assert cjk("lvshi_yayun", []).passed is False


# --- first line, odd lines ----------------------------------------------------------------------


def test_first_line_rhyme_both_modes():
    assert cjk("first_line_rhyme:入韵", JINGYESI).passed is True
    assert cjk("first_line_rhyme:不入韵", JINGYESI).passed is False
    assert cjk("first_line_rhyme:入韵", DENGGUANQUE).passed is False
    assert cjk("first_line_rhyme:不入韵", DENGGUANQUE).passed is True


def test_first_line_rhyme_edge_cases():
    assert cjk("first_line_rhyme:不入韵", ["床前明月光"]).passed is False
    assert cjk("first_line_rhyme:入韵", []).passed is False
    assert cjk("first_line_rhyme:押韵", JINGYESI).status == "undecidable"


def test_odd_lines_no_rhyme():
    assert cjk("chinese_odd_lines_no_rhyme", DENGGUANQUE).passed is True
    verdict = cjk("chinese_odd_lines_no_rhyme", JINGYESI)
    assert verdict.passed is False and "line 1" in verdict.reason
    assert cjk("chinese_odd_lines_no_rhyme", ["中花地来路", "月水人夜光", "春树年雪石", "春夜去水涯"]).passed is False
    assert cjk("chinese_odd_lines_no_rhyme", ["床前明月光"]).passed is False
    assert cjk("chinese_odd_lines_no_rhyme", []).passed is False


# --- 进退韵 / 辘轳韵 ---------------------------------------------------------------------------------

FILL = "山水花月春秋"


def poem(*endings: str) -> list[str]:
    """Eight lines; the even lines end in ``endings``."""
    return [FILL + (endings[i // 2] if i % 2 else "路") for i in range(8)]


@pytest.mark.parametrize(
    ("label", "endings", "passed"),
    [
        ("jin_tui_yun", "晖鱼挥如", True),
        ("jin_tui_yun", "晖微居余", False),
        ("jin_tui_yun", "西怀题鞋", True),
        ("jin_tui_yun", "违妻肥齐", False),  # 五微 and 八齐 are not adjacent
        ("jin_tui_yun", "围围围围", False),  # one group only
        ("jin_tui_yun", "客海意路", False),  # outside 五微–九佳
        ("lu_lu_yun", "晖微居余", True),
        ("lu_lu_yun", "晖鱼挥如", False),
        ("lu_lu_yun", "虞夫齐题", True),
        ("lu_lu_yun", "飛衣魚書", True),  # traditional characters
    ],
)
def test_alternating_rhyme_forms(label, endings, passed):
    assert cjk(label, poem(*endings)).passed is passed


def test_alternating_rhyme_forms_need_eight_lines():
    assert cjk("jin_tui_yun", poem(*"晖鱼挥如")[:6]).passed is False
    assert cjk("lu_lu_yun", []).passed is False


# --- Japanese okurigana nouns -----------------------------------------------------------------------


def test_okurigana_nouns_at_least_n():
    pytest.importorskip("janome")
    assert cjk("has_kanji_okurigana_pattern:2", ["今日は祭りが、曇りがあります。"], JA).passed is True
    assert cjk("has_kanji_okurigana_pattern:2", ["今日は晴れがあります。", "今日は教えがあります。"], JA).passed is True
    assert cjk("has_kanji_okurigana_pattern:3", ["今日は届け出が、考えが、教えがあります。"], JA).passed is False
    assert cjk("has_kanji_okurigana_pattern:1", ["食べる、飲む、走る"], JA).passed is False
    assert cjk("has_kanji_okurigana_pattern:1", [], JA).passed is False
    assert cjk("has_kanji_okurigana_pattern:1", [""], JA).passed is False


def test_okurigana_verbs_count_only_when_nominal():
    pytest.importorskip("janome")
    from proseval.benchmarks.meeseeks.rules.japanese import okurigana_nouns

    assert okurigana_nouns("明日は曇りです。") == ["曇り"]
    assert okurigana_nouns("顔を洗い、食べます。") == []
    assert okurigana_nouns("考えておく") == []
    assert okurigana_nouns("静かな夜") == []


def test_best_groups_equals_first_best_exhaustive_search():
    import itertools
    import random
    from collections import Counter

    rng = random.Random(7)
    for _ in range(300):
        options = [tuple(rng.sample("ABCD", rng.randint(0, 3))) for _ in range(rng.randint(0, 6))]
        best, best_size = None, -1
        for combo in itertools.product(*[o or (None,) for o in options]):
            size = max(Counter(g for g in combo if g).values(), default=0)
            if size > best_size:
                best, best_size = list(combo), size
        assert cp.best_groups(options) == best, options


def test_pingze_lines_without_chinese_fail_by_default_and_pass_in_head():
    assert cjk("pingze", ["hello", "world"]).passed is False
    head = RuleContext(language="zh", compat="head")
    assert evaluate_rule("pingze", ["hello", "world"], head, "cjk").passed is True

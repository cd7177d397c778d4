"""Arabic morphology heuristics (no official reference verdicts exist for these families)."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.rules import arabic
from proseval.benchmarks.meeseeks.rules.base import ParameterError, RuleContext

FIXED = RuleContext(language="ar")
HEAD = RuleContext(language="ar", compat="head")


def run(label: str, items, ctx: RuleContext = FIXED):
    spec = max((s for s in arabic.RULES if s.matches(label)), key=lambda s: len(s.prefix))
    return spec.check(spec.parse(label), items, ctx)


def passed(label: str, items, ctx: RuleContext = FIXED) -> bool | None:
    return run(label, items, ctx).passed


def test_words_keep_marks_and_drop_tatweel():
    (w,) = arabic.words("الـــكِتَابُ")
    assert w.bare == "الكتاب"
    assert w.mark(-1) == "\u064f"
    a, b = arabic.words("باب، البيت")
    assert not a.gap and b.gap


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("الكتاب", "كتاب"),
        ("والكتاب", "كتاب"),
        ("بالقلم", "قلم"),
        ("للبيت", "بيت"),
        ("ٱلْبَيْتُ", "بيت"),
        ("وبالأمس", "أمس"),
    ],
)
def test_article_found(word, stem):
    assert arabic.article(arabic.words(word)[0].bare)[1] == stem


@pytest.mark.parametrize("word", ["الذي", "التي", "الآن", "الى", "والدة", "بالغ", "كتاب", "الله"])
def test_article_not_found(word):
    assert arabic.article(word) is None


def test_definite_article_each_and_total():
    para = "ذهبت إلى المتجر ورأيت القميص الجميل، ثم اشتريت الحقيبة والقبعة"
    # المتجر القميص الحقيبة والقبعة; الجميل is the agreeing adjective of القميص
    assert passed("arabic_definite_article_each:[4,4]", [para])
    assert not passed("arabic_definite_article_each:[4,4]", [para, "في البيت"])
    assert passed("arabic_definite_article_total:[5,10000]", [para, "في البيت"])
    assert not passed("arabic_definite_article_total:[6,10000]", [para, "في البيت"])
    assert passed("arabic_definite_article_total:[2,2]", ["ٱلْكِتَابُ عَلَى ٱلطَّاوِلَةِ", "الذي الآن"])
    assert not passed("arabic_definite_article_each:[1,1]", [])
    assert passed("arabic_definite_article_total:[0,0]", [""])


def test_dual_nouns():
    assert passed(
        "arabic_dual_noun_each:[1,1]",
        [
            "هما يحبان أن يصبحا طبيبين في المستقبل",  # يحبان is a dual verb
            "يريدان أن يكونا مهندسَيْنِ ماهرَيْنِ",  # the dual adjective agrees, counts once
            "سيكونان معلمَيْنِ",
        ],
    )
    assert not passed("arabic_dual_noun_each:[1,1]", ["المهندسون", "طبيبين"])
    assert not passed("arabic_dual_noun_each:[1,1]", ["يعملان مُعَلِّمِينَ"])  # -ِينَ is a plural
    text = "اشترى قلمين وكتابين وحقيبتان، ثم تفاحتين والقميصين. كان الإنسان في المكان مع اثنين."
    assert passed("arabic_dual_noun_total:[5,10000]", [text])
    assert not passed("arabic_dual_noun_total:[6,10000]", [text])
    assert not passed("arabic_dual_noun_total:[1,10000]", ["إنسانٌ في مكانٍ", "فنانُ"])


def test_masculine_sound_plural_nominative():
    assert passed("athlete_masc_plural_each:[2,2]", ["اللاعبون والمدربون يلعبون القانون مسجون عشرون زيتونٌ"])
    assert passed("athlete_masc_plural_each:[1,1]", ["الرياضيُّونَ سعداء"])
    assert not passed("athlete_masc_plural_each:[1,1]", ["الرياضيين سعداء"])  # not nominative
    assert not passed("athlete_masc_plural_each:[1,1]", [])


def test_independent_pronouns_count_distinct_types():
    assert passed("ar_independent_pronoun_each:[4,4]", ["أنا وأنت ونحن وهم وهم", "أنتِ وأنتَ وهي وهما"])
    assert not passed("ar_independent_pronoun_each:[4,4]", ["أنا وأنت ونحن"])
    assert passed("ar_independent_pronoun_each:[2,2]", ["أنـــا وَهُوَ لهم"])  # لهم is a suffix
    assert passed("ar_independent_pronoun_each:[1,1]", ["فَهْمٌ وَهْمٌ هُمْ"])  # nouns, not و+هم
    assert passed("ar_independent_pronoun_total:[3,3]", ["فهو يحب", "وهي تحب", "أنا", "أنا"])
    assert not passed("ar_independent_pronoun_total:[1,12]", [])


def test_present_third_masculine_verbs_need_their_final_mark():
    text = "يَذْهَبُ صالِحٌ وَيَنْظُرُ ثُمَّ سَيَمْشِي يَوْمٌ يَكْتُبُونَ يَكْتُبْنَ تَكْتُبُ يَكُونُ"
    assert passed("arabic_ptm_verb_total:[4,4]", [text])
    result = run("arabic_ptm_verb_each:[3,3]", ["يذهب وينظر ويمشي"])
    assert not result.passed and "final vowel mark" in result.reason
    assert passed("arabic_ptm_verb_each:[2,2]", ["يَدْخُلُ الكهفَ وَيَحْمِلُ مصباحًا", "يَقِفُ ثُمَّ يَجْرِي"])
    assert not passed("arabic_ptm_verb_total:[1,1]", [])


@pytest.mark.parametrize(
    "word",
    [
        "جِبَال",
        "الْأَنْهَارُ",
        "مَدَارِس",
        "أصدقاء",
        "عصافير",
        "ليالي",
        "صحارى",
        "أسئلة",
        "علماء",
        "بيوت",
        "والكتب",
        "طلاب",
        "شوارع",
    ],
)
def test_broken_plurals(word):
    assert passed("arabic_broken_plurals_each:[1,1]", [word])


@pytest.mark.parametrize(
    "word", ["مُسَافِر", "كتاب", "سيارات", "ثقافي", "مهندسون", "أستاذ", "صحراء", "كرامة", "فَنَّانِين", ""]
)
def test_not_broken_plurals(word):
    assert not passed("arabic_broken_plurals_each:[1,1]", [word])


def test_idafa():
    good = ["بَابُ ٱلْبَيْتِ", "كتاب صديقها", "مِفْتَاحُ بَابِ غُرْفَةِ الْمُدِيرِ", "غروب الشمس الجميل"]
    assert passed("arabic_idafa_structure_each:[1,1]", good)
    for bad in ["كتابٌ جديدٌ", "المهرجان الصيني", "في البيت", "قلم", "باب، البيت", "باب والبيت", ""]:
        assert not passed("arabic_idafa_structure_each:[1,1]", [bad]), bad
    assert not passed("arabic_idafa_structure_each:[1,1]", [])


def test_feminine_indefinite_and_definite():
    poem = ["قُوَّةٌ وَرَحْمَةٌ وَحِكْمَةً", "وَالْمَرْأَةُ قُوَّةُ الشَّعْبِ", "مدينةٌ جميلةٌ"]
    # قوةُ (annexed) and جميلةٌ (adjective of مدينةٌ) do not count
    assert passed("arabic_feminine_indefinite_total:[4,4]", poem)
    assert not passed("arabic_feminine_indefinite_total:[5,5]", poem)
    dialogue = ["الأم في المطبخ مع البنت", "تطبخ الشوربة الساخنة والخضروات على النار", "البيت"]
    assert passed("arabic_feminine_definite_total:[5,5]", dialogue)
    assert not passed("arabic_feminine_definite_total:[6,6]", dialogue)


@pytest.mark.parametrize("family", ["arabic_feminine_indefinite_total", "arabic_feminine_definite_total"])
def test_feminine_families_fail_under_head(family):
    result = run(f"{family}:[0,100]", ["الأم"], HEAD)
    assert result.passed is False and "UnboundLocalError" in result.reason
    assert passed(f"{family}:[0,100]", ["الأم"])


def test_gender_ratio_is_feminine_to_masculine():
    assert passed("arabic_gender_ratio_total:[1,1]", ["السيارة جميلة والبيت كبير"])
    letter = "يسعدنا دعوتكم لحضور حفل زفاف ابنتنا في القاعة"  # verb and في skipped
    assert passed("arabic_gender_ratio_total:[3,3]", [letter])
    assert passed("arabic_gender_ratio_total:[1,2]", ["سيارة كتاب قلم"])
    assert not passed("arabic_gender_ratio_total:[2,1]", ["سيارة كتاب قلم"])
    assert not passed("arabic_gender_ratio_total:[1,2]", [])
    with pytest.raises(ParameterError):
        arabic._ratio("arabic_gender_ratio_total:[0,0]")

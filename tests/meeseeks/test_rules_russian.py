"""Russian morphology rule families (pymorphy3 + own stress heuristics)."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule

pytest.importorskip("pymorphy3")

FIXED = RuleContext(language="ru")
HEAD = RuleContext(language="ru", compat="head")


def passed(label: str, items, ctx: RuleContext = FIXED) -> bool | None:
    return evaluate_rule(label, items, ctx, "latin").passed


@pytest.mark.parametrize(
    ("label", "items", "expected"),
    [
        (
            "rus_stress_homonym_usage:замок:2",
            ["Старинный замок стоял на холме, где жил король. На двери висел замок, ключ от него потерялся."],
            True,
        ),
        ("rus_stress_homonym_usage:замок:2", ["Я видел замок вчера. Мы говорили про замок."], False),
        ("rus_stress_homonym_usage:замок:2", ["Старый замок с башнями. Рыцари вошли в замок."], False),
        ("rus_stress_homonym_usage:мука:2", ["Для пирога нужна пшеничная мука. Ожидание было мука и страдание."], True),
        ("rus_stress_homonym_usage:пропасть:2", ["Мы смотрели в пропасть. Нельзя пропасть без вести."], True),
        ("rus_stress_homonym_usage:орган:2", ["Это орган. Мы говорили про орга́н."], False),
        ("rus_stress_homonym_usage:орган:2", ["О́рган зрения устал. В соборе звучал орга́н."], True),
        ("rus_stress_homonym_usage:часы:2", ["Мои наручные часы встали. ЧасЫ пик утомляют."], True),
        ("rus_stress_homonym_usage:атлас:2", [], False),
        ("rus_stress_homonym_usage:атлас:2", [""], False),
    ],
)
def test_stress_homonyms(label, items, expected):
    assert passed(label, items) is expected


IAMB = ["Прогресс идёт вперёд,", "Шагает время смело"]
TROCHEE = ["Буря мглою небо кроет,", "Жил на свете рыцарь бедный"]
AMPHIBRACH = ["Не ветер бушует над бором,", "Не с гор побежали ручьи"]


@pytest.mark.parametrize(
    ("meter", "items", "expected"),
    [
        ("Ямб", IAMB, True),
        ("Хорей", IAMB, False),
        ("Хорей", TROCHEE, True),
        ("Амфибрахий", AMPHIBRACH, True),
        ("Анапест", AMPHIBRACH, False),
        ("Ямб", ["Мой дядя самых честных правил,\nКогда не в шутку занемог,"], False),  # strict: pyrrhic foot
        ("Ямб", ["Прогре́сс идёт вперёд"], True),
        ("Ямб", [], False),
        ("Ямб", [""], False),
    ],
)
def test_single_meter(meter, items, expected):
    assert passed(f"detect_russian_single_meter:{meter}", items) is expected


def test_single_meter_unknown_name_is_undecidable():
    assert passed("detect_russian_single_meter:Гекзаметр", IAMB) is None


@pytest.mark.parametrize(
    ("label", "items", "expected"),
    [
        ("detect_russian_time_expression_4th_case:2", ["Встретимся в понедельник. Во время войны было трудно."], True),
        ("detect_russian_time_expression_4th_case:2", ["Встретимся в понедельник. Он живёт в Москве."], False),
        ("detect_russian_time_expression_4th_case:1", ["Я позвоню в эту субботу.", "Мы гуляем в парке."], True),
        ("detect_russian_time_expression_4th_case:0", [""], True),
        ("detect_russian_time_expression_4th_case:1", [], False),
        ("detect_russian_time_expression_6th_case:3", ["В 1941 году, в начале лета, на этой неделе."], True),
        ("detect_russian_time_expression_6th_case:0", ["Мы заботимся об окружающей среде в Москве."], True),
        ("detect_russian_time_expression_6th_case:1", ["Он придёт в среду."], False),
    ],
)
def test_time_expressions(label, items, expected):
    assert passed(label, items) is expected


@pytest.mark.parametrize(
    ("label", "items", "ctx", "expected"),
    [
        ('detect_russian_evaluative_nouns_contextual:2:["ик"]', ["Там домик. Я вижу котик."], FIXED, True),
        ('detect_russian_evaluative_nouns_contextual:2:["ик"]', ["Там домик. Я вижу домик."], FIXED, False),
        ('detect_russian_evaluative_nouns_contextual:2:["ик"]', ["Праздник и памятник."], FIXED, False),
        ('detect_russian_evaluative_nouns_contextual:1:["ек"]', ["Я вижу орешек."], FIXED, True),
        ('detect_russian_evaluative_nouns_contextual:1:["ек"]', ["Я вижу денек."], FIXED, False),
        ('detect_russian_evaluative_nouns_contextual:4:["ок"]', ["Городок, дружок, лужок и звонок."], FIXED, True),
        ('detect_russian_evaluative_nouns_contextual:0:["еньк"]', ["Там стоит маменька."], FIXED, False),
        ('detect_russian_evaluative_nouns_contextual:0:["еньк"]', ["Там стоит маменька."], HEAD, True),
        ('detect_russian_evaluative_nouns_contextual:0:["еньк"]', [], FIXED, True),
        ('detect_russian_evaluative_nouns_contextual:2:["ик"]', [""], FIXED, False),
    ],
)
def test_evaluative_nouns(label, items, ctx, expected):
    assert passed(label, items, ctx) is expected


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["Время летит, а времена меняются."], True),
        (["Вода чистая, а воды океана глубоки."], False),  # воды is also a genitive singular
        (["Время летит.", "Время летит, а времена меняются."], False),
        ([], False),
    ],
)
def test_singular_plural_pairs(items, expected):
    assert passed("detect_russian_singular_plural_semantic_pairs:1", items) is expected


@pytest.mark.parametrize(
    ("items", "ctx", "expected"),
    [
        (["Листья, листы; осенью листья падают, а листы бумаги лежат."], FIXED, True),
        (["Листья, листы; осенью листья падают, а листы бумаги лежат."], HEAD, False),
        (["Листья; осенью листья падают.", "Зубы, зубья; у пилы острые зубья."], FIXED, False),
        ([], FIXED, False),
    ],
)
def test_multiple_plural_forms(items, ctx, expected):
    assert passed("detect_russian_multiple_plural_forms_enhanced:1", items, ctx) is expected


@pytest.mark.parametrize(
    ("label", "items", "ctx", "expected"),
    [
        ("check_russian_derived_words:писать:3", ["Я написал письмо, переписал его, позвал писателя."], FIXED, True),
        ("check_russian_derived_words:писать:3", ["Я написал письмо, переписал его, позвал писателя."], HEAD, False),
        ("check_russian_derived_words:писать:1", ["Нужно писать. Мы пишем и писали."], FIXED, False),
        ("check_russian_derived_words:идти:1", ["Он пришёл домой."], FIXED, True),
        ("check_russian_derived_words:читать:1", ["Нужно учитать всё."], FIXED, False),  # not a word
        ("check_russian_derived_words:читать:1", [], FIXED, False),
    ],
)
def test_derived_words(label, items, ctx, expected):
    assert passed(label, items, ctx) is expected


@pytest.mark.parametrize(
    ("label", "items", "ctx", "expected"),
    [
        ("check_russian_gender_agreement:покупка:1", ["Покупка пришла быстро и порадовала меня."], FIXED, True),
        ("check_russian_gender_agreement:покупка:1", ["Покупка пришла быстро и порадовала меня."], HEAD, False),
        ("check_russian_gender_agreement:покупка:1", ["Покупка, которую я сделал, оказалась удачной."], FIXED, True),
        ("check_russian_gender_agreement:покупка:1", ["Покупка пришёл быстро."], FIXED, False),
        ("check_russian_gender_agreement:качество:1", ["Качество нам нравится."], FIXED, False),  # no past verb
        ("check_russian_gender_agreement:качество:1", ["Качество удивило всех.", "Я оценил качество."], FIXED, True),
        ("check_russian_gender_agreement:кофе:1", ["Кофе был горячим."], FIXED, True),
        ("check_russian_gender_agreement:кофе:1", [], FIXED, False),
    ],
)
def test_gender_agreement(label, items, ctx, expected):
    assert passed(label, items, ctx) is expected


@pytest.mark.parametrize(
    ("items", "ctx", "expected"),
    [
        (["Он читал книгу весь вечер, попивая горячий чай."], FIXED, True),
        (["Он читал книгу весь вечер, попивая горячий чай."], HEAD, False),
        (["Выпив чаю, он читал книгу."], FIXED, False),  # the gerund does not close the sentence
        (["Человек, пьющий чай, и мальчик, читающий книгу."], FIXED, False),  # participles
        (["Я буду пить и читать."], FIXED, False),
        ([], FIXED, False),
    ],
)
def test_participle_usage(items, ctx, expected):
    assert passed("check_russian_participle_usage:пить:читать", items, ctx) is expected


@pytest.mark.parametrize(
    ("items", "ctx", "expected"),
    [
        (["Он пил чай и читал.", "Вернувшись, он слушал музыку."], FIXED, False),  # 2nd lacks пить
        (["Он пьёт и читает каждый день.", "Выпив чаю, он прочитал письмо."], FIXED, True),
        (["Он пьёт и читает каждый день."], HEAD, False),
        (["Он пьёт каждый день."], FIXED, False),
        ([], FIXED, False),
    ],
)
def test_keyword_inflections(items, ctx, expected):
    assert passed('check_keyword_inflections_each:["пить", "читать"]', items, ctx) is expected


@pytest.mark.parametrize(
    ("relation", "items", "ctx", "expected"),
    [
        ("Хронологическая последовательность", ["Он пришёл, поел и ушёл."], FIXED, True),
        ("Хронологическая последовательность", ["Прочитав письмо, он выпил чай."], FIXED, True),
        ("Хронологическая последовательность", ["Он читал, а она писала."], FIXED, False),
        ("Хронологическая последовательность", ["Он пришёл, поел и ушёл."], HEAD, False),
        ("Одновременные отношения", ["Он читал книгу, попивая чай."], FIXED, True),
        ("Одновременные отношения", ["Хорошая погода."], FIXED, False),
        ("Одновременные отношения", [], FIXED, False),
    ],
)
def test_temporal_relation(relation, items, ctx, expected):
    assert passed(f"check_russian_verb_temporal_relation:{relation}", items, ctx) is expected


def test_temporal_relation_unknown_is_undecidable():
    assert passed("check_russian_verb_temporal_relation:Причина", ["Он пришёл."]) is None


@pytest.mark.parametrize(
    ("label", "items", "ctx", "expected"),
    [
        ("russian_adjective_type_count:short:3", ["Я готов. Он красив.", "Она рада. Мы читаем книги."], FIXED, True),
        ("russian_adjective_type_count:short:3", ["Я готов. Он красив.", "Она рада. Мы читаем книги."], HEAD, False),
        ("russian_adjective_type_count:short:2", ["Я готов. Всё хорошо."], FIXED, False),  # хорошо is an adverb
        ("russian_adjective_type_count:long:2", ["Это красивый дом и первый снег. Этот мост старый."], FIXED, True),
        ("russian_adjective_type_count:long:0", [""], FIXED, True),
        ("russian_adjective_type_count:short:1", [], FIXED, False),
    ],
)
def test_adjective_type_count(label, items, ctx, expected):
    assert passed(label, items, ctx) is expected


@pytest.mark.parametrize(
    "label",
    [
        "rus_stress_homonym_usage:замок",
        "detect_russian_evaluative_nouns_contextual:2",
        "russian_adjective_type_count:medium:3",
        "check_russian_participle_usage:пить",
    ],
)
def test_bad_parameters_are_undecidable(label):
    assert passed(label, ["Текст."]) is None

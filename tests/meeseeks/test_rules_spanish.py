"""Hand-made cases for the Spanish grammar and format rules."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule


def verdict(label: str, items, compat: str = "fixed") -> bool | None:
    return evaluate_rule(label, items, RuleContext(language="es", compat=compat), "latin").passed


CASES = [
    # dates
    ("has_correct_spanish_date_format:0", ["Nació el 15/03/2024 y el 5 de mayo de 2020."], True),
    ("has_correct_spanish_date_format:0", ["La cita es el 2023-12-01."], False),
    ("has_correct_spanish_date_format:0", ["El 13/25/2020."], False),
    ("has_correct_spanish_date_format:0", ["Llegó el 03/15/2024."], True),  # ignored, as the reference
    ("has_correct_spanish_date_format:0", ["Llegó mayo 5, 2020."], False),
    ("has_correct_spanish_date_format:1", ["La cita es el 2023-12-01."], True),
    ("has_correct_spanish_date_format:0", [], True),
    # numbers
    ("has_correct_spanish_number_format:0", ["Cuesta 1.000,50 euros y hay 2.345 personas."], True),
    ("has_correct_spanish_number_format:0", ["Cuesta 1,000.50 euros."], False),
    ("has_correct_spanish_number_format:0", ["Son 1,000,000 de personas."], False),
    ("has_correct_spanish_number_format:0", ["Mide 3.5 metros y hay 2,345 personas."], True),
    ("has_correct_spanish_number_format:0", [""], True),
    # currency
    ("has_correct_spanish_currency_format:0", ["Pagué 100,50 € y 3 $."], True),
    ("has_correct_spanish_currency_format:0", ["Pagué 100,50€."], False),
    ("has_correct_spanish_currency_format:0", ["Cuesta €25."], False),
    ("has_correct_spanish_currency_format:0", ["Hace sol hoy."], True),
    # phones
    ("has_correct_spanish_phone_format:0", ["Llama al +34 912 345 678 o al 91 234 56 78."], True),
    ("has_correct_spanish_phone_format:0", ["Mi móvil es 612345678."], False),
    ("has_correct_spanish_phone_format:0", ["Llama al 912-345-678."], False),
    ("has_correct_spanish_phone_format:0", ["Hay 800.000.000 habitantes y el 612 345 678."], True),
    ("has_correct_spanish_phone_format:0", ["Teléfono: 91 23 45 67 8."], False),  # nothing recognised
    ("has_correct_spanish_phone_format:0", [], False),
    # ordinals
    ("has_correct_spanish_ordinal_format:0", ["Vivo en el 1.º piso; es la 2.ª vez."], True),
    ("has_correct_spanish_ordinal_format:0", ["Quedó 3.º y luego 3o."], False),
    ("has_correct_spanish_ordinal_format:0", ["Es la 2da vez y el 1.º piso."], False),
    ("has_correct_spanish_ordinal_format:0", ["Vivo en el 1º piso."], False),  # nothing recognised
    ("has_correct_spanish_ordinal_format:1", ["Hace sol hoy."], True),
    ("has_correct_spanish_ordinal_format:0", [], False),
    # question accents
    ("has_correct_spanish_question_accents:0", ["¿Dónde está? ¿De dónde eres? ¿Por qué no vienes?"], True),
    ("has_correct_spanish_question_accents:0", ["¿Que quieres?"], False),
    ("has_correct_spanish_question_accents:0", ["¿De donde eres?"], False),
    ("has_correct_spanish_question_accents:0", ["¿Porque lloras?"], False),
    ("has_correct_spanish_question_accents:0", ["¿Vienes mañana? Donde vivo hace frío."], True),
    ("has_correct_spanish_question_accents:0", [], True),
    # time articles
    ("has_correct_spanish_time_articles:0", ["Abre a las nueve de la mañana y cierra a la una."], True),
    ("has_correct_spanish_time_articles:0", ["Abre a la dos."], False),
    ("has_correct_spanish_time_articles:0", ["Cierra a las una en punto."], False),
    ("has_correct_spanish_time_articles:0", ["Abre desde los 8 horas."], False),
    ("has_correct_spanish_time_articles:0", ["Uno de los dos llegó; abre a las 10:00 y a la 1:30."], True),
    ("has_correct_spanish_time_articles:0", ["El estudio de la 3.ª planta."], True),
    # article agreement
    (
        "has_correct_spanish_article_gender_agreement:0",
        ["Los peces viven en el mismo mar. Las personas son diferentes. El agua y el problema."],
        True,
    ),
    ("has_correct_spanish_article_gender_agreement:0", ["La problema es grave."], False),
    ("has_correct_spanish_article_gender_agreement:0", ["Las peces nadan."], False),
    ("has_correct_spanish_article_gender_agreement:0", ["La emociones son fuertes."], False),
    ("has_correct_spanish_article_gender_agreement:0", ["Los cuento mañana. Los lunes y la crisis."], True),
    ("has_correct_spanish_article_gender_agreement:1", ["El ciudad es bonita."], True),
    # ningún agreement
    ("has_correct_spanish_ningun_agreement:0", ["No tengo ningún libro ni ninguna casa. Ningún niño llora."], True),
    ("has_correct_spanish_ningun_agreement:0", ["No tengo ningún casa."], False),
    ("has_correct_spanish_ningun_agreement:0", ["No hay ninguna problema."], False),
    ("has_correct_spanish_ningun_agreement:0", ["No queda ningún arma."], True),
    ("has_correct_spanish_ningun_agreement:0", [""], True),
    ("has_correct_spanish_ningun_agreement:0", [], False),
    # date names
    ("has_correct_spanish_date_names_case:0", ["Nos vemos el lunes 5 de marzo. Viernes: cerrado."], True),
    ("has_correct_spanish_date_names_case:0", ["Nos vemos el Lunes 5 de Marzo."], False),
    ("has_correct_spanish_date_names_case:0", ["El Viernes Santo es festivo."], True),
    ("has_correct_spanish_date_names_case:0", [], True),
    # compounds
    (
        "has_correct_compound_hyphen_usage:0",
        ["Un estudio físico-químico del tratamiento antiinflamatorio y anti-OTAN."],
        True,
    ),
    ("has_correct_compound_hyphen_usage:0", ["El tratamiento anti-inflamatorio."], False),
    ("has_correct_compound_hyphen_usage:0", ["El período post operatorio."], False),
    ("has_correct_compound_hyphen_usage:1", ["Un riesgo cardio-vascular."], True),
    # abbreviation format
    ("has_correct_abbreviation_format_only:0", ["La ONU, la OMS, el Sr. Pérez, EE. UU., S.A., etc."], True),
    ("has_correct_abbreviation_format_only:0", ["La O.N.U. anunció."], False),
    ("has_correct_abbreviation_format_only:0", ["Las ONGs ayudan."], False),
    ("has_correct_abbreviation_format_only:0", ["Habló el Sr Pérez."], False),
    ("has_correct_abbreviation_format_only:0", ["Vive en EEUU."], False),
    ("has_correct_abbreviation_format_only:0", ["Lo escribió J.K. Rowling en el archivo.pdf."], True),
    # address
    ("has_correct_spanish_address_format:0", ["Vivo en la calle Mayor, 15, 3.º B, 28013 Madrid."], True),
    ("has_correct_spanish_address_format:0", ["Entrega en C/ Alcalá, 45, 2.º izq."], True),
    ("has_correct_spanish_address_format:0", ["Vivo en Avda de la Constitución, 24."], False),
    ("has_correct_spanish_address_format:0", ["Vivo en la calle Mayor #15."], False),
    ("has_correct_spanish_address_format:0", ["Vivo en la calle Mayor, 15, 3o piso."], False),
    ("has_correct_spanish_address_format:0", ["La calle está vacía."], False),  # no address
    # subject omission
    (
        "has_correct_subject_omission_with_verb_conjugation:0",
        ["Me encantó. Para mí, el final es perfecto; lo vi con ella."],
        True,
    ),
    ("has_correct_subject_omission_with_verb_conjugation:0", ["Yo creo que actúa bien."], False),
    ("has_correct_subject_omission_with_verb_conjugation:1", ["Yo voy.", "Estudio."], True),
    ("has_correct_subject_omission_with_verb_conjugation:0", [], True),
    # abbreviation count
    ("has_spanish_abbreviation_count:3", ["La ONU y el Sr. Ruiz en EE. UU."], True),
    ("has_spanish_abbreviation_count:3", ["La ONU y la ONU con el Sr. Ruiz."], False),  # distinct forms
    ("has_spanish_abbreviation_count:1", ["En el siglo XXI vive en EEUU."], False),
    ("has_spanish_abbreviation_count:2", [], False),
    # ningún sentences
    ("has_spanish_ningun_sentences:[2,2]", ["No tengo ningún libro. Ninguna casa. Hace sol."], True),
    ("has_spanish_ningun_sentences:[2,2]", ["No tengo ningún libro.", "No hay ninguna casa. No vi a ninguna."], False),
    ("has_spanish_ningun_sentences:[1,5]", [""], False),
    ("has_spanish_ningun_sentences:[0,5]", [], False),
    # double negatives
    ("has_correct_total_double_negatives:[2,999]", ["No tengo nada.", "No me dijo nada."], True),
    ("has_correct_total_double_negatives:[2,999]", ["No lo he visto nunca. No vino nadie."], True),
    ("has_correct_total_double_negatives:[2,999]", ["Nunca digo nada. No fui a ningún sitio. No vino nadie."], False),
    ("has_correct_total_double_negatives:[1,999]", [], False),
    # source keywords with articles
    ("has_spanish_keywords_with_articles:[3,1000]", ["Las palabras, el corazón y las estrellas del cielo."], True),
    ("has_spanish_keywords_with_articles:[3,1000]", ["La palabra, los corazón y estrellas."], False),
    ("has_spanish_keywords_with_articles:[2,1000]", ["El papel y el papel."], False),  # distinct nouns
    ("has_spanish_keywords_with_articles:[1,1000]", ["El hogar.", "Hace sol."], False),  # every item
    ("has_spanish_keywords_with_articles:[1,1000]", [""], False),
]


@pytest.mark.parametrize(("label", "items", "expected"), CASES)
def test_spanish_rules(label: str, items: list[str], expected: bool) -> None:
    assert verdict(label, items) is expected


@pytest.mark.parametrize(
    "label",
    [
        "has_correct_abbreviation_format_only:0",
        "has_correct_compound_hyphen_usage:0",
        "has_correct_spanish_address_format:0",
        "has_correct_spanish_date_names_case:0",
        "has_spanish_abbreviation_count:1",
    ],
)
def test_head_reproduces_reference_crash(label: str) -> None:
    good = {
        "has_correct_spanish_address_format:0": "Vivo en la calle Mayor, 15.",
        "has_spanish_abbreviation_count:1": "La ONU.",
    }.get(label, "Hace sol hoy.")
    assert verdict(label, [good]) is True
    assert verdict(label, [good], compat="head") is False
    assert verdict(label, [""], compat="head") is False


def test_head_keeps_empty_list_verdicts() -> None:
    assert verdict("has_correct_spanish_date_names_case:0", [], compat="head") is True
    assert verdict("has_spanish_abbreviation_count:3", [], compat="head") is False


def test_failure_message_names_the_error() -> None:
    v = evaluate_rule("has_correct_spanish_currency_format:0", ["Cuesta €25."], RuleContext(language="es"), "latin")
    assert "'€25' → '25 €'" in v.reason


@pytest.mark.parametrize(
    ("items", "fixed", "head"),
    [
        (["La libro está aquí."], False, False),
        (["LA LIBRO"], False, False),
        (["El agua está fría."], True, False),  # el agua: stressed a- takes el
        (["La agua está fría."], False, True),
        (["El alma es eterna.", "La alma es eterna."], False, False),
        (["Ella la trabajo cada día."], True, False),  # la after a subject pronoun is an object pronoun
        (["Los cuento mañana."], True, False),
        (["La deseo mucho."], True, False),  # head guesses -o words masculine
        (["Ella la cuida."], True, True),
    ],
)
def test_article_gender_agreement_default_and_head(items, fixed, head):
    label = "has_correct_spanish_article_gender_agreement:0"
    assert evaluate_rule(label, items, RuleContext(language="es"), "latin").passed is fixed
    assert evaluate_rule(label, items, RuleContext(language="es", compat="head"), "latin").passed is head

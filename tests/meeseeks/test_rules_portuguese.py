"""Portuguese grammar and format rules."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.rules import portuguese
from proseval.benchmarks.meeseeks.rules.base import RuleContext

FIXED = RuleContext(language="pt")
HEAD = RuleContext(language="pt", compat="head")


def run(label: str, items, ctx: RuleContext = FIXED) -> bool | None:
    spec = max((s for s in portuguese.RULES if s.matches(label)), key=lambda s: len(s.prefix))
    return spec.check(spec.parse(label), items, ctx).passed


def test_double_negations():
    found = portuguese.double_negations(
        "Não vi ninguém. Ele nunca disse nada. Não, não quero nada. Nem ele nem ela. O gato dorme."
    )
    assert found == ["não...ninguém", "nunca...nada"]


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["Não vi ninguém. Ele nunca disse nada."], True),
        (["Não vi ninguém. O gato dorme."], False),
        (["Não vi ninguém. Ele nunca disse nada.", "Não comeu nada."], False),
        ([""], False),
        ([], True),
    ],
)
def test_double_negation_rule(items, expected):
    assert run("portuguese_double_negation:[2,2]", items) is expected


def test_spelled_numbers():
    found = portuguese.spelled_numbers("Tenho vinte e cinco anos, dois mil e vinte e quatro, um cão, mil e cem.")
    assert found == ["vinte e cinco", "dois mil e vinte e quatro", "mil e cem"]
    assert run("portuguese_number_spelling:[2,2]", ["Ela tem doze anos. Comprei três livros."]) is True
    assert run("portuguese_number_spelling:[2,2]", ["Ela tem doze anos.", "Comprei 3 livros."]) is False
    assert run("portuguese_number_spelling:[1,1]", [""]) is False


def test_ordinal_abbreviations_agree_in_gender():
    found = portuguese.ordinal_abbreviations(
        "Art. 4.º da lei; o 1.º dia; a 2.ª edição; o 3.º andar; o 2.ª lugar; a 7.º classe; 5º andar"
    )
    assert found == ["1.º dia", "2.ª edição", "3.º andar"]


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["Ficou em 1.º lugar. É a 2.ª vez."], True),
        (["Ficou em 1.º lugar. Leia o Art. 4.º da lei."], False),
        ([""], False),
        ([], True),
    ],
)
def test_ordinal_rule(items, expected):
    assert run("portuguese_ordinal_abbreviation:[2,2]", items) is expected


def test_ordinal_label_is_parsed_not_evaluated():
    spec = portuguese.RULES[2]
    assert spec.parse("portuguese_ordinal_abbreviation:[3,3]") == (3.0, 3.0)


def test_euro_amounts():
    found = portuguese.euro_amounts("Custa 25 €, 1.250,50 €, 1250 €, €30, 30€, 12,5 €")
    assert found == ["25 €", "1.250,50 €", "1250 €"]


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["O livro custa 25 €. A conta deu 1.250,00 €."], True),
        (["O livro custa 25 €. A conta deu €1250."], False),
        (["O livro custa 25 €. A conta deu 1.250 €.", "Custa 3 €."], False),
        ([], False),
    ],
)
def test_euro_format(items, expected):
    assert run("portuguese_euro_format:[2,2]", items) is expected


def test_euro_format_head_never_matches():
    assert run("portuguese_euro_format:[2,2]", ["O livro custa 25 €. A conta deu 1.250,00 €."], HEAD) is False


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["A reunião será em 15 de julho de 2023."], True),
        (["Foi no primeiro de junho de dois mil e vinte."], True),
        (["Sem data aqui."], True),
        ([], True),
        (["Em 2023 de julho de 15 houve festa."], False),
        (["A reunião será em julho de 15 de 2023."], False),
    ],
)
def test_date_format(items, expected):
    assert run("portuguese_date_format", items) is expected


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["Não. Eu não posso ir."], True),
        (["  Não, obrigado."], True),
        (["Não posso ir."], False),
        (["Nao, obrigado."], False),
        (["não, obrigado."], False),
        (["Não, obrigado.", "Sim."], False),
        ([""], False),
        ([], False),
    ],
)
def test_starts_with_nao(items, expected):
    assert run("portuguese_starts_with_nao", items) is expected


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["R. Augusta, n.º 25, 2.º Esq., Lisboa"], True),
        (["Av. da Liberdade n.º 110", "Trav. do Carmo, n.º 3"], True),
        (["Rod. Anhanguera, n.º 200"], True),
        (["Av. da Liberdade n.º 110", "Trav. do Carmo, nº 3"], False),  # only n.º is the abbreviation
        (["Av. Paulista, n° 1000"], False),
        (["Av. Paulista, N.º 1000"], False),
        (["Av Paulista, n.º 1000"], False),  # street type without its point
        (["Rua Augusta, n.º 25"], False),
        (["R. Augusta 25"], False),
        (["Av. da Liberdade n.º 110", "Rua do Carmo 3"], False),
        ([], False),
    ],
)
def test_address_abbreviation(items, expected):
    assert run("portuguese_address_abbreviation", items) is expected


def test_address_street_type_inside_an_upper_case_word_fails_only_in_head():
    items = ["Av. MAR AZUL, n.º 10"]
    assert run("portuguese_address_abbreviation", items) is True
    assert run("portuguese_address_abbreviation", items, HEAD) is False

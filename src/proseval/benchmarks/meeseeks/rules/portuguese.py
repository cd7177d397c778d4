"""Portuguese grammar and format rules: double negation, spelled numbers, ordinals, money, dates, addresses."""

from __future__ import annotations

import re

from .base import RuleContext, Verdict
from .european import per_item_range
from .params import range_param
from .spec import Items, no_params, rule
from .wordlists import word_list

Range = tuple[float, float]
_WORD = r"[^\W\d_]+"

NEGATORS = frozenset("não nunca jamais nada nenhum nenhuma nenhuns nenhumas ninguém nem tampouco".split())


def double_negations(item: str) -> list[str]:
    """Sentences holding exactly two negators (não … nada, nunca … ninguém), as ``x...y``."""
    found = []
    for sentence in re.split(r"[.!?;\n]+", item):
        negs = [w for w in re.findall(_WORD, sentence.lower()) if w in NEGATORS]
        if len(negs) == 2 and negs != ["nem", "nem"]:  # nem … nem is a correlative, not a double negation
            found.append("...".join(negs))
    return found


_UNITS = word_list("portuguese/number_words")
# "um"/"uma" are left out: they are mostly the indefinite article.
_NUMBER_WORD = "(?:" + "|".join(sorted(_UNITS, key=len, reverse=True)) + ")"
_SPELLED_NUMBER = re.compile(
    rf"(?<![^\W\d_]){_NUMBER_WORD}(?:(?:\s+e\s+|\s+)(?:{_NUMBER_WORD}|um|uma))*(?![^\W\d_])", re.IGNORECASE
)


def spelled_numbers(item: str) -> list[str]:
    """Numbers written in words; a compound (vinte e cinco, mil e duzentos) counts once."""
    return _SPELLED_NUMBER.findall(item)


# Ordinal abbreviations 1.º / 2.ª whose gender agrees with the following noun.
_ORDINAL = re.compile(r"(?<!\d)(\d+)\.([ºª])\s+(" + _WORD + ")")
FUNCTION_WORDS = frozenset(word_list("portuguese/function_words"))
MASCULINE_IN_A = frozenset(
    "dia mapa problema sistema tema programa clima planeta idioma poema drama esquema diploma "
    "cinema telefonema dilema lema panorama".split()
)
FEMININE_NOUNS = frozenset("vez noite tarde parte classe fase série mão edição lei cidade secção".split())
_FEMININE_END = ("ção", "são", "dade", "tude", "gem", "ie", "ez")
_MASCULINE_END = ("o", "or", "ar", "er", "ento", "mento", "ês", "al", "il")


def noun_gender(word: str) -> str | None:
    """``m``/``f`` from common endings; ``None`` when unknown (then either indicator is accepted)."""
    w = word.lower()
    if w in FEMININE_NOUNS or (w.endswith("a") and w not in MASCULINE_IN_A) or w.endswith(_FEMININE_END):
        return "f"
    if w in MASCULINE_IN_A or w.endswith(_MASCULINE_END):
        return "m"
    return None


def ordinal_abbreviations(item: str) -> list[str]:
    """``N.º``/``N.ª`` + noun agreeing in gender (``1.º lugar``, ``2.ª vez``); ``4.º da`` is no match."""
    found = []
    for m in _ORDINAL.finditer(item):
        noun = m.group(3)
        gender = noun_gender(noun)
        if noun.lower() in FUNCTION_WORDS or gender == {"º": "f", "ª": "m"}[m.group(2)]:
            continue
        found.append(m.group(0))
    return found


# Euro amounts in the Portuguese way: digits (1.250 or 100,50), one space, €.
_EURO = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})*(?:,\d{2})?[ \u00a0]€|(?<![\d.,])\d+(?:,\d{2})?[ \u00a0]€")


def euro_amounts(item: str) -> list[str]:
    return _EURO.findall(item)


_check_euro = per_item_range(euro_amounts, "euro amounts written as '25 €' / '1.250,50 €'", empty_passes=False)


def check_euro_format(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    """``head``: the reference never finds an amount (the check always fails)."""
    if ctx.compat == "head":
        return Verdict.fail("no euro amount recognised (reference behaviour reproduced under compat=head)")
    return _check_euro(bounds, items, ctx)


MONTHS = "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro".split()
_MONTH = "(?:" + "|".join(MONTHS) + ")"
_DAY_WORDS = (
    r"(?:primeiro|dois|três|quatro|cinco|seis|sete|oito|nove|dez|onze|doze|treze|catorze|quatorze|quinze|"
    r"dezasseis|dezesseis|dezassete|dezessete|dezoito|dezanove|dezenove|vinte(?: e \w+)?|trinta(?: e um)?)"
)
_DAY = rf"(?:[0-3]?\d|{_DAY_WORDS})"
_YEAR = r"(?:\d{4}|(?:dois )?mil(?:(?: e)? [^\W\d_]+)*)"
_GOOD_DATE = re.compile(rf"\b{_DAY}\s+de\s+{_MONTH}(?:\s+de\s+{_YEAR}\b)?", re.IGNORECASE)
_BAD_DATE = re.compile(
    rf"\b\d{{4}}\s+de\s+{_MONTH}\s+de\s+[0-3]?\d\b|\b{_MONTH}\s+de\s+[0-3]?\d\s+de\s+\d{{4}}\b", re.IGNORECASE
)


def check_date_format(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """Dates written with ``de`` follow day-de-month-de-year; no such date → nothing to check."""
    joined = "\n".join(items)
    bad = [m.group(0) for m in _BAD_DATE.finditer(joined)]
    if bad:
        return Verdict.fail(f"dates not in day-de-month-de-year order: {bad[:5]}")
    good = [m.group(0) for m in _GOOD_DATE.finditer(joined)]
    return Verdict.ok(f"{len(good)} dates in day-de-month-de-year order {good[:5]}" if good else "no date to check")


_STARTS_WITH_NAO = re.compile(r"Não[.,]")


def check_starts_with_nao(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """Every item opens with a stand-alone ``Não`` followed by a period or a comma."""
    if not items:
        return Verdict.fail("nothing was extracted")
    bad = [i for i, item in enumerate(items, 1) if not _STARTS_WITH_NAO.match(item.strip())]
    reason = f"items not starting with 'Não.' / 'Não,': {bad}" if bad else "every item starts with 'Não'"
    return Verdict.of(not bad, reason)


# Street-type abbreviations of Portuguese addresses and the number abbreviation n.º.
STREET_TYPES = word_list("portuguese/street_types")
_TYPES = "|".join(sorted(STREET_TYPES, key=len, reverse=True))
_STREET = re.compile(rf"(?<![^\W\d_])(?:{_TYPES})\.(?=\s)")
_STREET_NO_DOT = re.compile(rf"(?<![^\W\d_])({_TYPES})(?=\s)")
_NUMBER_ABBR = "n.º"


def undotted_street_types(item: str, compat: str) -> list[str]:
    """Street-type abbreviations written without their point.

    ``head`` reproduces the reference's substring test, which also finds ``R `` inside an
    upper-case word (``MAR AZUL``).
    """
    if compat == "head":
        return [t for t in STREET_TYPES if f"{t} " in item]
    return _STREET_NO_DOT.findall(item)


def address_problems(item: str, compat: str) -> list[str]:
    """What is wrong with one address: street abbreviation and ``n.º`` (exactly so written)."""
    problems = []
    if undotted := undotted_street_types(item, compat):
        problems.append(f"street abbreviation without a point: {undotted}")
    elif not _STREET.search(item):
        problems.append("no street abbreviation (R., Av., Trav.…)")
    if _NUMBER_ABBR not in item:
        problems.append("no 'n.º' number abbreviation")
    return problems


def check_address_abbreviation(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """Every item holds an abbreviated street type (R., Av., Trav., Lg., Pç. …) and ``n.º``."""
    if not items:
        return Verdict.fail("nothing was extracted")
    for i, item in enumerate(items, 1):
        if problems := address_problems(item, ctx.compat):
            return Verdict.fail(f"item {i}: {'; '.join(problems)}: {item[:80]!r}")
    return Verdict.ok("every address uses a street abbreviation and n.º")


RULES = [
    rule("portuguese_double_negation", range_param, per_item_range(double_negations, "double negations")),
    rule("portuguese_number_spelling", range_param, per_item_range(spelled_numbers, "spelled-out numbers")),
    rule(
        "portuguese_ordinal_abbreviation",
        range_param,
        per_item_range(ordinal_abbreviations, "ordinal abbreviations (1.º lugar, 2.ª vez)"),
    ),
    rule("portuguese_euro_format", range_param, check_euro_format),
    rule("portuguese_date_format", no_params, check_date_format),
    rule("portuguese_starts_with_nao", no_params, check_starts_with_nao),
    rule("portuguese_address_abbreviation", no_params, check_address_abbreviation),
]

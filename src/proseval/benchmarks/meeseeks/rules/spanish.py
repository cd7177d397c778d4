"""Spanish grammar and format rules (dates, numbers, money, phones, ordinals, accents, agreement).

Most families are ``…:<max_errors>``: every item is scanned for correct forms and for errors,
and the rule passes when the errors over all items are at most ``max_errors``. Lexicons and
regexes are this project's own; verdicts follow the reference's observed behaviour.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable

from .base import RuleContext, Verdict
from .compat import crashes_under_head
from .params import int_after_colon, range_param
from .spec import Items, rule
from .wordlists import word_list

Range = tuple[float, float]
Found = tuple[list[str], list[str]]
"""Correct forms and error descriptions found in one text."""
Finder = Callable[[str], Found]

_WORD = r"[^\W\d_]+"


def _plain(word: str) -> str:
    """Lower case without acute accents and diaeresis (ñ kept)."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return unicodedata.normalize("NFC", re.sub("[\u0301\u0308]", "", decomposed))


def _listing(values: list[str], limit: int = 8) -> str:
    shown = "; ".join(values[:limit])
    return shown + (f" … (+{len(values) - limit} more)" if len(values) > limit else "")


def error_budget_checker(find: Finder, what: str, *, require: str | None = None, empty_fails: bool = False):
    """At most ``max_errors`` errors over all items.

    ``require`` (a message) makes "nothing relevant found at all" one error, as the reference
    does for phone numbers and ordinals; ``empty_fails`` fails an empty list outright.
    """

    def check(max_errors: int, items: Items, ctx: RuleContext) -> Verdict:
        if empty_fails and not items:
            return Verdict.fail("nothing was extracted")
        correct: list[str] = []
        errors: list[str] = []
        for item in items:
            c, e = find(item)
            correct += c
            errors += e
        if require and not correct and not errors:
            errors.append(require)
        found = f"{len(correct)} correct {what}" + (f" ({_listing(correct)})" if correct else "")
        if len(errors) > max_errors:
            return Verdict.fail(
                f"{len(errors)} {what} errors, at most {max_errors} allowed: {_listing(errors)}; {found}"
            )
        return Verdict.ok(f"{len(errors)} {what} errors (at most {max_errors} allowed); {found}")

    return check


# ``head``: the reference raises NameError (an undefined text cleaner) on any non-empty list.
crashes_in_head = crashes_under_head(
    "the reference checker raises NameError on non-empty input (scored 0)", on_empty=False
)


# --- dates -------------------------------------------------------------------------------

MONTHS = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "setiembre",
    "octubre",
    "noviembre",
    "diciembre",
)
WEEKDAYS = ("lunes", "martes", "miércoles", "miercoles", "jueves", "viernes", "sábado", "sabado", "domingo")
_MONTH = "(?:" + "|".join(MONTHS) + ")"
_SLASH_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])")
_ISO_DATE = re.compile(r"(?<![\d-])(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?![\d-])")
_LONG_DATE = re.compile(rf"\b\d{{1,2}} de {_MONTH} (?:de|del) \d{{4}}\b", re.IGNORECASE)
_ENGLISH_LONG_DATE = re.compile(rf"\b({_MONTH}) (\d{{1,2}}),? (\d{{4}})\b", re.IGNORECASE)


def find_dates(item: str) -> Found:
    """DD/MM/YYYY and "D de mes de YYYY" are correct; ISO order and month-first forms are errors.

    A slash date is an error only when its first number cannot be a month (> 12), as the
    reference does; 03/15/2024 is ignored.
    """
    correct, errors = [], []
    for m in _SLASH_DATE.finditer(item):
        day, month, _ = (int(g) for g in m.groups())
        if 1 <= day <= 31 and 1 <= month <= 12:
            correct.append(m.group(0))
        elif day > 12:
            errors.append(f"'{m.group(0)}' → '{m.group(2)}/{m.group(1)}/{m.group(3)}' (month first: use DD/MM/YYYY)")
    for m in _ISO_DATE.finditer(item):
        iso_year, iso_month, iso_day = m.groups()
        errors.append(
            f"'{m.group(0)}' → '{int(iso_day):02d}/{int(iso_month):02d}/{iso_year}' (year first: use DD/MM/YYYY)"
        )
    correct += [m.group(0) for m in _LONG_DATE.finditer(item)]
    for m in _ENGLISH_LONG_DATE.finditer(item):
        errors.append(f"'{m.group(0)}' → '{m.group(2)} de {m.group(1).lower()} de {m.group(3)}' (English order)")
    return correct, errors


_DATE_NAME = re.compile(r"\b(" + "|".join(MONTHS + WEEKDAYS) + r")\b", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?¿¡…:;\n\"“«(—-])\s*$")
_HOLIDAY_NEXT = re.compile(r"\s+(?:Sant[oa]|de\s+(?:Ceniza|Ramos|Pascua|Resurrección|Dolores))\b")


def find_date_names(item: str) -> Found:
    """Month and weekday names are written in lower case except at the start of a sentence."""
    correct, errors = [], []
    for m in _DATE_NAME.finditer(item):
        word = m.group(0)
        sentence_start = _SENTENCE_START.search(item[: m.start()]) or _HOLIDAY_NEXT.match(item, m.end())
        if word.islower() or word.isupper() or sentence_start:
            correct.append(word)
        else:
            errors.append(f"'{word}' → '{word.lower()}' (month and weekday names are lower case)")
    return correct, errors


# --- numbers, money, phones, ordinals ----------------------------------------------------

_NUMBER = re.compile(r"(?<![\d.,])\d[\d.,]*\d(?!\d)")
_ENGLISH_DECIMAL = re.compile(r"\d{1,3}(?:,\d{3})+\.\d+")
_ENGLISH_MILLIONS = re.compile(r"\d{1,3}(?:,\d{3}){2,}")
_SPANISH_GROUPED = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+,\d{3}")


def _to_spanish(number: str) -> str:
    return number.replace(",", "\0").replace(".", ",").replace("\0", ".")


def find_numbers(item: str) -> Found:
    """Comma thousands with a decimal point (1,000.50) or several comma groups are English forms."""
    correct, errors = [], []
    for m in _NUMBER.finditer(item):
        number = m.group(0)
        if _ENGLISH_DECIMAL.fullmatch(number) or _ENGLISH_MILLIONS.fullmatch(number):
            errors.append(
                f"'{number}' → '{_to_spanish(number)}' (English format: comma for thousands, point for decimals)"
            )
        elif _SPANISH_GROUPED.fullmatch(number):
            correct.append(number)
    return correct, errors


_CURRENCY = "€$£¥"
_AMOUNT = r"\d+(?:[.,]\d+)*"
_MONEY_CORRECT = re.compile(rf"(?<![\d.,{_CURRENCY}])({_AMOUNT})[ \u00a0\u202f]([{_CURRENCY}])")
_MONEY_ATTACHED = re.compile(rf"(?<![\d.,{_CURRENCY}])({_AMOUNT})([{_CURRENCY}])")
_MONEY_BEFORE = re.compile(rf"([{_CURRENCY}])\s?({_AMOUNT})")


def find_currency(item: str) -> Found:
    """Amounts are written ``25 €``: symbol after the number, separated by a space."""
    correct = [f"{m.group(1)} {m.group(2)}" for m in _MONEY_CORRECT.finditer(item)]
    errors = [
        f"'{m.group(0)}' → '{m.group(1)} {m.group(2)}' (missing space before the currency symbol)"
        for m in _MONEY_ATTACHED.finditer(item)
    ]
    errors += [
        f"'{m.group(0)}' → '{m.group(2)} {m.group(1)}' (currency symbol must follow the number)"
        for m in _MONEY_BEFORE.finditer(item)
    ]
    return correct, errors


_PREFIX_34 = r"(?:(?:\+|00)34[ \u00a0]?)?"
_PHONE_OK = re.compile(
    rf"(?<![\d+]){_PREFIX_34}((?:[6789]\d{{2}} \d{{3}} \d{{3}})|(?:[6789]\d{{2}}(?: \d{{2}}){{3}})"
    rf"|(?:[89]\d \d{{3}} \d{{2}} \d{{2}}))(?!\d)"
)
_PHONE_DASHED = re.compile(rf"(?<![\d+]){_PREFIX_34}([6789]\d{{1,2}}(?:[-.]\d{{2,3}}){{2,3}})(?![\d])")
_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+")
_PHONE_BARE = re.compile(rf"(?<![\d+.,]){_PREFIX_34}([6789]\d{{8}})(?!\d|[.,]\d)")


def find_phones(item: str) -> Found:
    """Spanish nine-digit numbers grouped with spaces (612 345 678, 91 234 56 78, +34 …)."""
    correct = [m.group(1) for m in _PHONE_OK.finditer(item)]
    errors = []
    for m in _PHONE_DASHED.finditer(item):
        digits = re.sub(r"\D", "", m.group(1))
        if len(digits) == 9 and not _THOUSANDS.fullmatch(m.group(1)):
            grouped = f"{digits[:3]} {digits[3:6]} {digits[6:]}"
            errors.append(f"'{m.group(0)}' → '{grouped}' (hyphens or points as separators; use spaces)")
    for m in _PHONE_BARE.finditer(item):
        d = m.group(1)
        errors.append(f"'{m.group(0)}' → '{d[:3]} {d[3:6]} {d[6:]}' (no separators; group the digits with spaces)")
    return correct, errors


_ORDINAL_OK = re.compile(r"\b\d+\.(?:[ºª°]|er\b|os\b|as\b)")
_ORDINAL_BAD = re.compile(r"\b(\d+)(o|a|os|as|er|ro|do|to|vo|no|mo|ra|da|ta|va|na|ma)\b")


def _ordinal_fix(number: str, ending: str) -> str:
    return f"{number}." + (ending if ending in ("os", "as", "er") else "ª" if ending.endswith("a") else "º")


def find_ordinals(item: str) -> Found:
    """Ordinal abbreviations take a point before the letter: 3.º, 2.ª, 1.er; 3o, 2a, 1er, 2do are errors."""
    correct = [m.group(0) for m in _ORDINAL_OK.finditer(item)]
    errors = [f"'{m.group(0)}' → '{_ordinal_fix(*m.groups())}'" for m in _ORDINAL_BAD.finditer(item)]
    return correct, errors


# --- time of day -------------------------------------------------------------------------

_HOUR_WORDS = {w: i for i, w in enumerate("una dos tres cuatro cinco seis siete ocho nueve diez once doce".split(), 1)}
_TIME = re.compile(
    r"(?:\b(?P<ctx>a|de|desde|hasta|hacia|sobre|para|por|entre|tras|y|son|es|era|eran|será|serán)\s+)?"
    r"\b(?P<art>la|las|el|los)\s+(?P<hour>" + "|".join(_HOUR_WORDS) + r"|\d{1,2}(?!\d|[.,]\d{3}|\.[ºª]))\b"
    r"(?P<rest>\s*(?:[:.]\d{2}\b|h\b|horas?\b|en punto|y media|y cuarto|menos|de la (?:mañana|tarde|noche|madrugada)))?",
    re.IGNORECASE,
)


def find_time_articles(item: str) -> Found:
    """Clock hours take ``la`` for one o'clock and ``las`` for the others (a la una, a las dos)."""
    correct, errors = [], []
    for m in _TIME.finditer(item):
        hour_text, art = m.group("hour").lower(), m.group("art").lower()
        hour = int(hour_text) if hour_text.isdigit() else _HOUR_WORDS[hour_text]
        if not (m.group("ctx") or m.group("rest")) or hour > 24:
            continue
        if art in ("el", "los") and not m.group("rest"):
            continue
        expected = "la" if hour == 1 else "las"
        phrase = m.group(0).strip()
        if art == expected:
            correct.append(phrase)
        else:
            errors.append(f"'{phrase}' → '{expected} {m.group('hour')}' (hours take 'la' for one o'clock, else 'las')")
    return correct, errors


# --- interrogatives ----------------------------------------------------------------------

_INTERROGATIVES = {
    _plain(w): w
    for w in (
        "qué",
        "quién",
        "quiénes",
        "cuál",
        "cuáles",
        "cuándo",
        "cuánto",
        "cuánta",
        "cuántos",
        "cuántas",
        "dónde",
        "adónde",
        "cómo",
    )
}
_LEADING = frozenset(
    "a de desde hasta para por con en hacia sin sobre entre según contra y e o pero entonces pues".split()
)
_QUESTION = re.compile(r"¿[^¿?]*\?|[^.!?¿¡\n]*\?")


def find_question_accents(item: str) -> Found:
    """The interrogative word opening a question carries its accent (¿Qué…?, ¿De dónde…?)."""
    correct, errors = [], []
    for q in _QUESTION.finditer(item):
        words = re.findall(_WORD, q.group(0))
        while len(words) > 1 and words[0].lower() in _LEADING and _plain(words[0]) not in _INTERROGATIVES:
            if words[0].lower() == "por" and words[1].lower() == "que":
                break
            words = words[1:]
        if not words:
            continue
        first, low = words[0], words[0].lower()
        if low == "porque":
            errors.append(f"'{first}' → 'por qué' in \"{q.group(0).strip()}\"")
        elif low == "por" and len(words) > 1 and words[1].lower() == "que":
            errors.append(f"'{first} {words[1]}' → 'por qué' in \"{q.group(0).strip()}\"")
        elif _plain(first) in _INTERROGATIVES:
            accented = _INTERROGATIVES[_plain(first)]
            if low == accented:
                correct.append(low)
            else:
                errors.append(f"'{first}' → '{accented}' in \"{q.group(0).strip()}\"")
    return correct, errors


# --- noun gender -------------------------------------------------------------------------

_MASCULINE = word_list("spanish/masculine_nouns")
_FEMININE = word_list("spanish/feminine_nouns")
_BOTH = frozenset(_plain(w) for w in word_list("spanish/common_gender_nouns"))
_STRESSED_A = frozenset(
    _plain(w)
    for w in "agua alma arma águila área aula hambre hacha hada ala ave ancla alga asma habla haba arca arpa".split()
)
_INVARIANT = {
    _plain(w): g
    for g, words in (
        ("m", "lunes martes miércoles jueves viernes análisis énfasis paréntesis oasis virus tórax"),
        ("f", "crisis tesis dosis hipótesis síntesis diabetes caries"),
    )
    for w in words.split()
}
_LEXICON = {
    **{_plain(w): "m" for w in _MASCULINE},
    **{_plain(w): "f" for w in _FEMININE},
    **{w: "mf" for w in _BOTH},
    **{w: "f" for w in _STRESSED_A},
}
_SUFFIX_GENDER = (
    ("cion", "f"),
    ("sion", "f"),
    ("dad", "f"),
    ("tad", "f"),
    ("tud", "f"),
    ("umbre", "f"),
    ("aje", "m"),
    ("miento", "m"),
    ("ismo", "m"),
)
_VERB_HOMOGRAPHS = frozenset(_plain(w) for w in word_list("spanish/verb_homographs"))


def _singular_gender(word: str) -> str | None:
    if word in _LEXICON:
        return _LEXICON[word]
    return next((g for suffix, g in _SUFFIX_GENDER if word.endswith(suffix) and len(word) > len(suffix) + 2), None)


def noun_info(word: str) -> tuple[str, str] | None:
    """(genders "m"/"f"/"mf", number "s"/"p"/"sp") of a known noun, else None."""
    w = _plain(word)
    if w in _INVARIANT:
        return _INVARIANT[w], "sp"
    if g := _singular_gender(w):
        return g, "s"
    if not w.endswith("s"):
        return None
    stems = [w[:-1], w[:-2], w[:-3] + "z" if w.endswith("ces") else "", w[:-4] + "on" if w.endswith("ones") else ""]
    for stem in filter(None, stems):
        if g := _singular_gender(stem):
            return ("f" if stem in _STRESSED_A else g), "p"
    return None


_ARTICLES = {
    "el": ("m", "s"),
    "del": ("m", "s"),
    "al": ("m", "s"),
    "la": ("f", "s"),
    "los": ("m", "p"),
    "las": ("f", "p"),
}
_ARTICLE_NOUN = re.compile(rf"\b(el|del|al|la|los|las)\s+({_WORD})", re.IGNORECASE)
_CORRECT_ARTICLE = {("m", "s"): "el", ("f", "s"): "la", ("m", "p"): "los", ("f", "p"): "las"}


_SUBJECT_OR_CLITIC = frozenset(
    _plain(w)
    for w in """
yo tú él ella usted nosotros nosotras vosotros vosotras ellos ellas ustedes no me te se nos os le les
""".split()
)


_COPULAS = frozenset(
    _plain(w) for w in "es está son están era eran fue fueron estaba estaban tiene tienen hay ha han".split()
)


def _clitic_position(item: str, m: re.Match[str]) -> bool:
    """Whether la/las/los before a word that is also a verb form reads as an object pronoun.

    So it does after a subject pronoun, *no* or another clitic (*ella la cuento*), and at the
    start of a sentence unless a copula follows as the noun's verb (*Los cuento mañana* vs
    *La libro está aquí*).
    """
    before = re.findall(_WORD, item[: m.start()])
    if before and _plain(before[-1]) in _SUBJECT_OR_CLITIC:
        return True
    sentence_start = not item[: m.start()].strip() or item[: m.start()].rstrip()[-1] in ".!?¡¿:;\n"
    after = re.findall(_WORD, item[m.end() :])
    return sentence_start and bool(after) and _plain(after[0]) not in _COPULAS


def _guessed_noun(word: str) -> tuple[str, str] | None:
    """``head``: the reference guesses unknown words' gender from -o(s)/-a(s)."""
    w = _plain(word)
    for ending, info in (("os", ("m", "p")), ("as", ("f", "p")), ("o", ("m", "s")), ("a", ("f", "s"))):
        if w.endswith(ending) and len(w) > len(ending) + 1:
            return info
    return None


def expected_article(noun: str, genders: str, number: str, article: str, *, stressed_a: bool = True) -> str:
    """The definite article the noun takes, as close as possible to the one written."""
    gender, wanted_number = _ARTICLES[article]
    g = gender if gender in genders else genders[0]
    n = wanted_number if wanted_number in number else number[0]
    if stressed_a and (g, n) == ("f", "s") and _plain(noun) in _STRESSED_A:
        return "el"  # el agua, el alma: stressed a- feminine nouns take el in the singular
    return _CORRECT_ARTICLE[(g, n)]


def _article_ok(article: str, expected: str) -> bool:
    return {"del": "el", "al": "el"}.get(article, article) == expected


def find_article_agreement(item: str, compat: str = "fixed") -> Found:
    """A definite article agrees in gender and number with the known noun right after it.

    Unknown words are skipped, and so are words that are also common verb forms after
    ``la/las/los`` following a subject pronoun, *no* or a clitic (*ella la cuento*: a pronoun).
    Feminine nouns with a stressed a- take *el* in the singular (*el agua*, not *la agua*).
    ``head`` reproduces the reference: every la/las/los is an article, unknown words ending in
    -o/-a are guessed masculine/feminine, and *agua*/*alma*… are plain feminine nouns.
    """
    head = compat == "head"
    correct, errors = [], []
    for m in _ARTICLE_NOUN.finditer(item):
        art, noun = m.group(1).lower(), m.group(2)
        info = noun_info(noun) or (_guessed_noun(noun) if head else None)
        pronoun = art in ("la", "las", "los") and _plain(noun) in _VERB_HOMOGRAPHS and _clitic_position(item, m)
        if info is None or (pronoun and not head):
            continue
        right = expected_article(noun, *info, art, stressed_a=not head)
        if _article_ok(art, right):
            correct.append(m.group(0))
        else:
            errors.append(f"'{m.group(0)}' → '{right} {noun}' (the article must agree in gender and number)")
    return correct, errors


def _check_article_agreement(max_errors: int, items: Items, ctx: RuleContext) -> Verdict:
    finder = lambda item: find_article_agreement(item, ctx.compat)  # noqa: E731  # one line, bound to this item's compat
    return error_budget_checker(finder, "article agreement")(max_errors, items, ctx)


_NINGUN = re.compile(rf"\b(ningún|ningun|ninguna)\s+({_WORD})", re.IGNORECASE)


def find_ningun_agreement(item: str) -> Found:
    """ningún goes with masculine nouns, ninguna with feminine ones; unknown nouns are assumed correct."""
    correct, errors = [], []
    for m in _NINGUN.finditer(item):
        form, noun = m.group(1).lower(), m.group(2)
        info = noun_info(noun)
        expected = "f" if form == "ninguna" else "m"
        if info is None or expected in info[0] or _plain(noun) in _STRESSED_A:  # ningún/ninguna arma
            correct.append(m.group(0))
        else:
            right = "ninguna" if info[0] == "f" else "ningún"
            errors.append(
                f"'{m.group(0)}' → '{right} {noun}' ('{noun}' is {'feminine' if info[0] == 'f' else 'masculine'})"
            )
    return correct, errors


# --- compounds, abbreviations, addresses -------------------------------------------------

_PREFIXES = word_list("spanish/prefixes")
_PREFIX_HYPHEN = re.compile(r"\b((?i:" + "|".join(_PREFIXES) + r"))-([a-záéíóúüñ]+)\b")
_PREFIX_SPACE = re.compile(
    r"\b((?i:anti|pre|post|sub|hiper|intra|inter|multi|semi|micro|macro|pseudo|cardio|cerebro|neuro|psico|vice))"
    r"\s+([a-záéíóúüñ]{3,})\b"
)
_HYPHENATED = re.compile(rf"\b{_WORD}(?:-{_WORD})+\b")


def find_compounds(item: str) -> Found:
    """Prefixes join the base word without hyphen or space (antiinflamatorio, not anti-inflamatorio);

    a hyphen stays before capitals or digits (anti-OTAN, sub-21) and between adjectives
    (físico-químico).
    """
    bad = [m for m in (*_PREFIX_HYPHEN.finditer(item), *_PREFIX_SPACE.finditer(item)) if not m.group(1).isupper()]
    errors = [f"'{m.group(0)}' → '{m.group(1)}{m.group(2)}' (prefixes are written joined to the word)" for m in bad]
    correct = [w for w in _HYPHENATED.findall(item) if w not in {m.group(0) for m in bad}]
    return correct, errors


_DOTTED_ABBREVIATIONS = word_list("spanish/dotted_abbreviations")
_MULTIPART_ABBREVIATIONS = re.compile(r"\bEE\.\s?UU\.|\bS\.\s?A\.|\bS\.\s?L\.|\bp\.\s?ej\.|\b[ap]\.\s?m\.")
_DOTTED = re.compile(r"(?<![\w.])(" + "|".join(re.escape(a) for a in _DOTTED_ABBREVIATIONS) + r")(?!\w)")
_ROMAN = re.compile(r"[IVXLCDM]+")
_ACRONYM = re.compile(r"(?<![\w.])[A-ZÁÉÍÓÚÑ]{2,6}(?!\w|\.\w)")
_DOTTED_ACRONYM = re.compile(r"(?<![\w.])((?:[A-Z]\.){2,})(?!\s+[A-Z][a-z])")
_PLURAL_ACRONYM = re.compile(r"\b([A-Z]{2,})(?:'s|s)\b")
_LOWER_ACRONYM = re.compile(r"(?<![\w./@-])(onu|oms|iva|pib|dni|sms|gps|cpu|pdf|html|ong|otan|usb|ue)(?![\w/@-]|\.\w)")
_UNDOTTED_TITLE = re.compile(r"\b(Sr|Sra|Srta|Dr|Dra|Dña|Lic|Ing|Prof|Avda|Excmo|Excma|Ud|Uds|Vd|Vds|etc)\b(?!\.)")
_BAD_USA = re.compile(r"\bEE\s?UU\b\.?|\bEEUU\b")
_COMPANY_FORMS = frozenset(("S.A.", "S.L.", "S.R.L."))


def find_abbreviation_format(item: str) -> Found:
    """Acronyms in capitals without points and without plural -s (ONU, las ONG); abbreviations end in a point (Sr., etc.)."""
    errors = [
        f"'{m.group(1)}' → '{m.group(1).replace('.', '')}' (acronyms take no points)"
        for m in _DOTTED_ACRONYM.finditer(item)
        if m.group(1) not in _COMPANY_FORMS
    ]
    errors += [
        f"'{m.group(0)}' → '{m.group(1)}' (acronyms do not take a plural -s)"
        for m in _PLURAL_ACRONYM.finditer(item)
        if not _ROMAN.fullmatch(m.group(1))
    ]
    errors += [
        f"'{m.group(0)}' → '{m.group(0).upper()}' (acronyms are written in capitals)"
        for m in _LOWER_ACRONYM.finditer(item)
    ]
    errors += [
        f"'{m.group(0)}' → '{m.group(0)}.' (abbreviations end with a point)" for m in _UNDOTTED_TITLE.finditer(item)
    ]
    errors += [f"'{m.group(0)}' → 'EE. UU.'" for m in _BAD_USA.finditer(item)]
    return spanish_abbreviations(item), errors


def spanish_abbreviations(item: str) -> list[str]:
    """Correctly written abbreviations (Sr., etc., EE. UU.) and acronyms (ONU, IVA) in order of appearance."""
    found = [(m.start(), re.sub(r"\s", "", m.group(0))) for m in _MULTIPART_ABBREVIATIONS.finditer(item)]
    rest = _MULTIPART_ABBREVIATIONS.sub(lambda m: " " * len(m.group(0)), item)
    found += [(m.start(), m.group(1)) for m in _DOTTED.finditer(rest)]
    found += [
        (m.start(), m.group(0))
        for m in _ACRONYM.finditer(rest)
        if not _ROMAN.fullmatch(m.group(0)) and m.group(0) != "EEUU"
    ]
    return [a for _, a in sorted(found)]


def check_abbreviation_count(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """At least N distinct correctly written Spanish abbreviations or acronyms over all items."""
    found = list(dict.fromkeys(a for item in items for a in spanish_abbreviations(item)))
    return Verdict.of(
        len(found) >= n, f"{len(found)} distinct correct Spanish abbreviations {found[:10]}, at least {n} required"
    )


_STREET = (
    r"(?:\b(?:[Cc]alle|[Aa]venida|[Pp]aseo|[Pp]laza|[Cc]amino|[Cc]arretera|[Rr]onda|[Tt]ravesía|[Gg]lorieta"
    r"|[Bb]ulevar|[Cc]allejón|[Pp]asaje)\b|\b(?:Avda|Av|Pza|Ctra|Pº)\b\.?|\b[Cc]/)"
)
_ADDRESS = re.compile(rf"{_STREET}\s*(?:(?:de|del|la|las|los|el|y)\s+)*(?:[A-ZÁÉÍÓÚÑ0-9][\w.]*)")
_ABBREVIATED_STREET = re.compile(r"\b(Avda|Pza|Ctra|Av)\b(?!\.)")
_ENGLISH_NUMBER_SIGN = re.compile(r"#\s?\d+|\bNo\.\s?\d+")
_NUMBER_FIRST = re.compile(rf"\b\d+\s+{_STREET}\s+[A-ZÁÉÍÓÚÑ]")
_FLOOR_BAD = re.compile(r"\b(\d+)(o|a|er|ro|do|to)\b(?=\s*(?:piso|planta|puerta|izq|dcha|[A-Z]\b))")
_POSTCODE = re.compile(r"\b(?:C\.\s?P\.|CP|código postal)\s*:?\s*(\d+)", re.IGNORECASE)


def find_addresses(item: str) -> Found:
    """Street addresses: type + name (calle Mayor, 15, 3.º B); abbreviations with a point, no English # or No."""
    correct = [m.group(0) for m in _ADDRESS.finditer(item)]
    errors = [
        f"'{m.group(0)}' → '{m.group(0)}.' (street-type abbreviations end with a point)"
        for m in _ABBREVIATED_STREET.finditer(item)
    ]
    errors += [
        f"'{m.group(0)}' → 'n.º {re.sub(r'[^0-9]', '', m.group(0))}' (English number sign)"
        for m in _ENGLISH_NUMBER_SIGN.finditer(item)
    ]
    errors += [
        f"'{m.group(0)}…' (the number goes after the street name: calle Mayor, 15)"
        for m in _NUMBER_FIRST.finditer(item)
    ]
    errors += [f"'{m.group(0)}' → '{_ordinal_fix(*m.groups())}' (floor ordinal)" for m in _FLOOR_BAD.finditer(item)]
    errors += [
        f"postal code '{m.group(1)}' must have 5 digits" for m in _POSTCODE.finditer(item) if len(m.group(1)) != 5
    ]
    return correct, errors


# --- counts over sentences ---------------------------------------------------------------

_SENTENCE = re.compile(r"[^.!?…\n]+")
_NINGUN_WORD = re.compile(r"\bning(?:ún|un|una|uno|unos|unas)\b", re.IGNORECASE)


def check_ningun_sentences(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    """Number of sentences (over all items) containing ningún/ninguna/ninguno in range."""
    if not items:
        return Verdict.fail("nothing was extracted")
    lo, hi = bounds
    found = [s.strip() for item in items for s in _SENTENCE.findall(item) if _NINGUN_WORD.search(s)]
    return Verdict.of(
        lo <= len(found) <= hi,
        f"{len(found)} sentences with ningún/ninguna, expected [{lo:g}, {hi:g}]"
        + (f": {_listing(found, 3)}" if found else ""),
    )


_CLITICS = r"(?:(?:me|te|se|lo|la|le|nos|os|los|las|les)\s+){0,2}"
_HABER = r"(?:(?:he|has|ha|hemos|habéis|han|había|habías|habíamos|habían)\s+)?"
_DOUBLE_NEGATIVE = re.compile(
    rf"\bno\s+{_CLITICS}{_HABER}{_WORD}\s+(?:nada|nadie|nunca|jamás|tampoco|ningún|ninguna|ninguno)\b", re.IGNORECASE
)


def check_double_negatives(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    """Negative concord "no + verb + nada/nadie/nunca/…" counted over all items.

    Clitics and a *haber* auxiliary may stand before the verb; as in the reference, nothing
    else may come between the verb and the negative word (*no fui a ningún sitio* does not count).
    """
    lo, hi = bounds
    found = [m.group(0) for item in items for m in _DOUBLE_NEGATIVE.finditer(item)]
    return Verdict.of(
        lo <= len(found) <= hi,
        f"{len(found)} double negatives (no + verb + nada/nadie/…), expected [{lo:g}, {hi:g}]"
        + (f": {_listing(found, 4)}" if found else ""),
    )


_SUBJECT_PRONOUNS = (
    "yo",
    "tú",
    "él",
    "ella",
    "nosotros",
    "nosotras",
    "vosotros",
    "vosotras",
    "ellos",
    "ellas",
    "usted",
    "ustedes",
)
_PRONOUN = re.compile(r"(?<!\w)(" + "|".join(_SUBJECT_PRONOUNS) + r")(?!\w)", re.IGNORECASE)
_NOT_SUBJECT_BEFORE = re.compile(
    r"\b(?:a|ante|con|contra|de|desde|en|entre|hacia|hasta|para|por|según|sin|sobre|tras|excepto|salvo|menos)\s+$",
    re.IGNORECASE,
)


def check_subject_omission(max_errors: int, items: Items, ctx: RuleContext) -> Verdict:
    """Items should drop subject pronouns (the verb ending shows the person).

    An item with any subject pronoun (one not right after a preposition)
    counts as one error, as in the reference.
    """
    bad = []
    for i, item in enumerate(items, 1):
        found = [m.group(0) for m in _PRONOUN.finditer(item) if not _NOT_SUBJECT_BEFORE.search(item[: m.start()])]
        if found:
            bad.append(f"item {i}: {', '.join(found)}")
    message = f"{len(bad)} items with explicit subject pronouns, at most {max_errors} allowed"
    return Verdict.of(len(bad) <= max_errors, message + (f" ({_listing(bad)})" if bad else ""))


# --- keywords of the source text -------------------------------------------------------

_SOURCE_NOUNS = {  # nouns of the item's source passage (the only data file using this rule), with gender
    "palabra": "f",
    "lenguaje": "m",
    "comunicación": "f",
    "papel": "m",
    "susurro": "m",
    "corazón": "m",
    "bolígrafo": "m",
    "pensamiento": "m",
    "hogar": "m",
    "estrella": "f",
    "cielo": "m",
    "sentimiento": "m",
    "raíz": "f",
}
_SOURCE_PLURALS = {
    "palabras": "palabra",
    "papeles": "papel",
    "susurros": "susurro",
    "corazones": "corazón",
    "bolígrafos": "bolígrafo",
    "pensamientos": "pensamiento",
    "hogares": "hogar",
    "estrellas": "estrella",
    "cielos": "cielo",
    "sentimientos": "sentimiento",
    "raíces": "raíz",
    "comunicaciones": "comunicación",
    "lenguajes": "lenguaje",
}


def keywords_with_articles(item: str) -> list[str]:
    """Distinct source-text nouns preceded by the agreeing definite article (del/al count as el)."""
    found = []
    for m in _ARTICLE_NOUN.finditer(item):
        art, word = m.group(1).lower(), m.group(2).lower()
        lemma = _SOURCE_PLURALS.get(word, word if word in _SOURCE_NOUNS else None)
        if lemma is None:
            continue
        expected = _CORRECT_ARTICLE[(_SOURCE_NOUNS[lemma], "p" if word in _SOURCE_PLURALS else "s")]
        if art == expected or (expected == "el" and art in ("del", "al")):
            found.append(lemma)
    return list(dict.fromkeys(found))


def check_keywords_with_articles(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    """Every item uses between a and b of the source passage's nouns with a correct definite article."""
    if not "".join(items).strip():
        return Verdict.fail("nothing was extracted")
    lo, hi = bounds
    counts = [keywords_with_articles(item) for item in items]
    bad = [f"item {i}: {len(k)} {k}" for i, k in enumerate(counts, 1) if not lo <= len(k) <= hi]
    if bad:
        return Verdict.fail(
            f"source nouns with a definite article, expected [{lo:g}, {hi:g}] per item: {'; '.join(bad)}"
        )
    return Verdict.ok(f"every item uses [{lo:g}, {hi:g}] source nouns with a definite article")


def _check_ningun_agreement(max_errors: int, items: Items, ctx: RuleContext) -> Verdict:
    if not items:
        return Verdict.fail("nothing was extracted")
    return error_budget_checker(find_ningun_agreement, "ningún/ninguna agreement")(max_errors, items, ctx)


def _budget(family: str, find: Finder, what: str, **kwargs):
    return rule(family, int_after_colon, error_budget_checker(find, what, **kwargs))


def _budget_head_crash(family: str, find: Finder, what: str, **kwargs):
    check = crashes_in_head(error_budget_checker(find, what, **kwargs))
    return rule(family, int_after_colon, check)


RULES = [
    _budget("has_correct_spanish_date_format", find_dates, "date format"),
    _budget("has_correct_spanish_number_format", find_numbers, "number format"),
    _budget("has_correct_spanish_currency_format", find_currency, "currency format"),
    _budget(
        "has_correct_spanish_phone_format",
        find_phones,
        "phone number format",
        require="no phone number found (expected e.g. 612 345 678 or 91 234 56 78)",
    ),
    _budget(
        "has_correct_spanish_ordinal_format",
        find_ordinals,
        "ordinal abbreviation",
        empty_fails=True,
        require="no ordinal abbreviation found (expected e.g. 1.º, 2.ª)",
    ),
    _budget("has_correct_spanish_question_accents", find_question_accents, "question-word accent"),
    _budget("has_correct_spanish_time_articles", find_time_articles, "clock-time article"),
    rule("has_correct_spanish_article_gender_agreement", int_after_colon, _check_article_agreement),
    rule("has_correct_spanish_ningun_agreement", int_after_colon, _check_ningun_agreement),
    _budget_head_crash("has_correct_spanish_date_names_case", find_date_names, "month/weekday case"),
    _budget_head_crash("has_correct_compound_hyphen_usage", find_compounds, "compound-word"),
    _budget_head_crash("has_correct_abbreviation_format_only", find_abbreviation_format, "abbreviation format"),
    _budget_head_crash(
        "has_correct_spanish_address_format",
        find_addresses,
        "address format",
        require="no street address found (expected e.g. calle Mayor, 15, 3.º B)",
    ),
    rule("has_correct_subject_omission_with_verb_conjugation", int_after_colon, check_subject_omission),
    rule("has_spanish_abbreviation_count", int_after_colon, crashes_in_head(check_abbreviation_count)),
    rule("has_spanish_ningun_sentences", range_param, check_ningun_sentences),
    rule("has_correct_total_double_negatives", range_param, check_double_negatives),
    rule("has_spanish_keywords_with_articles", range_param, check_keywords_with_articles),
]

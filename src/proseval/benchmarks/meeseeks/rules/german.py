"""German sentence, clause and number rules (the German DATA-SPECIAL files).

Everything is lexicon and regex based (no POS tagger). The extraction prompts of these files
ask for one sentence, clause, number or word per item, so most checks work per item; a
"sentence" is an item unless stated otherwise. Words are whitespace tokens holding a letter
or digit.
"""

from __future__ import annotations

import re
from typing import Callable

from .base import ParameterError, RuleContext, Verdict
from .params import list_param
from .spec import Items, no_params, rule
from .tokens import SPACED_WORD, tokenizer
from .wordlists import word_list

Range = tuple[float, float]

_LETTERS = re.compile(r"[A-Za-zÄÖÜäöüß]+")
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_CLAUSE_SPLIT = re.compile(r"[,;:.!?–—()]")


words = tokenizer(SPACED_WORD)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def _quote(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (", …" if len(items) > limit else "")


# --- parameters ---------------------------------------------------------------------------


def _numbers(label: str) -> list[float]:
    values = list_param(label)
    if not values or not all(isinstance(v, (int, float)) for v in values):
        raise ParameterError(f"rule {label!r} needs numeric parameters")
    return [float(v) for v in values]


def first_int(label: str) -> int:
    """``[N]`` or ``[N, …]`` → N (the data writes minimums as ``[N]`` or ``[N,N]``)."""
    return int(_numbers(label)[0])


def bounds(label: str) -> Range:
    """``[a, b]`` (or ``[n]``) → inclusive range."""
    values = _numbers(label)
    return values[0], values[-1]


# --- German number words ------------------------------------------------------------------

_UNITS = {"ein": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9}
_SMALL = {
    "eins": 1,
    **{k: v for k, v in _UNITS.items() if k != "ein"},
    "zehn": 10,
    "elf": 11,
    "zwölf": 12,
    "dreizehn": 13,
    "vierzehn": 14,
    "fünfzehn": 15,
    "sechzehn": 16,
    "siebzehn": 17,
    "achtzehn": 18,
    "neunzehn": 19,
}
_TENS = {
    "zwanzig": 20,
    "dreißig": 30,
    "dreissig": 30,
    "vierzig": 40,
    "fünfzig": 50,
    "sechzig": 60,
    "siebzig": 70,
    "achtzig": 80,
    "neunzig": 90,
}


def _below_100(s: str) -> int | None:
    if s in _SMALL or s in _TENS:
        return _SMALL.get(s, _TENS.get(s))
    unit, sep, ten = s.partition("und")
    return _UNITS[unit] + _TENS[ten] if sep and unit in _UNITS and ten in _TENS else None


def _scaled(
    s: str, word: str, factor: int, left: Callable[[str], int | None], right: Callable[[str], int | None]
) -> int | None:
    head, sep, tail = s.partition(word)
    if not sep:
        return right(s)
    mult = 1 if head in ("", "ein") else left(head)
    rest = 0 if tail == "" else right(tail)
    return None if mult is None or rest is None else mult * factor + rest


def _below_1000(s: str) -> int | None:
    return _scaled(s, "hundert", 100, _UNITS.get, _below_100)


def german_number(word: str) -> int | None:
    """Value of a German cardinal written as one word (``zweiundzwanzig`` → 22), else None.

    Digits, ordinals and the article forms ``ein/eine/einen…`` are not number words.
    """
    s = word.strip().lower()
    if s == "null":
        return 0
    s = s.replace("millionen", "million")
    return _scaled(s, "million", 1_000_000, _millions, _below_million) if s else None


def _below_million(s: str) -> int | None:
    return _scaled(s, "tausend", 1000, _below_1000, _below_1000)


def _millions(s: str) -> int | None:
    """The multiplier before ``Million``: ``eine`` or a number below a million."""
    return 1 if s == "eine" else _below_million(s)


def number_words(text: str) -> list[str]:
    return [w.lower() for w in _LETTERS.findall(text) if german_number(w) is not None]


def check_numbers_count(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """At least N distinct German number words over all items."""
    found = sorted({w for item in items for w in number_words(item)})
    return Verdict.of(len(found) >= n, f"{len(found)} distinct German number words {found[:20]}, at least {n} required")


def check_numbers_length(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Every German number word in the text has at least N letters (and there is one)."""
    found = sorted({w for item in items for w in number_words(item)})
    if not found:
        return Verdict.fail("no German number word (written out in letters) was found")
    short = [w for w in found if len(w) < n]
    return Verdict.of(
        not short,
        f"number words shorter than {n} letters: {short}"
        if short
        else f"all {len(found)} number words have at least {n} letters",
    )


def check_item_length(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Every extracted number is written with at least N characters."""
    short = [i for i in items if len(i.strip()) < n]
    return Verdict.of(
        not short,
        f"numbers shorter than {n} characters: {_quote(short)}"
        if short
        else f"every number has at least {n} characters",
    )


def _parsed(items: Items) -> tuple[list[int], list[str]]:
    values = [german_number(re.sub(r"[\s\-.,]", "", i)) for i in items]
    return [v for v in values if v is not None], [i for i, v in zip(items, values) if v is None]


def check_parity(parity: int, items: Items, ctx: RuleContext) -> Verdict:
    """Every item is a German number word with the parity of the parameter (1 odd, 2 even)."""
    values, unread = _parsed(items)
    if unread:
        return Verdict.fail(f"not German number words: {_quote(unread)}")
    want = parity % 2
    bad = [i for i, v in zip(items, values) if v % 2 != want]
    name = "odd" if want else "even"
    return Verdict.of(not bad, f"numbers that are not {name}: {_quote(bad)}" if bad else f"all numbers are {name}")


def check_number_monotonicity(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """The numbers, read as German number words, strictly rise or strictly fall.

    A single item (or none) is monotone by definition, as in the reference.
    """
    if len(items) < 2:
        return Verdict.ok("a single number is monotone")
    values, unread = _parsed(items)
    if unread:
        return Verdict.fail(f"not German number words: {_quote(unread)}")
    pairs = list(zip(values, values[1:]))
    ok = all(a < b for a, b in pairs) or all(a > b for a, b in pairs)
    return Verdict.of(ok, f"the numbers {values} {'are' if ok else 'are not'} strictly monotone")


# --- conjunctions -------------------------------------------------------------------------

COORDINATING = ("aber", "denn", "und", "sondern", "oder")


def _word_re(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\wÄÖÜäöüß])(?:" + "|".join(alternatives) + r")(?![\wÄÖÜäöüß])", re.IGNORECASE)


_COORDINATING = {c: _word_re(c) for c in COORDINATING}


def check_conjunctions_per_item(b: Range, items: Items, ctx: RuleContext) -> Verdict:
    """Each item uses between a and b distinct coordinating conjunctions (aber denn und sondern oder)."""
    lo, hi = b
    for i, item in enumerate(items, 1):
        used = [c for c, p in _COORDINATING.items() if p.search(item)]
        if not lo <= len(used) <= hi:
            return Verdict.fail(
                f"sentence {i} uses {len(used)} distinct conjunctions {used}, expected [{lo:g}, {hi:g}]"
            )
    return Verdict.ok(f"every sentence uses [{lo:g}, {hi:g}] distinct coordinating conjunctions")


def check_conjunctions_order(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """aber, denn, und, sondern, oder all occur, their first occurrences in this order."""
    text = " ".join(items)
    last = -1
    for c in COORDINATING:
        m = _COORDINATING[c].search(text)
        if m is None:
            return Verdict.fail(f"'{c}' was not found; expected {', '.join(COORDINATING)} in this order")
        if m.start() < last:
            return Verdict.fail(
                f"the first '{c}' (offset {m.start()}) comes before the conjunction preceding it "
                f"in {', '.join(COORDINATING)}"
            )
        last = m.start()
    return Verdict.ok(f"{', '.join(COORDINATING)} first occur in this order")


_CLAUSE_OPENERS = {"Weil": _word_re("weil"), "Dass": _word_re("dass", "daß"), "Obwohl": _word_re("obwohl")}


def check_three_conjunctions(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """Clauses introduced by weil, dass and obwohl all occur (``head``: first item only)."""
    if ctx.compat == "head" and not items:
        return Verdict.fail("nothing was extracted")
    text = items[0] if ctx.compat == "head" else " ".join(items)
    missing = [name for name, p in _CLAUSE_OPENERS.items() if not p.search(text)]
    return Verdict.of(
        not missing,
        f"missing clauses introduced by {', '.join(missing)}"
        if missing
        else "clauses with weil, dass and obwohl are all present",
    )


_ARTICLES = {a: _word_re(a) for a in ("der", "das", "die")}


def check_three_articles(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """The definite articles der, das and die are all used.

    ``head``: the reference compares whitespace-separated tokens, so ``der,`` is not found.
    """
    text = " ".join(items)
    if ctx.compat == "head":
        tokens = set(text.lower().split())
        missing = [a for a in _ARTICLES if a not in tokens]
    else:
        missing = [a for a, p in _ARTICLES.items() if not p.search(text)]
    return Verdict.of(
        not missing, f"articles not used: {', '.join(missing)}" if missing else "der, das and die are all used"
    )


# --- word lists ---------------------------------------------------------------------------

MODAL_FORMS = frozenset(word_list("german/modal_forms"))
"""Modal verb forms; ``möchte`` is added only where it governs an infinitive (else it is a full verb)."""
MOECHTE = frozenset("möchte möchtest möchten möchtet".split())

# ``head``: the reference recognises no plural modal form (``Wir wollen reisen.``) in statements.
_SINGULAR_MODALS = frozenset("kann kannst muss musst muß mußt darf darfst soll sollst will willst mag magst".split())
VERB_FORMS = MODAL_FORMS | frozenset(word_list("german/common_verb_forms"))


def modal_verbs(text: str) -> list[str]:
    found = []
    for clause in map(_LETTERS.findall, _CLAUSE_SPLIT.split(text)):
        forms = MODAL_FORMS | MOECHTE if _modal_clause(clause, MOECHTE) else MODAL_FORMS
        found += [w for w in clause if w.lower() in forms]
    return found


def check_modal_verbs_count(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """At least N modal verb occurrences over all items (repeats count)."""
    if not any(_LETTERS.search(item) for item in items):
        return Verdict.fail("no words were extracted")
    found = [w for item in items for w in modal_verbs(item)]
    return Verdict.of(len(found) >= n, f"{len(found)} modal verbs {found[:20]}, at least {n} required")


_NOT_INFINITIVE = frozenset(word_list("german/not_infinitive"))


def _infinitive_like(word: str) -> bool:
    low = word.lower()
    return (
        word[:1].islower()
        and low not in _NOT_INFINITIVE
        and low not in MODAL_FORMS
        and (low in ("sein", "tun") or re.search(r"(?:en|ern|eln)$", low) is not None)
    )


def _modal_clause(clause: list[str], forms: frozenset[str]) -> bool:
    """A modal verb with its infinitive closing the clause (or just before a clause-final modal)."""
    positions = [i for i, w in enumerate(clause) if w.lower() in forms]
    if not positions:
        return False
    if positions[-1] == len(clause) - 1:
        return len(clause) >= 2 and _infinitive_like(clause[-2])
    return _infinitive_like(clause[-1])


def declarative_with_modal(sentence: str, forms: frozenset[str] = MODAL_FORMS) -> bool:
    """A statement (not ? or !, not verb-first) whose modal verb governs an infinitive."""
    s = sentence.strip()
    first = _LETTERS.findall(s)[:1]
    if not first or s[-1] in "?!" or first[0].lower() in forms:
        return False
    return any(_modal_clause(_LETTERS.findall(c), forms) for c in _CLAUSE_SPLIT.split(s) if c.strip())


def _declaratives(items: Items, ctx: RuleContext) -> list[str]:
    forms = _SINGULAR_MODALS if ctx.compat == "head" else MODAL_FORMS | MOECHTE
    return [i for i in items if any(declarative_with_modal(s, forms) for s in sentences(i))]


def check_declarative_modal(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """At least N distinct items are statements using a modal verb with an infinitive."""
    found = list(dict.fromkeys(_declaratives(items, ctx)))
    return Verdict.of(
        len(found) >= n,
        f"{len(found)} distinct statements with a modal verb and an infinitive {_quote(found)}, at least {n} required",
    )


def check_declarative_monotonicity(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """The statements with a modal verb get strictly longer (in words), in order."""
    found = _declaratives(items, ctx)
    if not found:
        return Verdict.fail("no statement using a modal verb with an infinitive was found")
    return _monotone([len(words(s)) for s in found], strict=True, rising=True, what="statement with a modal verb")


# --- diminutives --------------------------------------------------------------------------

_DIMINUTIVE = re.compile(r"^[A-ZÄÖÜ][a-zäöüß]+(?:chen|lein)$")
# -chen right after a vowel (Kuchen, Zeichen, Bereichen) or -schen without an umlaut before
# it (Menschen, Taschen; but Häuschen, Gläschen) are plural or dative forms, not diminutives.
_NOT_DIMINUTIVE = re.compile(r"(?:[aeiouäöüy]chen|(?<![äöü])(?<!äu)schen)$")
_NOT_DIMINUTIVE_WORDS = frozenset("München Kirchen Lerchen Furchen Manchen Solchen Welchen Allein Klein Verein".split())


def diminutives(text: str) -> list[str]:
    return [
        w
        for w in _LETTERS.findall(text)
        if len(w) >= 6 and _DIMINUTIVE.match(w) and not _NOT_DIMINUTIVE.search(w) and w not in _NOT_DIMINUTIVE_WORDS
    ]


def check_diminutives(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """At least N distinct diminutive nouns (-chen, -lein) over all items."""
    found = sorted({w for item in items for w in diminutives(item)})
    return Verdict.of(len(found) >= n, f"{len(found)} distinct diminutives {found[:20]}, at least {n} required")


def check_weak_nouns(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N words, each in the -(e)n form of a weak masculine noun (Studenten, Herrn)."""
    if not items:
        return Verdict.fail("no weak masculine nouns were extracted")
    if len(items) != n:
        return Verdict.fail(f"{len(items)} weak masculine nouns were extracted, expected {n}")
    bad = [i for i in items if not re.fullmatch(r"[A-Za-zÄÖÜäöüß]+n", i.strip(" .,;:!?()[]0123456789"))]
    return Verdict.of(
        not bad, f"not a single word ending in -n/-en: {_quote(bad)}" if bad else f"all {n} words have the -(e)n form"
    )


# --- professions (DATA-SPECIAL5: one fixed passage) -----------------------------------------

_MASCULINE = ("Lehrer", "Arzt", "Ingenieur", "Professor", "Anwalt", "Musiker", "Pianist", "Journalist", "Politiker")
_FEMININE = (
    "Köchin",
    "Bäuerin",
    "Architektin",
    "Friseurin",
    "Künstlerin",
    "Schneiderin",
    "Polizistin",
    "Wissenschaftlerin",
)
_MASCULINE_SWAPPED = (
    "Lehrerin",
    "Ärztin",
    "Ingenieurin",
    "Professorin",
    "Anwältin",
    "Musikerin",
    "Pianistin",
    "Journalistin",
    "Politikerin",
)
_FEMININE_SWAPPED = ("Koch", "Bauer", "Architekt", "Friseur", "Künstler", "Schneider", "Polizist", "Wissenschaftler")
_ARTICLE = re.compile(r"^(?:der|die|das|ein|eine|einen)\s+", re.IGNORECASE)


def profession_order_checker(sequences: tuple[tuple[str, ...], ...], what: str):
    """The items are the first professions of one gender in the passage, in passage order."""

    def check(_: None, items: Items, ctx: RuleContext) -> Verdict:
        names = [_ARTICLE.sub("", i.strip(" .,;:!?\"'„“[]")).lower() for i in items]
        for seq in sequences:
            if names == [s.lower() for s in seq[: len(names)]]:
                return Verdict.ok(f"the {what} follow the order of the passage")
        options = " or ".join(", ".join(seq[: max(len(names), 1)]) for seq in sequences)
        return Verdict.fail(
            f"the {what} {_quote(items)} are not the first ones of the passage in order "
            f"(expected the start of: {options})"
        )

    return check


# --- imperatives --------------------------------------------------------------------------

_CLOSED_CLASS = frozenset(word_list("german/closed_class"))
_DETERMINER = re.compile(r"^(?:mein|dein|sein|ihr|unser|euer|eur|kein|dies|jed|all|manch|solch|welch|jen)\w*$")
_NOUN_SUFFIX = re.compile(r"(?:ung|heit|keit|schaft|tät|ion|nis|tum|ismus|ment|chen|lein|er)$")
_SUBJECT = frozenset("ich du er wir ihr man".split())
_ADVERB_T = frozenset(
    "jetzt nicht sofort stets oft selbst erst zuerst bereits sonst fast gut recht zuletzt selten zusammen".split()
)


def _finite_like(word: str) -> bool:
    """A lower-case word that looks like a finite verb in second position (kocht, gehen, ist)."""
    low = word.lower()
    if not word[:1].islower():
        return False
    if low in VERB_FORMS:
        return True
    closed = low in _CLOSED_CLASS or low in _ADVERB_T or _DETERMINER.match(low)
    return not closed and re.search(r"(?:t|en|st)$", low) is not None


def imperative_kind(sentence: str) -> str | None:
    """``formal`` (Verb-en Sie …), ``informal`` (verb-first du/ihr command) or None."""
    s = sentence.strip()
    tokens = _LETTERS.findall(s)
    if tokens[:1] and tokens[0].lower() == "bitte":
        tokens = tokens[1:]
    if not tokens or s.endswith("?"):
        return None
    first, second = tokens[0], (tokens[1] if len(tokens) > 1 else "")
    low = first.lower()
    if second == "Sie" and low in ("haben", "werden"):
        return "formal"
    if low in _CLOSED_CLASS or low in MODAL_FORMS or low in MOECHTE or _DETERMINER.match(low):
        return None
    if second == "Sie":
        return "formal" if low.endswith("en") else None
    if second.lower() in _SUBJECT or second.lower() in ("sie", "und", "oder") or _NOUN_SUFFIX.search(low):
        return None
    return None if second and _finite_like(second) else "informal"


def imperative_checker(kinds: tuple[str, ...], what: str):
    """Number of distinct items holding an imperative sentence of ``kinds`` in range.

    ``head``: informal commands are never recognised (the reference finds none at all).
    """

    def check(b: Range, items: Items, ctx: RuleContext) -> Verdict:
        active = tuple(k for k in kinds if ctx.compat != "head" or k == "formal")
        found = list(dict.fromkeys(i for i in items if any(imperative_kind(s) in active for s in sentences(i))))
        lo, hi = b
        return Verdict.of(
            lo <= len(found) <= hi, f"{len(found)} distinct {what} {_quote(found)}, expected [{lo:g}, {hi:g}]"
        )

    return check


# --- sentence and clause lengths ------------------------------------------------------------


def _monotone(counts: list[int], *, strict: bool, rising: bool, what: str, start: int = 1, step: int = 1) -> Verdict:
    for k, (a, b) in enumerate(zip(counts, counts[1:])):
        ok = (a < b if strict else a <= b) if rising else (a > b if strict else a >= b)
        if not ok:
            pos = start + (k + 1) * step
            trend = "longer" if rising else "shorter"
            return Verdict.fail(
                f"{what} {pos} has {b} words after {a}; each must be {'' if strict else 'no '}"
                f"{trend if strict else ('shorter' if rising else 'longer')}"
            )
    return Verdict.ok(
        f"word counts {counts} are {'strictly ' if strict else ''}{'increasing' if rising else 'decreasing'}"
    )


def length_trend_checker(*, strict: bool, rising: bool, parity: int | None = None, what: str = "sentence"):
    """Word counts of the items (or of the odd/even-numbered items) rise or fall."""

    def check(_: None, items: Items, ctx: RuleContext) -> Verdict:
        start = 1 if parity is None else (1 if parity else 2)
        chosen = items if parity is None else items[start - 1 :: 2]
        return _monotone(
            [len(words(i)) for i in chosen],
            strict=strict,
            rising=rising,
            what=what,
            start=start,
            step=1 if parity is None else 2,
        )

    return check


def check_total_sentences(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N sentences (one non-blank item per sentence)."""
    found = sum(1 for i in items if i.strip())
    return Verdict.of(found == n, f"{found} sentences, expected {n}")


_DASH_TOKEN = re.compile(r"(?<!\S)[-–—]+(?!\S)")


def _sentence_words(sentence: str, ctx: RuleContext) -> int:
    """Words of a sentence; ``head`` also counts a free-standing dash, as the reference's tokenizer does."""
    n = len(words(sentence))
    return n + len(_DASH_TOKEN.findall(sentence)) if ctx.compat == "head" else n


def parity_checker(odd_positions: bool):
    """Every odd- (even-) numbered sentence has an odd (even) number of words."""

    def check(_: None, items: Items, ctx: RuleContext) -> Verdict:
        for pos in range(1 if odd_positions else 2, len(items) + 1, 2):
            n = _sentence_words(items[pos - 1], ctx)
            if n % 2 != pos % 2:
                return Verdict.fail(f"sentence {pos} has {n} words; it must be {'odd' if pos % 2 else 'even'}")
        return Verdict.ok(
            f"every {'odd' if odd_positions else 'even'}-numbered sentence has "
            f"an {'odd' if odd_positions else 'even'} number of words"
        )

    return check


def check_first_last_odd(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """The first and the last item both have an odd number of words."""
    if not items:
        return Verdict.fail("nothing was extracted")
    for where, item in (("first", items[0]), ("last", items[-1])):
        n = len(words(item))
        if n % 2 == 0:
            return Verdict.fail(f"the {where} reason has {n} words, not an odd number")
    return Verdict.ok("the first and the last reason have an odd number of words")


_SUBORDINATORS = frozenset(word_list("german/subordinators"))
_NOT_VERB = frozenset(word_list("german/not_verb"))


def verb_like(word: str) -> bool:
    """A lower-case finite or non-finite verb form (aux, modal, common strong form, regular ending)."""
    low = word.lower()
    if not word[:1].islower() or low in _NOT_VERB:
        return low in VERB_FORMS
    return low in VERB_FORMS or re.search(r"(?:e|t|st|en|ern|eln)$", low) is not None


_CLAUSE_TOKEN = re.compile(r"[A-Za-zÄÖÜäöüß]+|\d+")


def subordinate_clauses(text: str) -> list[list[str]]:
    """Clauses opened by a subordinating conjunction; the whole text when there is none.

    Tokens are words and numbers (a clause ending in a number does not end with its verb).
    """
    parts = [_CLAUSE_TOKEN.findall(p) for p in _CLAUSE_SPLIT.split(text)]
    found = [p for p in parts if p and p[0].lower() in _SUBORDINATORS]
    whole = [w for p in parts for w in p]
    return found or ([whole] if whole else [])


def ends_with_finite_verb(clause: list[str]) -> bool:
    """The clause's last token is a verb form and not a ``zu`` infinitive (``morgen zu kommen``)."""
    if not verb_like(clause[-1]):
        return False
    return not (len(clause) > 1 and clause[-2].lower() == "zu")


def _head_last_token_is_verb(item: str) -> bool:
    """``head``: the reference looks only at the item's last token, and only a final ``.`` is dropped
    (``Weil ich dich liebe!`` ends with the token ``!``)."""
    tokens = re.findall(r"\w+|[^\w\s]", item.rstrip().rstrip("."))
    return bool(tokens) and tokens[-1][0].isalnum() and ends_with_finite_verb(tokens)


def check_clause_verb_final(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """In every item each subordinate clause (else the item) ends with its finite verb."""
    for i, item in enumerate(items, 1):
        if ctx.compat == "head":
            if not _head_last_token_is_verb(item):
                return Verdict.fail(f"item {i} does not end with its verb: {item[:80]!r}")
            continue
        clauses = subordinate_clauses(item)
        if not clauses:
            return Verdict.fail(f"item {i} holds no clause")
        for clause in clauses:
            if not ends_with_finite_verb(clause):
                return Verdict.fail(
                    f"in item {i} the clause '{' '.join(clause)}' ends with '{clause[-1]}', not with its finite verb"
                )
    return Verdict.ok("every clause ends with its verb")


RULES = [
    rule(prefix, parse, check)
    for prefix, parse, check in (
        ("german_words_count", bounds, check_conjunctions_per_item),
        ("check_conjunctions_order", no_params, check_conjunctions_order),
        ("check_three_conjunctions", no_params, check_three_conjunctions),
        ("check_three_articles", no_params, check_three_articles),
        ("order_profession1_check", no_params, profession_order_checker((_MASCULINE, _FEMININE), "professions")),
        (
            "order_profession2_check",
            no_params,
            profession_order_checker((_MASCULINE_SWAPPED, _FEMININE_SWAPPED), "replaced professions"),
        ),
        ("german_numbers_length", first_int, check_item_length),
        ("german_numbers_parity", first_int, check_parity),
        ("check_number_monotonicity", no_params, check_number_monotonicity),
        ("check_numbers_count", first_int, check_numbers_count),
        ("check_numbers_length", first_int, check_numbers_length),
        ("check_words_case", first_int, check_weak_nouns),
        ("german_text_diminutive_words", first_int, check_diminutives),
        ("check_modal_verbs_count", first_int, check_modal_verbs_count),
        ("check_declarative_sentence_modal_verbs", first_int, check_declarative_modal),
        ("check_declarative_sentence_length_monotonicity", no_params, check_declarative_monotonicity),
        ("check_imperative_sentence", bounds, imperative_checker(("formal", "informal"), "imperative sentences")),
        ("check_formal_imperative_sentence", bounds, imperative_checker(("formal",), "formal imperatives (Sie)")),
        (
            "check_informal_imperative_sentence",
            bounds,
            imperative_checker(("informal",), "informal imperatives (du/ihr)"),
        ),
        ("check_sentence_length_monotonicity", no_params, length_trend_checker(strict=False, rising=True)),
        ("check_odd_increase", no_params, length_trend_checker(strict=True, rising=True, parity=1)),
        ("check_even_decrease", no_params, length_trend_checker(strict=True, rising=False, parity=0)),
        ("german_clause_monotonicity", no_params, length_trend_checker(strict=True, rising=True, what="reason")),
        ("german_clause_odd_even", no_params, check_first_last_odd),
        ("german_clause_verb", no_params, check_clause_verb_final),
        ("german_total_sentences", first_int, check_total_sentences),
        ("check_word_counts_odd", no_params, parity_checker(True)),
        ("check_word_counts_even", no_params, parity_checker(False)),
    )
]

"""Indonesian lexicon and morphology rules.

All checks are dependency-free lexicon/regex heuristics: loanwords (adapted spellings of
English/French/Dutch words), reduplicated plurals, negators, abbreviations, ``se-``
classifiers, ``me-``/``di-`` verbs, colloquialisms, honorifics, polite imperatives, the
articles ``si``/``sang`` and object-fronted sentences. Counts run over all items joined.
"""

from __future__ import annotations

import re
from collections import Counter

from .base import ParameterError, RuleContext, Verdict
from .params import after_colon, int_after_colon
from .spec import Items, rule
from .tokens import ASCII_WORD, tokenizer
from .wordlists import word_list, word_table

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE = re.compile(r"[,;:]\s*")
_ORNAMENT = re.compile(r"^[\s\"'“”‘’()\[\]*#>\-–—•\d.]+")

# Adapted-spelling loanwords from English, French and Dutch (word → source). Words the
# reference does not count (kado, kursus, kompor, koran, kulkas, sepeda, setir, sopir,
# sains, sekolah, telepon, mobil, mesin, …) and words spelt exactly as in English
# (sandal, program, radio, internet, hotel) are deliberately absent.
LOANWORDS: dict[str, str] = word_table("indonesian/loanwords")

# Loanwords the reference offers for shop names (the ``_each`` family uses only these).
SHOP_LOANWORDS = frozenset(word_list("indonesian/shop_loanwords"))

# Reduplications that are lexicalised words, adverbs or verbs, not noun/adjective plurals.
NOT_PLURAL = frozenset(word_list("indonesian/not_plural"))

# Negators: spelling variants and the words after which each one is clearly wrong.
NEGATION_VARIANTS = {"tidak": ("tidak", "tdk", "tak"), "bukan": ("bukan", "bkn"), "jangan": ("jangan", "jgn")}
PRONOUNS = frozenset(
    {
        "saya",
        "aku",
        "kamu",
        "engkau",
        "anda",
        "dia",
        "ia",
        "beliau",
        "kami",
        "kita",
        "mereka",
        "kalian",
    }
)
HUMAN_NOUNS = frozenset(word_list("indonesian/human_nouns"))
ANIMAL_NOUNS = frozenset(word_list("indonesian/animal_nouns"))
PREDICATES = frozenset(word_list("indonesian/predicates"))
NOT_PREDICATE_AFTER_BUKAN = frozenset({"main"})  # "bukan main" = extraordinary
CONTRAST = re.compile(r"\b(?:melainkan|tetapi|tapi|namun)\b", re.IGNORECASE)
SUBJECTS_BEFORE_JANGAN = frozenset({"saya", "aku", "dia", "ia", "beliau", "mereka"})

# Written abbreviations the reference recognises (Jl., Yth., Kec. are not among them).
ABBREVIATIONS = frozenset(word_list("indonesian/abbreviations"))
_NEEDS_DOT = frozenset({"no", "sim", "hp", "pr", "cv"})  # ordinary words without the dot

# se- + classifier / time unit (seorang, sebuah, sehari …); "sekali" is not one.
SE_CLASSIFIERS = frozenset(word_list("indonesian/se_classifiers"))
SE_MISMATCH = {"seorang": ANIMAL_NOUNS, "seekor": HUMAN_NOUNS, "sebuah": HUMAN_NOUNS | ANIMAL_NOUNS}

# Colloquial (Jakarta/informal) words → standard form.
COLLOQUIAL: dict[str, str] = word_table("indonesian/colloquial")

# Honorific expressions: phrases first so that "dengan hormat" counts once.
_HONORIFIC = re.compile(
    r"\byth\.|\b(?:yang\s+terhormat|dengan\s+hormat|hormat\s+(?:saya|kami)|mohon\s+maaf"
    r"|mohon\s+(?:dimaafkan|memaafkan)|hormat|anda|beliau|sang)\b"
    r"|\b(?:Bapak|Ibu(?!\s+[Kk]ota\b)|Pak|Bu|Tuan|Nyonya|Nona|Saudara|Saudari)\b",
    re.IGNORECASE,
)
_TITLE_WORDS = frozenset({"bapak", "ibu", "pak", "bu", "tuan", "nyonya", "nona", "saudara", "saudari"})

POLITE_WORDS = frozenset({"silakan", "silahkan", "mohon", "tolong", "mari", "harap", "sudilah", "dimohon"})

# Words starting with me-/di- that are not active/passive verbs (nouns, pronouns,
# prepositions, conjunctions, loanwords, locatives written solid).
NOT_ACTIVE = frozenset(word_list("indonesian/not_active"))
NOT_PASSIVE = frozenset(word_list("indonesian/not_passive"))

# Object fronting: "<noun phrase> itu/ini [aux] <agent> [aux] <bare verb>".
_AUX = (
    r"(?:sudah|telah|akan|harus|sedang|sering|pernah|belum|tidak|tak|segera|mau|ingin|bisa|dapat"
    r"|boleh|perlu|masih|baru|selalu|juga|pun)"
)
_AGENT = r"(?:saya|aku|kami|kita|kamu|engkau|anda|dia|ia|mereka|beliau|kalian)"
_FRONTED = re.compile(
    rf"^(?:[A-Za-z-]+\s+){{1,3}}(?:itu|ini|tersebut)\s+(?:{_AUX}\s+){{0,2}}"
    rf"(?:{_AGENT}\s+(?:{_AUX}\s+)?(?!(?:me|ber|di)[a-z])[a-z]{{2,}}|(?:ku|kau)(?!rang)[a-z]{{3,}})\b",
    re.IGNORECASE,
)
_SUBORDINATORS = frozenset(word_list("indonesian/subordinators"))


def _joined(items: Items) -> str:
    return "\n".join(items)


def _is_empty(items: Items) -> bool:
    return not any(item.strip() for item in items)


def _sentences(text: str) -> list[str]:
    return [s for s in (_ORNAMENT.sub("", p).strip() for p in _SENTENCE_END.split(text)) if s]


_words = tokenizer(ASCII_WORD, lower="tokens")


def _preview(found: list[str], limit: int = 12) -> str:
    if not found:
        return "none"
    shown = ", ".join(found[:limit])
    return shown + (f", … ({len(found)} in all)" if len(found) > limit else "")


def _exact(found: list[str], n: int, what: str) -> Verdict:
    return Verdict.of(len(found) == n, f"{len(found)} {what} found ({_preview(found)}), expected exactly {n}")


_EMPTY = Verdict.fail("the text is empty")


# --- loanwords ---------------------------------------------------------------------------


def _loanword_params(label: str) -> tuple[int, str]:
    match = re.fullmatch(r"\s*(\d+)\s*(?:,\s*([A-Za-z])\s*)?", after_colon(label))
    if not match:
        raise ParameterError(f"rule {label!r} needs N or N,letter")
    return int(match.group(1)), (match.group(2) or "").lower()


def check_loanwords(params: tuple[int, str], items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N distinct loanwords (starting with the letter, if given) over the whole text."""
    n, letter = params
    if _is_empty(items):
        return _EMPTY
    found = list(dict.fromkeys(w for w in _words(_joined(items)) if w in LOANWORDS and w.startswith(letter)))
    what = "distinct English/French/Dutch loanwords" + (f" starting with {letter!r}" if letter else "")
    return _exact([f"{w} ← {LOANWORDS[w]}" for w in found], n, what)


def _loanword_each_params(label: str) -> tuple[int, str, int]:
    match = re.fullmatch(r"\s*(\d+)\s*,\s*([A-Za-z])\s*,\s*(\d+)\s*", after_colon(label))
    if not match:
        raise ParameterError(f"rule {label!r} needs N,letter,length")
    return int(match.group(1)), match.group(2).lower(), int(match.group(3))


def check_loanwords_each(params: tuple[int, str, int], items: Items, ctx: RuleContext) -> Verdict:
    """Every item (shop name) holds exactly N loanwords of the given initial and length."""
    n, letter, length = params
    if not items:
        return Verdict.fail("no items (shop names) found")
    bad = []
    for i, item in enumerate(items, 1):
        found = [w for w in _words(item) if w in SHOP_LOANWORDS and w[0] == letter and len(w) == length]
        if len(found) != n:
            bad.append(f"item {i} has {len(found)} ({_preview(found)})")
    examples = sorted(w for w in SHOP_LOANWORDS if w[0] == letter and len(w) == length)
    need = f"every item needs exactly {n} loanword(s) starting with {letter.upper()!r} and {length} letters long"
    if bad:
        hint = f"; examples: {', '.join(examples)}" if examples else ""
        return Verdict.fail(f"{need}; {'; '.join(bad)}{hint}")
    return Verdict.ok(need)


# --- plurals, negation, abbreviations, se- ----------------------------------------------

_REDUPLICATION = re.compile(r"\b([A-Za-z]+)-\1(?:nya|ku|mu)?\b", re.IGNORECASE)


def check_plurals(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N reduplicated noun/adjective plurals (anak-anak), repetitions included."""
    if _is_empty(items):
        return _EMPTY
    found = [m.group(0) for m in _REDUPLICATION.finditer(_joined(items)) if m.group(1).lower() not in NOT_PLURAL]
    return _exact(found, n, "reduplicated plurals")


def _negation_param(label: str) -> str:
    word = after_colon(label).strip().lower()
    if word not in NEGATION_VARIANTS:
        raise ParameterError(f"rule {label!r} needs tidak, bukan or jangan")
    return word


def _negation_errors(word: str, sentence: str) -> list[str]:
    tokens = [t.lower() for t in re.findall(r"[A-Za-z]+|[.!?,;:]", sentence)]
    contrast = bool(CONTRAST.search(sentence))
    errors = []
    for i, token in enumerate(tokens):
        if token not in NEGATION_VARIANTS[word]:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        clause_ends = (tokens[i + 2] if i + 2 < len(tokens) else ".") in ".!?,;:"
        if word == "tidak" and (nxt in PRONOUNS or nxt in HUMAN_NOUNS):
            errors.append(f"'{token} {nxt}' negates a noun/pronoun (use 'bukan')")
        elif (
            word == "bukan"
            and clause_ends
            and not contrast
            and nxt not in NOT_PREDICATE_AFTER_BUKAN
            and (nxt in PREDICATES or re.match(r"(?:me|ber|ter)[a-z]{3,}$", nxt))
        ):
            errors.append(f"'{token} {nxt}' negates a bare verb/adjective (use 'tidak')")
        elif (
            word == "jangan"
            and i > 0
            and tokens[i - 1] in SUBJECTS_BEFORE_JANGAN
            and (i == 1 or tokens[i - 2] in ".!?,;:")
            and not nxt.startswith("di")  # "saya jangan diganggu" is a request
        ):
            errors.append(f"'{tokens[i - 1]} {token}' is a statement, not a prohibition (use 'tidak')")
    return errors


def check_negation_keyword(word: str, items: Items, ctx: RuleContext) -> Verdict:
    """The negator occurs and is never used in a clearly wrong construction.

    Wrong: ``tidak`` + noun/pronoun, ``bukan`` + bare verb/adjective closing the clause
    (unless contrasted with melainkan/tetapi), subject pronoun + ``jangan``.
    """
    if _is_empty(items):
        return _EMPTY
    uses = sum(1 for w in _words(_joined(items)) if w in NEGATION_VARIANTS[word])
    if not uses:
        return Verdict.fail(f"the negator {word!r} (or {list(NEGATION_VARIANTS[word])}) is not used")
    errors = [e for s in _sentences(_joined(items)) for e in _negation_errors(word, s)]
    if errors:
        return Verdict.fail(f"{word!r} is misused {len(errors)} time(s): {'; '.join(errors)}")
    return Verdict.ok(f"{word!r} used correctly ({uses} time(s))")


def _abbreviation_params(label: str) -> tuple[int, str]:
    match = re.fullmatch(r"\s*(\d+)\s*(?::\s*(total|unique)\s*)?", after_colon(label), re.IGNORECASE)
    if not match:
        raise ParameterError(f"rule {label!r} needs N or N:total|unique")
    return int(match.group(1)), (match.group(2) or "total").lower()


_ABBREVIATION = re.compile(r"\b([A-Za-z]{2,8})\b(\.?)")


def check_abbreviations(params: tuple[int, str], items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N known written abbreviations (repetitions counted unless ``unique``)."""
    n, mode = params
    found = [
        w.lower()
        for w, dot in _ABBREVIATION.findall(_joined(items))
        if w.lower() in ABBREVIATIONS and (dot or w.lower() not in _NEEDS_DOT or (w.isupper() and w != "NO"))
    ]
    if mode == "unique":
        found = list(dict.fromkeys(found))
    counts = ", ".join(f"{w}×{c}" for w, c in Counter(found).items())
    ok = len(found) == n
    return Verdict.of(ok, f"{len(found)} abbreviations ({mode}) found ({counts or 'none'}), expected exactly {n}")


def _optional_int(label: str) -> int:
    return int_after_colon(label) if after_colon(label).strip() else 1


def check_se_usage(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """At least N se- + classifier forms (seorang, sebuah, sehari …), none mismatched."""
    if _is_empty(items):
        return _EMPTY
    words = _words(_joined(items))
    found = [w for w in words if w in SE_CLASSIFIERS]
    bad = [f"{w} {nxt}" for w, nxt in zip(words, words[1:]) if nxt in SE_MISMATCH.get(w, ())]
    if bad:
        return Verdict.fail(f"classifier does not fit the noun: {', '.join(bad)}")
    reason = f"{len(found)} se- classifier forms found ({_preview(found)}), expected at least {n}"
    return Verdict.of(len(found) >= n, reason)


# --- voice, register, honorifics, imperatives -------------------------------------------


def _active_verbs(text: str) -> list[str]:
    return [w for w in _words(text) if re.match(r"me[a-z]{3,}$", w) and w not in NOT_ACTIVE]


def _passive_verbs(text: str) -> list[str]:
    return [w for w in _words(text) if re.match(r"di[a-z]{3,}$", w) and w not in NOT_PASSIVE]


def voice_checker(extract, what: str):
    def check(n: int, items: Items, ctx: RuleContext) -> Verdict:
        if _is_empty(items):
            return _EMPTY
        return _exact(extract(_joined(items)), n, what)

    return check


def check_colloquial(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N colloquial words (gue, nggak, udah, banget …), repetitions included."""
    if _is_empty(items):
        return _EMPTY
    found = [w for w in _words(_joined(items)) if w in COLLOQUIAL]
    return _exact(found, n, "colloquial words")


def _honorifics(text: str) -> list[str]:
    found = []
    for m in _HONORIFIC.finditer(text):
        word = m.group(0)
        if word.lower() in _TITLE_WORDS and not word[0].isupper():
            continue  # "ibu" (mother), "bapak" (father) in lower case are kinship words
        found.append(" ".join(word.split()))
    return found


def check_honorifics(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N honorific expressions (Bapak, Ibu, Anda, Saudara, Yang Terhormat, hormat …)."""
    if _is_empty(items):
        return _EMPTY
    return _exact(_honorifics(_joined(items)), n, "honorific expressions")


def _polite_imperatives(text: str) -> list[str]:
    found = []
    for sentence in _sentences(text):
        if sentence.endswith("?"):
            continue
        clauses = [_ORNAMENT.sub("", c) for c in _CLAUSE.split(sentence)]
        if any((w := _words(c)[:1]) and w[0] in POLITE_WORDS for c in clauses):
            found.append(sentence.rstrip(".!"))
    return found


def check_polite_imperatives(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N imperative sentences opened by a polite word (silakan, mohon, tolong, mari …)."""
    if _is_empty(items):
        return _EMPTY
    return _exact(_polite_imperatives(_joined(items)), n, "polite imperative sentences")


# --- articles si/sang, fronted objects ---------------------------------------------------


def _article_checker(article: str):
    def check(_: None, items: Items, ctx: RuleContext) -> Verdict:
        """Each ``si``/``sang`` is followed by a singular noun or name (no pronoun, plural, end)."""
        uses, errors = 0, []
        for sentence in _sentences(_joined(items)):
            tokens = re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)*|[^\sA-Za-z]", sentence)
            for i, token in enumerate(tokens):
                if token.lower() != article:
                    continue
                uses += 1
                nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
                low = nxt.lower()
                if not nxt[:1].isalpha():
                    errors.append(f"'{article}' is not followed by a noun")
                elif low in PRONOUNS or low in {"para", "semua", "segala", "beberapa", "banyak", "si", "sang"}:
                    errors.append(f"'{article} {nxt}'")
                elif re.fullmatch(r"([a-z]+)-\1", low):
                    errors.append(f"'{article} {nxt}' (plural)")
        if errors:
            return Verdict.fail(f"'{article}' must precede one person/personified noun; wrong: {', '.join(errors)}")
        return Verdict.ok(f"'{article}' used correctly ({uses} time(s))" if uses else f"'{article}' is not used")

    return check


# Honourable or sacred titles: 'si' (familiar, slightly pejorative) must not precede them.
HONOURED_TITLES = frozenset(word_list("indonesian/honoured_titles"))
_SI = re.compile(r"(?<![A-Za-z])(si)\s+([A-Za-z]+(?:-[A-Za-z]+)*)", re.IGNORECASE)


def si_misuses(text: str, compat: str) -> tuple[int, list[str]]:
    """Uses of the article 'si' (followed by a word) and the wrong ones.

    Wrong: before a pronoun, a plural, or an honourable/sacred title (si raja, si tuhan).
    ``head`` only recognises 'si'/'Si', as the reference does (not 'SI').
    """
    uses, errors = 0, []
    for m in _SI.finditer(text):
        if compat == "head" and m.group(1) not in ("si", "Si"):
            continue
        uses += 1
        word = m.group(2).lower()
        if word in PRONOUNS or word in {"para", "semua", "segala", "beberapa", "banyak", "si", "sang"}:
            errors.append(f"'{m.group(0)}'")
        elif re.fullmatch(r"([a-z]+)-\1", word):
            errors.append(f"'{m.group(0)}' (plural)")
        elif word in HONOURED_TITLES:
            errors.append(f"'{m.group(0)}' (an honoured title)")
    return uses, errors


def check_si_usage(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """Each 'si' precedes one familiar person, animal or nickname (items read as one text)."""
    uses, errors = si_misuses(" ".join(items), ctx.compat)
    if errors:
        return Verdict.fail(f"'si' is for familiar persons, animals and nicknames; wrong: {', '.join(errors)}")
    return Verdict.ok(f"'si' used correctly ({uses} time(s))" if uses else "'si' is not used")


def _exact_label(name: str):
    def parse(label: str) -> None:
        if label.strip().lower() != name:
            raise ParameterError(f"rule {label!r} takes no parameters")

    return parse


def _fronted_sentences(text: str) -> list[str]:
    found = []
    for sentence in _sentences(text):
        main = [c for c in _CLAUSE.split(sentence) if c and _words(c)[:1] and _words(c)[0] not in _SUBORDINATORS]
        if any(_FRONTED.match(c) for c in main):
            found.append(sentence)
    return found


def check_fronted_emphasis(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N main clauses with a fronted object (Buku itu sudah saya baca)."""
    if _is_empty(items):
        return _EMPTY
    if ctx.compat == "head":  # the reference never recognises a fronted object
        return Verdict.of(n == 0, f"0 fronted-object sentences found, expected exactly {n}")
    return _exact(_fronted_sentences(_joined(items)), n, "fronted-object sentences")


RULES = [
    rule("check_indonesian_loanwords", _loanword_params, check_loanwords),
    rule("check_indonesian_loanwords_each", _loanword_each_params, check_loanwords_each),
    rule("check_indonesian_plurals", int_after_colon, check_plurals),
    rule("check_indonesian_negation_keyword", _negation_param, check_negation_keyword),
    rule("check_indonesian_abbreviations", _abbreviation_params, check_abbreviations),
    rule("check_se_usage", _optional_int, check_se_usage),
    rule("check_active_voice", int_after_colon, voice_checker(_active_verbs, "active me- verbs")),
    rule("check_passive_voice", int_after_colon, voice_checker(_passive_verbs, "passive di- verbs")),
    rule("check_exact_colloquial_count", int_after_colon, check_colloquial),
    rule("check_formal_honorifics", int_after_colon, check_honorifics),
    rule("check_polite_imperatives", int_after_colon, check_polite_imperatives),
    rule("check_si_usage", _exact_label("check_si_usage"), check_si_usage),
    rule("check_sang_usage", _exact_label("check_sang_usage"), _article_checker("sang")),
    rule("check_fronted_emphasis", int_after_colon, check_fronted_emphasis),
]

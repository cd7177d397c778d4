"""Russian rules: stress homographs, metre, time expressions, evaluative suffixes, number
pairs, derived words, agreement, gerunds, adjective forms.

Morphology comes from ``pymorphy3`` (maintained fork of pymorphy2, one analyser per
process). The reference predicts stress with a TensorFlow model (russtress); proseval does
not: stress comes from explicit marks (combining acute or one capitalised vowel), ё, a small
lexicon and suffix rules, and homograph readings from context cue words. Metre is checked
strictly (every strong position stressed, monosyllables free, as the prompts demand and the
reference does), so a pyrrhic foot or a word the heuristics mis-stress fails the line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from .base import ParameterError, RuleContext, Verdict
from .compat import crashes_under_head
from .params import int_after_colon, string_list_param
from .spec import Items, RuleSpec, rule
from .tokens import RUSSIAN_WORD, tokenizer
from .wordlists import word_list, word_table

ACUTE = "\u0301"
VOWELS = "аеёиоуыэюя"
_SENTENCE = re.compile(r"[^.!?…;\n]+")
_MORPHOLOGY = ("pymorphy3",)


@lru_cache(maxsize=1)
def _morph():
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


def plain(token: str) -> str:
    return token.replace(ACUTE, "").lower()


@lru_cache(maxsize=65536)
def parses(word: str) -> tuple:
    return tuple(_morph().parse(plain(word)))


tokens = tokenizer(RUSSIAN_WORD)


def sentences(items: Items) -> list[str]:
    return [s for item in items for s in _SENTENCE.findall(item) if s.strip()]


def _fields(label: str) -> list[str]:
    return [f.strip() for f in label.split(":")[1:]]


def _int(text: str, label: str) -> int:
    if not re.fullmatch(r"\d+", text):
        raise ParameterError(f"rule {label!r} needs an integer parameter")
    return int(text)


# ``head``: the reference checker crashes on every input of these families (its library
# manager lacks the morphology accessor), which the pipeline scores 0.
reference_crash = crashes_under_head("the reference checker crashes on this rule (scored as failed)")


# --- stress --------------------------------------------------------------------------


def _stress_lexicon(words: Iterable[str]) -> dict[str, int]:
    """Words written with their stressed vowel in upper case → index of that vowel."""
    table = {}
    for word in words:
        vowels = [c for c in word if c.lower() in VOWELS]
        table[word.lower().replace("ё", "е")] = next(i for i, c in enumerate(vowels) if c.isupper())
    return table


STRESS = _stress_lexicon(word_list("russian/stressed_words"))
_INFINITIVE = re.compile(r"(ать|ять|еть|ить|уть)$")
_SUFFIX_RULES: tuple[tuple[re.Pattern[str], bool], ...] = (
    # (ending, stress on the ending's first vowel?); otherwise on the vowel right before it
    (re.compile(r"(ние|ния|нию|нием|нии|ний|тие|тия|тию|тии|ция|ции|цию|цией)$"), False),
    (re.compile(r"[^аеёиоуыэюя](ия|ии|ию|ией)$"), False),
    (re.compile(r"(ость|ости|остью)$"), False),
    (re.compile(r"(ник|ника|нику|ником|нике|ники|ников|никам|никами|никах|тель|теля|тели|телей)$"), False),
    (re.compile(r"(ист|иста|исты|изм|изма)$"), True),
    (re.compile(r"(ться|тся)$"), False),
    (re.compile(r"(ые|ие|ая|яя|ое|ее|ую|юю|ою|ею|ыми|ими|ого|его|ому|ему)$"), False),
    (re.compile(r"(ый|ий|ых|их|ым|им|ой)$"), False),
)


def explicit_stress(word: str) -> int | None:
    """Stress written by the author: a combining acute after the vowel, or one capitalised
    vowel after the first letter (a capital first letter is ordinary capitalisation)."""
    seen = -1
    for c in word:
        if c == ACUTE:
            return max(seen, 0)
        seen += c.lower() in VOWELS
    body = word.replace(ACUTE, "")
    if body.isupper():
        return None
    vowels = [(k, i) for k, i in enumerate(i for i, c in enumerate(body) if c.lower() in VOWELS)]
    uppers = [k for k, i in vowels if i > 0 and body[i].isupper()]
    return uppers[0] if len(uppers) == 1 else None


def stress_index(word: str) -> int | None:
    """Index (among the vowels) of the stressed vowel; ``None`` for words without vowels.

    Explicit marks, ё, the lexicon, then suffix rules; otherwise the first syllable of a
    two-syllable word and the penultimate of a longer one.
    """
    low = plain(word)
    vowel_pos = [i for i, c in enumerate(low) if c in VOWELS]
    n = len(vowel_pos)
    if not n:
        return None
    marked = explicit_stress(word)
    if marked is not None:
        return min(marked, n - 1)
    if "ё" in low:
        return vowel_pos.index(low.index("ё"))
    if n == 1:
        return 0
    if low in STRESS:
        return STRESS[low]
    if low.startswith("вы") and re.search(r"(ть|ться|л|ла|ло|ли)$", low):
        return 0
    if _INFINITIVE.search(low):
        return n - 1
    for pattern, on_ending in _SUFFIX_RULES:
        match = pattern.search(low)
        if match:
            tail = sum(1 for c in match.group(0) if c in VOWELS)
            return max(n - tail - (0 if on_ending else 1), 0)
    return 0 if n == 2 else n - 2


# --- homographs told apart by stress ---------------------------------------------------

# word → (reading per stressed vowel index: cue word stems found in the same sentence)
HOMOGRAPHS: dict[str, dict[int, tuple[str, ...]]] = {
    word: {int(reading): tuple(cues) for reading, cues in readings.items()}
    for word, readings in word_table("russian/homograph_cues").items()
}


# word → reading → words that, right before it, decide the reading (noun after a preposition …)
HOMOGRAPH_PREVIOUS: dict[str, dict[int, frozenset[str]]] = {
    word: {int(reading): frozenset(previous) for reading, previous in readings.items()}
    for word, readings in word_table("russian/homograph_previous_words").items()
}


def cue_reading(word: str, sentence: list[str], at: int) -> int | None:
    """Reading decided by the word right before it, else by the cue stems of the sentence
    (a stem of up to three letters must match a whole word); a tie leaves it undecided."""
    previous = plain(sentence[at - 1]) if at else ""
    for reading, words in HOMOGRAPH_PREVIOUS.get(word, {}).items():
        if previous in words:
            return reading
    context = [plain(t) for k, t in enumerate(sentence) if k != at]
    hits = {
        r: sum(1 for t in context for stem in stems if t == stem or len(stem) > 3 and t.startswith(stem))
        for r, stems in HOMOGRAPHS.get(word, {}).items()
    }
    best = max(hits.values(), default=0)
    winners = [r for r, h in hits.items() if h == best]
    return winners[0] if best and len(winners) == 1 else None


def _parse_homograph(label: str) -> tuple[str, int]:
    fields = _fields(label)
    if len(fields) != 2 or not fields[0]:
        raise ParameterError(f"rule {label!r} needs <word>:<N>")
    return fields[0].lower(), _int(fields[1], label)


def check_stress_homonyms(params: tuple[str, int], items: Items, ctx: RuleContext) -> Verdict:
    """The word occurs with at least N different stress readings (explicit marks, else context cues)."""
    word, n = params
    if not items:
        return Verdict.fail("nothing was extracted")
    found, readings = 0, set()
    for sentence in sentences(items):
        toks = tokens(sentence)
        for k, tok in enumerate(toks):
            if plain(tok) != word:
                continue
            found += 1
            reading = explicit_stress(tok)
            reading = reading if reading is not None else cue_reading(word, toks, k)
            if reading is not None:
                readings.add(reading)
    if not found:
        return Verdict.fail(f"'{word}' does not occur")
    need = min(n, 2)
    return Verdict.of(
        len(readings) >= need,
        f"'{word}' occurs {found} times with {len(readings)} distinguishable stress reading(s), {need} required",
    )


# --- metre ---------------------------------------------------------------------------

METERS = {"хорей": (2, 0), "ямб": (2, 1), "дактиль": (3, 0), "амфибрахий": (3, 1), "анапест": (3, 2)}


def _parse_meter(label: str) -> str:
    name = (_fields(label) or [""])[0].lower()
    if name not in METERS:
        raise ParameterError(f"rule {label!r} names an unknown metre")
    return name


def line_marks(line: str) -> str:
    """One mark per syllable: ``S`` stressed, ``u`` unstressed, ``m`` monosyllable (free)."""
    marks = []
    for tok in tokens(line):
        n = sum(1 for c in plain(tok) if c in VOWELS)
        if n == 1:
            marks.append("m")
        elif n > 1:
            s = stress_index(tok)
            marks.append("".join("S" if i == s else "u" for i in range(n)))
    return "".join(marks)


def fits(marks: str, meter: str) -> bool:
    """Strict scheme: every strong position stressed (or a monosyllable), no stress elsewhere."""
    size, offset = METERS[meter]
    if "S" not in marks and "m" not in marks:
        return False
    return all((m != "u") if i % size == offset else (m != "S") for i, m in enumerate(marks))


def check_single_meter(meter: str, items: Items, ctx: RuleContext) -> Verdict:
    lines = [ln for item in items for ln in item.splitlines() if any(c in VOWELS for c in plain(ln))]
    if not lines:
        return Verdict.fail("no poem lines were extracted")
    marks = [line_marks(ln) for ln in lines]
    detected = [m for m in METERS if all(fits(mk, m) for mk in marks)]
    bad = [ln.strip() for ln, mk in zip(lines, marks) if not fits(mk, meter)]
    if meter in detected:
        return Verdict.ok(f"every line follows the {meter} scheme")
    what = f"detected {detected[0]}" if detected else "unknown or mixed metre"
    return Verdict.fail(f"{what}, expected {meter}; lines off the scheme: {bad[:3]}")


# --- time expressions ----------------------------------------------------------------

TIME_NOUNS = frozenset(word_list("russian/time_nouns"))
_CASES = {"4th": frozenset({"accs"}), "6th": frozenset({"loct", "loc2"})}
_PREPOSITIONS = {
    "4th": frozenset({"в", "во", "на", "через", "за", "под", "спустя"}),
    "6th": frozenset({"в", "во", "на", "при"}),
}
_MODIFIER_POS = frozenset({"ADJF", "PRTF", "NUMR"})


def _time_noun(word: str, cases: frozenset[str]) -> bool:
    """A time noun in one of the cases (среда counts as a weekday only in the accusative)."""
    return any(
        p.tag.POS == "NOUN"
        and p.normal_form in TIME_NOUNS
        and p.tag.case in cases
        and not (p.normal_form == "среда" and p.tag.case != "accs")
        for p in parses(word)
    )


def _modifier(word: str, cases: frozenset[str]) -> bool:
    return word.isdigit() or any(p.tag.POS in _MODIFIER_POS and p.tag.case in cases for p in parses(word))


def time_expressions(text: str, case: str) -> list[str]:
    """Preposition + up to three modifiers (adjectives, pronouns, numerals, digits) in the
    case + a time noun in the case: ``в эту субботу``, ``в 1945 году``, ``во время``."""
    cases, found = _CASES[case], []
    toks = tokens(text)
    for i, tok in enumerate(toks):
        if plain(tok) not in _PREPOSITIONS[case]:
            continue
        for j in range(i + 1, min(i + 5, len(toks))):
            if _time_noun(toks[j], cases):
                found.append(" ".join(toks[i : j + 1]))
                break
            if not _modifier(toks[j], cases):
                break
    return found


def time_case_checker(case: str):
    def check(n: int, items: Items, ctx: RuleContext) -> Verdict:
        if not "".join(items).strip():
            return Verdict.of(n == 0, f"no text; {n} time expressions required")
        found = [e for item in items for e in time_expressions(item, case)]
        return Verdict.of(
            len(found) == n, f"{len(found)} time expressions in the {case} case {found[:10]}, exactly {n} required"
        )

    return check


# --- evaluative suffixes -------------------------------------------------------------

_ALTERNATIONS = {"ч": ("к", "ц", "т"), "ш": ("х", "с"), "ж": ("г", "з", "д"), "щ": ("ст", "ск")}


def _parse_evaluative(label: str) -> tuple[int, list[str]]:
    fields = _fields(label)
    if len(fields) < 2:
        raise ParameterError(f"rule {label!r} needs N:[suffixes]")
    suffixes = [s.lower().strip("-") for s in string_list_param(label) if s.strip("-")]
    if not suffixes:
        raise ParameterError(f"rule {label!r} names no suffix")
    return _int(fields[0], label), suffixes


def _is_noun_base(base: str) -> bool:
    """A known noun form, possibly after undoing a consonant alternation or adding an ending."""
    if len(base) < 2:
        return False
    stems = {base} | {base[:-1] + alt for alt in _ALTERNATIONS.get(base[-1], ())}
    for stem in stems:
        for cand in (stem, stem + "а", stem + "о", stem + "ь", stem + "я"):
            if _morph().word_is_known(cand) and any(p.tag.POS == "NOUN" for p in parses(cand)):
                return True
    return False


def evaluative_lemma(token: str, suffix: str) -> str | None:
    """The noun's lemma when it ends in the suffix (plus a vowel ending) after a noun base."""
    for p in parses(token):
        if p.tag.POS != "NOUN":
            continue
        lemma = p.normal_form
        for ending in ("", "а", "о", "я"):
            tail = suffix + ending
            if lemma.endswith(tail) and _is_noun_base(lemma[: -len(tail)]):
                return lemma
        return None
    return None


def check_evaluative_nouns(params: tuple[int, list[str]], items: Items, ctx: RuleContext) -> Verdict:
    """At least N distinct nouns with the suffix (N = 0: none at all, ``head``: always met)."""
    n, suffixes = params
    found: list[str] = []
    for tok in (t for item in items for t in tokens(item)):
        for suffix in suffixes:
            lemma = evaluative_lemma(tok, suffix)
            if lemma and lemma not in found:
                found.append(lemma)
    what = f"{len(found)} nouns with the evaluative suffix {'/'.join(suffixes)} {found[:10]}"
    if n == 0 and ctx.compat == "fixed":
        return Verdict.of(not found, f"{what}, none allowed")
    return Verdict.of(len(found) >= n, f"{what}, at least {n} required")


# --- number-sensitive nouns ----------------------------------------------------------

# nouns whose plural has a meaning of its own (время → времена 'eras', бумага → бумаги 'documents')
SEMANTIC_PLURALS = frozenset(word_list("russian/semantic_plurals"))


def semantic_pairs(text: str) -> list[str]:
    """Lemmas used both in the singular and in an unambiguous plural form."""
    singular, plural = set(), set()
    for tok in tokens(text):
        for lemma in {p.normal_form for p in parses(tok)} & SEMANTIC_PLURALS:
            numbers = {p.tag.number for p in parses(tok) if p.normal_form == lemma and p.tag.POS == "NOUN"}
            if numbers == {"plur"}:
                plural.add(lemma)
            elif "sing" in numbers:
                singular.add(lemma)
    return sorted(singular & plural)


def check_semantic_pairs(n: int, items: Items, ctx: RuleContext) -> Verdict:
    if not "".join(items).strip():
        return Verdict.fail("nothing was extracted")
    counts = [semantic_pairs(item) for item in items]
    bad = [f"item {i}: {c}" for i, c in enumerate(counts, 1) if len(c) != n]
    return Verdict.of(
        not bad,
        f"every item needs exactly {n} singular/plural pairs of different meaning"
        + (f"; {'; '.join(bad)}" if bad else ""),
    )


# noun → regexes of its plural variants that differ in meaning
PLURAL_VARIANTS: dict[str, tuple[str, ...]] = {
    "лист": (r"листь(я|ев|ям|ями|ях)", r"лист(ы|ов|ам|ами|ах)"),
    "зуб": (r"зубь(я|ев|ям|ями|ях)", r"зуб(ы|ов|ам|ами|ах)"),
    "цвет": (r"цвет(ы|ов|ам|ами|ах)", r"цвет(а)"),
    "мех": (r"мех(а|ов|ам|ами|ах)", r"мех(и)"),
    "образ": (r"образ(ы|ов|ам|ами|ах)", r"образ(а|ов)"),
    "тон": (r"тон(ы)", r"тон(а)"),
    "пропуск": (r"пропуск(и)", r"пропуск(а)"),
    "корень": (r"корн(и|ей|ям|ями|ях)", r"корень(я|ев)"),
    "муж": (r"мужь(я|ей|ям|ями|ях)", r"муж(и|ей)"),
    "сын": (r"сыновь(я|ей|ям|ями|ях)", r"сын(ы|ов)"),
    "орден": (r"орден(а)", r"орден(ы)"),
    "провод": (r"провод(а)", r"провод(ы)"),
    "счёт": (r"сч[её]т(а)", r"сч[её]т(ы)"),
    "учитель": (r"учител(я)", r"учител(и)"),
    "лагерь": (r"лагер(я)", r"лагер(и)"),
    "хлеб": (r"хлеб(а)", r"хлеб(ы)"),
    "камень": (r"камн(и|ей|ям|ями|ях)", r"камень(я|ев)"),
    "повод": (r"повод(ы|ов)", r"поводь(я|ев)"),
    "корпус": (r"корпус(а)", r"корпус(ы)"),
    "тормоз": (r"тормоз(а)", r"тормоз(ы)"),
    "колено": (r"колен(и|ей)", r"колен(а)", r"коленьь?(я|ев)"),
}
_VARIANT_RE = {noun: tuple(re.compile(rf"^{v}$") for v in vs) for noun, vs in PLURAL_VARIANTS.items()}


def multiple_plural_nouns(text: str) -> list[str]:
    words = {plain(t) for t in tokens(text)}
    return [
        noun
        for noun, variants in _VARIANT_RE.items()
        if sum(1 for v in variants if any(v.match(w) for w in words)) >= 2
    ]


def check_multiple_plurals(n: int, items: Items, ctx: RuleContext) -> Verdict:
    if not items:
        return Verdict.fail("nothing was extracted")
    found = [multiple_plural_nouns(item) for item in items]
    bad = [f"item {i}: {f}" for i, f in enumerate(found, 1) if len(f) < n]
    return Verdict.of(
        not bad,
        f"every item needs {n} noun(s) with two plural forms of different meaning"
        + (f"; {'; '.join(bad)}" if bad else ""),
    )


# --- derived words -------------------------------------------------------------------

PREFIXES = word_list("russian/prefixes")
ROOTS: dict[str, tuple[str, ...]] = {
    "писать": ("пис", "пиш", "письм"),
    "читать": ("чит", "чт"),
    "брать": ("бра", "бир", "бор", "бер"),
    "ехать": ("ех", "езд", "езж"),
    "идти": ("йти", "ид", "шед", "шл", "ход", "хож"),
    "давать": ("да", "дач", "дан"),
    "ставить": ("став", "стан", "стал"),
    "носить": ("нос", "нош", "нес", "нёс"),
    "делать": ("дел",),
    "говорить": ("говор",),
}
_PREFIX_RE = "(?:" + "|".join(sorted(PREFIXES, key=len, reverse=True)) + ")ъ?"


def _roots(verb: str) -> tuple[str, ...]:
    if verb in ROOTS:
        return ROOTS[verb]
    stem = re.sub(r"(ать|ять|еть|ить|уть|ыть|оть|ти|ть|чь)(ся)?$", "", verb)
    return (stem[:-2] if stem.endswith("ва") and len(stem) > 4 else stem,)


_DERIVING_SUFFIX = "[аеияо]?(?:тель|ни|ка|ок|ец|чик|щик|лк|ун|ств|льн)"


@lru_cache(maxsize=64)
def _derived_pattern(verb: str) -> re.Pattern[str]:
    """Prefix(es) + root, or root + a derivational suffix."""
    roots = "|".join(map(re.escape, _roots(verb)))
    return re.compile(rf"^(?:(?:{_PREFIX_RE})+(?:{roots})|(?:{roots}){_DERIVING_SUFFIX})")


def _parse_verb_n(label: str) -> tuple[str, int]:
    fields = _fields(label)
    if len(fields) != 2 or not fields[0]:
        raise ParameterError(f"rule {label!r} needs <word>:<N>")
    return fields[0].lower(), _int(fields[1], label)


def derived_words(text: str, verb: str) -> list[str]:
    """Distinct known lemmas built on the verb's root with a prefix or a suffix (not the verb itself)."""
    pattern, found = _derived_pattern(verb), []
    for tok in tokens(text):
        word = plain(tok)
        if not _morph().word_is_known(word):
            continue
        lemma = parses(word)[0].normal_form
        if lemma != verb and pattern.match(lemma) and lemma not in found:
            found.append(lemma)
    return found


def check_derived_words(params: tuple[str, int], items: Items, ctx: RuleContext) -> Verdict:
    verb, n = params
    found = derived_words(" ".join(items), verb)
    return Verdict.of(
        bool(items) and len(found) >= n, f"{len(found)} words derived from '{verb}' {found[:10]}, at least {n} required"
    )


# --- agreement -----------------------------------------------------------------------

_SUBORDINATORS = frozenset(
    {
        "который",
        "которая",
        "которое",
        "которые",
        "которую",
        "которого",
        "которой",
        "которым",
        "что",
        "где",
        "когда",
        "если",
        "потому",
        "чтобы",
        "хотя",
        "пока",
    }
)
_PRONOUNS = frozenset({"я", "ты", "он", "она", "оно", "мы", "вы", "они"})


def _noun_features(noun: str) -> tuple[set[str], str]:
    """Genders a past verb may take with the noun (several for common/variable gender) and number."""
    p = next((p for p in parses(noun) if p.tag.POS == "NOUN"), None)
    if p is None:
        raise ParameterError(f"'{noun}' is not a known noun")
    if p.tag.number == "plur" or "Pltm" in p.tag:
        return set(), "plur"
    genders = {p.tag.gender} if p.tag.gender in ("masc", "femn", "neut") else {"masc", "femn", "neut"}
    if "Ms-f" in p.tag or "Fixd" in p.tag:
        genders |= {"neut"}
    return genders, "sing"


def _past_verb(word: str):
    return next((p for p in parses(word) if p.tag.POS == "VERB" and p.tag.tense == "past"), None)


def _agrees(p, genders: set[str], number: str) -> bool:
    return p.tag.number == number if number == "plur" else p.tag.number == "sing" and p.tag.gender in genders


def agreement_pairs(text: str, noun: str) -> tuple[list[str], list[str]]:
    """(agreeing, disagreeing) past-tense verbs of clauses whose subject is the noun.

    The subject is a nominative form of the noun; its verbs are the past-tense verbs after it
    in the same comma-separated segment, else in the first later segment that is not a
    subordinate clause, up to another pronoun subject. A verb right before the noun counts only when it agrees.
    """
    genders, number = _noun_features(noun)
    good: list[str] = []
    bad: list[str] = []
    for sentence in _SENTENCE.findall(text):
        segments = [tokens(s) for s in sentence.split(",")]
        for si, seg in enumerate(segments):
            for k, tok in enumerate(seg):
                if not any(p.normal_form == noun and p.tag.case == "nomn" for p in parses(tok)):
                    continue
                verbs = _segment_verbs(seg[k + 1 :])
                for later in segments[si + 1 :]:
                    if verbs:
                        break
                    if later and plain(later[0]) not in _SUBORDINATORS:
                        verbs = _segment_verbs(later)
                if not verbs and k and (p := _past_verb(seg[k - 1])) and _agrees(p, genders, number):
                    verbs = [(seg[k - 1], p)]
                for word, p in verbs:
                    (good if _agrees(p, genders, number) else bad).append(plain(word))
    return good, bad


def _segment_verbs(seg: list[str]) -> list:
    verbs = []
    for tok in seg:
        if plain(tok) in _PRONOUNS or plain(tok) in _SUBORDINATORS:
            break
        if p := _past_verb(tok):
            verbs.append((tok, p))
    return verbs


def check_gender_agreement(params: tuple[str, int], items: Items, ctx: RuleContext) -> Verdict:
    """At least N past-tense verbs agree with the noun as subject, and none disagrees."""
    noun, n = params
    if ctx.compat == "head":
        return Verdict.fail("the reference checker cannot parse this rule (scored as failed)")
    try:
        good, bad = agreement_pairs(" ".join(items), noun)
    except ParameterError as exc:
        return Verdict.undecidable(str(exc))
    ok = len(good) >= n and not bad
    return Verdict.of(
        ok,
        f"past-tense verbs agreeing with '{noun}': {good[:10]}; disagreeing: {bad[:10]}; "
        f"at least {n} agreeing and none disagreeing required",
    )


# --- verbs: inflections, gerunds, temporal relation -----------------------------------

ASPECT_PARTNERS = {"возвращаться": ("вернуться",), "отдыхать": ("отдохнуть",), "говорить": ("сказать",)}


def _is_form_of(lemma: str, verb: str) -> bool:
    """The lemma is the verb, a suppletive aspect partner, or the verb's stem with prefixes
    and an optional imperfectivising suffix (пить → выпить, попивать; читать → прочитывать)."""
    if lemma == verb or lemma in ASPECT_PARTNERS.get(verb, ()):
        return True
    reflexive = "ся" if verb.endswith("ся") else ""
    stem = re.sub(r"(ать|ять|еть|ить|ть|ти)(ся)?$", "", verb)
    return (
        re.fullmatch(rf"(?:{_PREFIX_RE})+{re.escape(stem)}(?:ыв|ив|в)?(?:ать|ять|еть|ить|ть|ти){reflexive}", lemma)
        is not None
    )


def _verb_forms(text: str, verb: str) -> list[tuple[int, str]]:
    """(token index, POS) of every form of the verb (finite, infinitive, gerund, participle)."""
    out = []
    for i, tok in enumerate(tokens(text)):
        for p in parses(tok):
            if p.tag.POS in ("VERB", "INFN", "GRND", "PRTF", "PRTS") and _is_form_of(p.normal_form, verb):
                out.append((i, p.tag.POS))
                break
    return out


def check_keyword_inflections(verbs: list[str], items: Items, ctx: RuleContext) -> Verdict:
    """Every item holds every keyword in some form."""
    if not items:
        return Verdict.fail("nothing was extracted")
    bad = [
        f"item {i} lacks {miss}"
        for i, item in enumerate(items, 1)
        if (miss := [v for v in verbs if not _verb_forms(item, v)])
    ]
    return Verdict.of(not bad, "; ".join(bad) if bad else f"every item uses {verbs}")


def _parse_two_verbs(label: str) -> tuple[str, str]:
    fields = _fields(label)
    if len(fields) != 2 or not all(fields):
        raise ParameterError(f"rule {label!r} needs <verb1>:<verb2>")
    return fields[0].lower(), fields[1].lower()


def gerund_ok(text: str, verbs: tuple[str, str]) -> bool:
    """One verb as a gerund, set off by a comma after a finite/infinitive form of the other."""
    comma_before = _comma_positions(text)
    for a, b in (verbs, verbs[::-1]):
        gerunds = [i for i, pos in _verb_forms(text, a) if pos == "GRND"]
        mains = [i for i, pos in _verb_forms(text, b) if pos in ("VERB", "INFN")]
        if any(m < g and any(m < c <= g for c in comma_before) for g in gerunds for m in mains):
            return True
    return False


def _comma_positions(text: str) -> list[int]:
    """Token indices that a comma precedes."""
    positions, count = [], 0
    for piece in text.split(","):
        count += len(tokens(piece))
        positions.append(count)
    return positions[:-1]


def check_participle_usage(verbs: tuple[str, str], items: Items, ctx: RuleContext) -> Verdict:
    if not items:
        return Verdict.fail("nothing was extracted")
    bad = [i for i, item in enumerate(items, 1) if not gerund_ok(item, verbs)]
    return Verdict.of(
        not bad,
        f"items without a gerund of one of {list(verbs)} closing the sentence after the other verb: {bad}"
        if bad
        else "the gerund phrase closes every sentence",
    )


RELATIONS = {"одновременн": "simultaneous", "хронологическ": "sequential", "последовательн": "sequential"}
_SEQUENCE_MARKERS = ("потом", "затем", "после", "сначала", "наконец", "впоследствии")
_SIMULTANEITY_MARKERS = ("пока", "одновременно", "тем временем", "в то время как", "в то же время")


def _parse_relation(label: str) -> str:
    text = ":".join(_fields(label)).lower()
    for stem, relation in RELATIONS.items():
        if stem in text:
            return relation
    raise ParameterError(f"rule {label!r} names an unknown verb relation")


def temporal_relation(text: str) -> str | None:
    """Gerund aspect, else explicit markers, else the aspect shared by the finite verbs."""
    low = text.lower()
    aspects: dict[str, set[str]] = {"GRND": set(), "VERB": set()}
    for tok in tokens(text):
        p = parses(tok)[0]
        if p.tag.POS in aspects and p.tag.aspect:
            aspects[p.tag.POS].add(p.tag.aspect)
    if len(aspects["GRND"]) == 1:
        return "sequential" if aspects["GRND"] == {"perf"} else "simultaneous"
    if any(re.search(rf"\b{m}\b", low) for m in _SIMULTANEITY_MARKERS):
        return "simultaneous"
    if any(re.search(rf"\b{m}\b", low) for m in _SEQUENCE_MARKERS):
        return "sequential"
    if len(aspects["VERB"]) == 1:
        return "sequential" if aspects["VERB"] == {"perf"} else "simultaneous"
    return None


def check_temporal_relation(relation: str, items: Items, ctx: RuleContext) -> Verdict:
    if not items:
        return Verdict.fail("nothing was extracted")
    found = [temporal_relation(item) for item in items]
    return Verdict.of(all(f == relation for f in found), f"verb relations {found}, {relation} required")


# --- adjective forms -----------------------------------------------------------------


def _parse_adjective_type(label: str) -> tuple[str, int]:
    fields = _fields(label)
    if len(fields) != 2 or fields[0].lower() not in ("short", "long"):
        raise ParameterError(f"rule {label!r} needs short|long:<N>")
    return fields[0].lower(), _int(fields[1], label)


_NOT_SHORT = frozenset({"ADVB", "PRED", "CONJ", "PRCL", "PREP", "VERB"})


def adjectives(text: str, kind: str) -> list[str]:
    """Short adjectives (any short-adjective reading, no adverb reading) or long qualitative
    adjectives (best reading is a full adjective, pronominal and ordinal ones excluded)."""
    out = []
    for tok in tokens(text):
        ps = parses(tok)
        if not ps:
            continue
        if kind == "short":
            hit = any(p.tag.POS == "ADJS" for p in ps) and not any(p.tag.POS in _NOT_SHORT for p in ps)
        else:
            hit = ps[0].tag.POS == "ADJF" and not ({"Apro", "Anum"} & set(map(str, ps[0].tag.grammemes)))
        if hit:
            out.append(plain(tok))
    return out


def check_adjective_type(params: tuple[str, int], items: Items, ctx: RuleContext) -> Verdict:
    kind, n = params
    found = [a for item in items for a in adjectives(item, kind)]
    return Verdict.of(len(found) == n, f"{len(found)} {kind} adjectives {found[:10]}, exactly {n} required")


def _morph_rule(prefix: str, parse, check) -> RuleSpec:
    return rule(prefix, parse, check, requires=_MORPHOLOGY, extra="meeseeks")


RULES = [
    rule("rus_stress_homonym_usage", _parse_homograph, check_stress_homonyms),
    rule("detect_russian_single_meter", _parse_meter, check_single_meter),
    _morph_rule("detect_russian_evaluative_nouns_contextual", _parse_evaluative, check_evaluative_nouns),
    _morph_rule("detect_russian_time_expression_4th_case", int_after_colon, time_case_checker("4th")),
    _morph_rule("detect_russian_time_expression_6th_case", int_after_colon, time_case_checker("6th")),
    _morph_rule("detect_russian_singular_plural_semantic_pairs", int_after_colon, check_semantic_pairs),
    rule("detect_russian_multiple_plural_forms_enhanced", int_after_colon, reference_crash(check_multiple_plurals)),
    _morph_rule("check_russian_derived_words", _parse_verb_n, reference_crash(check_derived_words)),
    _morph_rule("check_russian_gender_agreement", _parse_verb_n, check_gender_agreement),
    _morph_rule("check_russian_participle_usage", _parse_two_verbs, reference_crash(check_participle_usage)),
    _morph_rule(
        "check_keyword_inflections_each",
        lambda label: [v.lower() for v in string_list_param(label)],
        reference_crash(check_keyword_inflections),
    ),
    _morph_rule("check_russian_verb_temporal_relation", _parse_relation, reference_crash(check_temporal_relation)),
    _morph_rule("russian_adjective_type_count", _parse_adjective_type, reference_crash(check_adjective_type)),
]

"""Arabic morphology rules: duals, plurals, the article, pronouns, verbs, gender, iḍāfa.

The reference used the CAMeL Tools morphology database, which cannot be installed offline,
so no official verdicts exist for these families. proseval uses transparent orthographic
heuristics instead: clitic and article stripping, suffix shapes, vowel marks (tashkīl) when
the text carries them, broken-plural templates and small curated lexicons. Every count is
a number of word tokens (distinct pronoun types for the pronoun rules).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from .base import ParameterError, RuleContext, Verdict
from .compat import crashes_under_head
from .params import list_param, range_param
from .spec import Items, rule
from .tokens import ARABIC_MARKS, ARABIC_WORD
from .wordlists import word_list

_MARK = re.compile(f"[{ARABIC_MARKS}]")
_VARIANT_LETTERS = str.maketrans({"\u0671": "ا", "ی": "ي", "ک": "ك"})
_KEY = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ى": "ي"})

FATHA, DAMMA, KASRA, SUKUN, SHADDA = "\u064e", "\u064f", "\u0650", "\u0652", "\u0651"
TANWEEN = frozenset("\u064b\u064c\u064d")
SHORT_VOWELS = frozenset((FATHA, DAMMA, KASRA, SUKUN))
WEAK_FINALS = frozenset("اويى")


def key(word: str) -> str:
    """Lookup key: hamza seats and alif maqṣūra folded (lexicons and words compare on it)."""
    return word.translate(_KEY)


def _lexicon(words: Iterable[str]) -> frozenset[str]:
    return frozenset(key(w) for w in words)


PRONOUN_TYPES = {
    key(w): t
    for w, t in (
        ("أنا", "1s"),
        ("نحن", "1p"),
        ("أنت", "2s"),
        ("أنتما", "2d"),
        ("أنتم", "2mp"),
        ("أنتن", "2fp"),
        ("هو", "3ms"),
        ("هي", "3fs"),
        ("هما", "3d"),
        ("هم", "3mp"),
        ("هن", "3fp"),
    )
}
PRONOUN_NAMES = {
    "1s": "أنا",
    "1p": "نحن",
    "2s": "أنت",
    "2ms": "أنتَ",
    "2fs": "أنتِ",
    "2d": "أنتما",
    "2mp": "أنتم",
    "2fp": "أنتن",
    "3ms": "هو",
    "3fs": "هي",
    "3d": "هما",
    "3mp": "هم",
    "3fp": "هن",
}
# Words spelt with a leading ال that is not the article (relatives, fossilised forms, والد…).
NOT_ARTICLE = _lexicon(word_list("arabic/not_article"))
NON_DUAL = _lexicon(word_list("arabic/non_dual"))
DUAL_WITH_Y = _lexicon("يدان يدين يومان يومين ينبوعان ينبوعين".split())
NON_PLURAL_UN = _lexicon(word_list("arabic/non_plural_un"))
HOLLOW_N_VERBS = _lexicon("يكون يبين يعين يزين يصون يخون يهون يلين يدين يحين يمون يشين".split())
Y_NOUNS = _lexicon(word_list("arabic/y_nouns"))
FEMININE_BARE = _lexicon(word_list("arabic/feminine_bare"))
NOT_FEM_AT = _lexicon("نبات ثبات سبات فتات بيات".split())
MASDAR_NOT_AT_PLURAL = re.compile(r"^أ..ات$")
_T_SUFFIXED = re.compile(r"^(..+ت)(?:ي|ك|ه|ها|هم|هما|هن|كم|كما|كن|نا)$")
MASCULINE_T = _lexicon("بيت وقت صوت موت زيت سبت نبت كبريت تابوت ياقوت عفريت ملكوت جبروت".split())
# Function words never counted as masculine or feminine nouns in the gender ratio.
_PREPOSITIONS = "ل ب ك في من عن مع على إلى لدى عند تحت فوق أمام خلف بين حول دون بعد قبل".split()
_SUFFIXES = "ه ها هم هما هن ك كم كما كن ي نا".split()
FUNCTION_WORDS = _lexicon([*word_list("arabic/function_words"), *(p + s for p in _PREPOSITIONS for s in _SUFFIXES)])
COMMON_VERBS = _lexicon(word_list("arabic/common_verbs"))
# Broken plurals of the templates the shape patterns below cannot see (fuʿūl, fiʿāl, fuʿul, fuʿʿāl…).
BROKEN_PLURALS = _lexicon(word_list("arabic/broken_plurals"))
NOT_BROKEN = _lexicon(word_list("arabic/not_broken"))


@dataclass(frozen=True)
class Word:
    """One Arabic token: its letters (``bare``), the marks on each letter, and whether
    punctuation or a non-Arabic token separates it from the previous word (``gap``)."""

    bare: str
    marks: tuple[str, ...]
    gap: bool

    @property
    def voweled(self) -> bool:
        return any(self.marks)

    def mark(self, i: int) -> str:
        return self.marks[i] if -len(self.marks) <= i < len(self.marks) else ""


def words(item: str) -> list[Word]:
    """Arabic tokens of ``item``; tatweel is dropped, vowel marks are kept per letter."""
    found, last = [], 0
    for m in ARABIC_WORD.finditer(item.translate(_VARIANT_LETTERS)):
        letters: list[str] = []
        marks: list[str] = []
        for ch in m.group().replace("\u0640", ""):
            if _MARK.match(ch):
                if marks:
                    marks[-1] += ch
            else:
                letters.append(ch)
                marks.append("")
        if letters:
            found.append(Word("".join(letters), tuple(marks), bool(item[last : m.start()].strip())))
        last = m.end()
    return found


def article(word: str) -> tuple[str, str] | None:
    """(proclitics, stem) when ``word`` carries the article ال (also وال فال بال كال لل وبال …)."""
    if key(word) in NOT_ARTICLE or key(word[:4]) == "والد":
        return None
    for pre in ("", "و", "ف"):
        for prep in ("", "ب", "ك", "ل"):
            head = pre + prep
            if not word.startswith(head):
                continue
            rest = word[len(head) :]
            if prep == "ل" and rest.startswith("ل") and len(rest) >= 3:
                return head, rest[1:]
            if rest.startswith("ال") and len(rest) >= 4 and key(rest) not in NOT_ARTICLE:
                return head, rest[2:]
    return None


def variants(word: str) -> list[str]:
    """The word, its article-less stem, and the stem without one leading clitic (و ف ب ك ل)."""
    found = article(word)
    stem = found[1] if found else word
    out = [word, stem] if stem != word else [word]
    if not found and stem[:1] in "وفبكل" and len(stem) >= 4:
        out.append(stem[1:])
    return out


def is_definite(w: Word) -> bool:
    return article(w.bare) is not None


# --- duals and sound masculine plurals ---------------------------------------------------


def is_dual(w: Word) -> bool:
    """Ends in -ān / -ayn (tān/tayn for tā' marbūṭa nouns) and is not a known non-dual word."""
    found = article(w.bare)
    stem = found[1] if found else w.bare
    if not stem.endswith(("ان", "ين")) or len(stem) < 4:
        return False
    vs = variants(w.bare)
    keys = {key(v) for v in vs}
    if keys & NON_DUAL:
        return False
    if not found and not keys & DUAL_WITH_Y and len(_imperfect_stem(w) or "") >= 5:
        return False  # يحبان، سيعملان: dual verbs
    if set(w.mark(-1)) & (TANWEEN | {FATHA, DAMMA}):
        return False  # -ūna / -īna plurals and singular nouns carry fatḥa, ḍamma or tanwīn on the nūn
    return not (stem.endswith("ين") and KASRA in w.mark(-3))  # -ِين is a plural


def is_masc_plural_nominative(w: Word) -> bool:
    """Ends in -ūn (sound masculine plural, nominative), not a verb or a singular in -ūn."""
    found = article(w.bare)
    stem = found[1] if found else w.bare
    if not stem.endswith("ون") or len(stem) < 5:
        return False
    if {key(v) for v in variants(w.bare)} & NON_PLURAL_UN:
        return False
    if len(stem) == 5 and stem[0] == "م" and stem[3] == "و":
        return False  # مسجون، مجنون: singular mafʿūl of roots ending in nūn
    if not found and any(v.startswith("ي") or (v.startswith("ت") and not v.endswith("يون")) for v in variants(w.bare)):
        return False  # يلعبون، تلعبون: plural verbs
    return not set(w.mark(-1)) & (TANWEEN | {DAMMA, KASRA})


# --- pronouns and verbs ------------------------------------------------------------------


def pronoun_type(w: Word) -> str | None:
    """Person/number/gender of an independent pronoun (after و / ف); أنت split by its vowel."""
    for drop in (0, 1):
        if drop and w.bare[:1] not in "وف":
            continue
        kind = PRONOUN_TYPES.get(key(w.bare[drop:]))
        if kind is None or (drop and SUKUN in w.mark(1)):
            continue  # فَهْم, وَهْم are nouns
        if kind == "2s":
            last = w.mark(-1)
            kind = "2ms" if FATHA in last else "2fs" if KASRA in last else "2s"
        return kind
    return None


def pronoun_types(ws: Iterable[Word]) -> set[str]:
    kinds = {k for w in ws if (k := pronoun_type(w))}
    if kinds & {"2ms", "2fs"}:
        kinds.discard("2s")
    return kinds


def _imperfect_stem(w: Word) -> str | None:
    """The word without و/ف and سـ/لـ when what remains starts with the prefix يـ."""
    for pre in ("", "و", "ف", "س", "ل", "وس", "فس", "ول", "فل"):
        if w.bare.startswith(pre + "ي") and len(w.bare) - len(pre) >= (4 if pre else 3):
            return w.bare[len(pre) :]
    return None


def ptm_verb(w: Word) -> tuple[bool, bool]:
    """(is a present 3rd-person masculine singular verb, carries its final vowel mark)."""
    stem = _imperfect_stem(w)
    if stem is None or article(w.bare) or stem.endswith(("ة", "ات")) or {key(stem), key(w.bare)} & Y_NOUNS:
        return False, False
    if stem.endswith(("ون", "ان", "ين", "وا")) and key(stem) not in HOLLOW_N_VERBS:
        return False, False  # plural / dual / 2nd fem. forms
    if stem.endswith("ن") and SUKUN in w.mark(-2):
        return False, False  # يَكْتُبْنَ: feminine plural
    final = set(w.mark(-1))
    if final & TANWEEN:
        return False, False  # a noun
    return True, bool(final & SHORT_VOWELS) or (w.bare[-1] in WEAK_FINALS and w.voweled)


# --- gender ------------------------------------------------------------------------------


def is_feminine(stem: str) -> bool:
    """tā' marbūṭa, a sound feminine plural in -āt, or an inherently feminine noun/adjective."""
    if stem.endswith("ة") or key(stem) in FEMININE_BARE:
        return True
    if (m := _T_SUFFIXED.match(stem)) and key(m.group(1)) not in MASCULINE_T:
        return True  # دعوتكم، ابنتنا: ة written ت before a possessive suffix
    return (
        stem.endswith("ات")
        and len(stem) >= 4
        and key(stem) not in NOT_FEM_AT
        and (not MASDAR_NOT_AT_PLURAL.match(stem) or stem == "أمهات")
    )


def feminine_indefinite(w: Word) -> bool:
    """Ends in ة, no article, and the ة carries tanwīn (or no mark; a plain vowel means annexed)."""
    if article(w.bare) or not w.bare.endswith("ة") or len(w.bare) < 3:
        return False
    final = set(w.mark(-1))
    return bool(final & TANWEEN) or not final & SHORT_VOWELS


def feminine_definite(w: Word) -> bool:
    found = article(w.bare)
    return found is not None and is_feminine(found[1])


def is_verb_like(w: Word) -> bool:
    """Conservative verb guess for the gender ratio (which does not count verbs)."""
    if article(w.bare) or set(w.mark(-1)) & TANWEEN or w.bare.endswith("ة"):
        return False
    if {key(v) for v in variants(w.bare)} & COMMON_VERBS or ptm_verb(w)[0]:
        return True
    bare = w.bare[1:] if w.bare[:1] in "وف" and len(w.bare) > 4 else w.bare
    return bare[:1] in "يتنأ" and len(bare) >= 5 and bare.endswith(("كم", "كما", "وا", "ون", "ونا", "وني"))


def gender_counts(ws: Iterable[Word]) -> tuple[int, int]:
    """(feminine, masculine) nominal words; function words and likely verbs are skipped."""
    fem = masc = 0
    for w in ws:
        vs = variants(w.bare)
        if {key(v) for v in vs} & FUNCTION_WORDS or len(vs[-1]) < 2 or is_verb_like(w):
            continue
        if any(is_feminine(v) for v in vs):
            fem += 1
        else:
            masc += 1
    return fem, masc


# --- broken plurals and iḍāfa ------------------------------------------------------------

_BROKEN_SHAPES = (
    re.compile(r"^..ا.ي[^ة]$"),  # mafāʿīl, faʿālīl, afāʿīl: مفاتيح، عصافير، أساليب
    re.compile(r"^[^تيا].ا.[^ةيى]$"),  # mafāʿil, fawāʿil, faʿāʾil, faʿālil: مدارس، شوارع، رسائل
    re.compile(r"^..ا.ى$"),  # faʿālā: صحارى، فتاوى
    re.compile(r"^(?:[مأ].|.[وي])ا.ي$"),  # faʿālī: معاني، أغاني، ليالي
    re.compile(r"^أ..ا.$"),  # afʿāl: أقلام، أطفال
    re.compile(r"^أ...ة$"),  # afʿila: أسئلة، أجهزة
    re.compile(r"^[^إا]..اء$"),  # fuʿalāʾ: علماء، وزراء
    re.compile(r"^أ...اء$"),  # afʿilāʾ: أصدقاء، أقرباء
)


def is_broken_plural(w: Word) -> bool:
    """In the curated list, or shaped like a broken-plural template (vowel marks rule out
    mafāʿil-shaped form-III participles such as مُسافِر and sound plurals such as فَنّانين)."""
    vs = variants(w.bare)
    keys = {key(v) for v in vs}
    if keys & BROKEN_PLURALS:
        return True
    if keys & NOT_BROKEN:
        return False
    for v in vs:
        if not any(p.match(v) for p in _BROKEN_SHAPES):
            continue
        start = len(w.bare) - len(v)
        if v[0] == "م" and DAMMA in w.mark(start):
            continue
        if v.endswith(("ين", "ون")) and SHADDA in w.mark(start + 1):
            continue
        return True
    return False


PRONOUN_SUFFIXES = ("ها", "هم", "هما", "هن", "كم", "كما", "كن")


def idafa_count(ws: list[Word]) -> int:
    """Definite iḍāfa chains: article-less nouns (no tanwīn) followed by a noun with the article
    (or with a possessive suffix). مفتاح باب البيت is one chain."""
    count = chain = 0
    for w in ws:
        if w.gap:
            chain = 0
        found = article(w.bare)
        if found is not None:
            count += chain > 0 and found[0] == ""
            chain = 0
        elif key(w.bare) in FUNCTION_WORDS or len(w.bare) < 2 or set(w.mark(-1)) & TANWEEN:
            chain = 0
        elif chain and w.bare.endswith(PRONOUN_SUFFIXES) and len(w.bare) >= 4:
            count += 1
            chain = 0
        else:
            chain += 1
    return count


# --- checkers ----------------------------------------------------------------------------


def _bounds(label: str) -> tuple[int, int]:
    low, high = range_param(label)
    return int(low), int(high)


def _in(n: int, bounds: tuple[int, int]) -> bool:
    return bounds[0] <= n <= bounds[1]


def _expect(bounds: tuple[int, int]) -> str:
    low, high = bounds
    return f"exactly {low}" if low == high else f"between {low} and {high}"


def _found(matched: list[str]) -> str:
    return f" ({', '.join(matched[:12])}{', …' if len(matched) > 12 else ''})" if matched else ""


def matching(pred: Callable[[Word], bool]) -> Callable[[list[Word]], list[str]]:
    return lambda ws: [w.bare for w in ws if pred(w)]


def heads(pred: Callable[[Word], bool]) -> Callable[[list[Word]], list[str]]:
    """Words matching ``pred``, except one right after another match (no punctuation, no و/ف):
    Arabic adjectives follow their noun and agree with it, so مهندسَين ماهرَين, مدينةٌ جميلةٌ
    and البيت الكبير each count once."""

    def find(ws: list[Word]) -> list[str]:
        found, previous = [], False
        for w in ws:
            hit = pred(w)
            if hit and not (previous and not w.gap and w.bare[0] not in "وف"):
                found.append(w.bare)
            previous = hit
        return found

    return find


Measure = Callable[[list[Word]], tuple[int, str]]


def counter(measure: Measure, unit: str, *, total: bool):
    """Checker bounding ``measure`` (a count and what was found) over all items together
    (``total``) or in every item."""

    def check(bounds: tuple[int, int], items: Items, ctx: RuleContext) -> Verdict:
        if total:
            n, found = measure([w for item in items for w in words(item)])
            return Verdict.of(_in(n, bounds), f"{n} {unit}{found}, expected {_expect(bounds)}")
        if not items:
            return Verdict.fail(f"no items; each needs {_expect(bounds)} {unit}")
        bad = [
            f"item {i}: {n}{found}"
            for i, item in enumerate(items, 1)
            if not _in((r := measure(words(item)))[0], bounds)
            for n, found in [r]
        ]
        return Verdict.of(not bad, f"each item needs {_expect(bounds)} {unit}" + (f"; {'; '.join(bad)}" if bad else ""))

    return check


def tokens(find: Callable[[list[Word]], list[str]]) -> Measure:
    return lambda ws: (len(m := find(ws)), _found(m))


def pronoun_measure(ws: list[Word]) -> tuple[int, str]:
    kinds = sorted(pronoun_types(ws))
    return len(kinds), _found([PRONOUN_NAMES[k] for k in kinds])


def ptm_measure(ws: list[Word]) -> tuple[int, str]:
    """Only verbs carrying their final vowel mark count; the others are reported."""
    marked: list[str] = []
    unmarked: list[str] = []
    for w in ws:
        verb, final = ptm_verb(w)
        if verb:
            (marked if final else unmarked).append(w.bare)
    note = f"; {len(unmarked)} more lack their final vowel mark{_found(unmarked)}" if unmarked else ""
    return len(marked), _found(marked) + note


# The reference crashes before counting (UnboundLocalError on ``ast``); ``head`` reproduces it.
_head_unbound = crashes_under_head("the reference implementation cannot run this check (UnboundLocalError)")


def _ratio(label: str) -> tuple[int, int]:
    values = list_param(label)
    if len(values) != 2 or not all(isinstance(v, int) and v >= 0 for v in values) or values == [0, 0]:
        raise ParameterError(f"rule {label!r} needs a [feminine, masculine] ratio of non-negative integers")
    return values[0], values[1]


def check_gender_ratio(ratio: tuple[int, int], items: Items, ctx: RuleContext) -> Verdict:
    """feminine : masculine nominal words == a : b over all items (verbs and function words excluded)."""
    fem, masc = gender_counts(w for item in items for w in words(item))
    ok = fem + masc > 0 and fem * ratio[1] == masc * ratio[0]
    return Verdict.of(ok, f"{fem} feminine : {masc} masculine words, expected {ratio[0]} : {ratio[1]}")


PTM = "present 3rd-person masculine singular verbs"
PRONOUNS = "distinct independent pronouns"
_FAMILIES: tuple[tuple[str, Measure, str], ...] = (
    ("arabic_dual_noun", tokens(heads(is_dual)), "dual nouns"),
    ("arabic_definite_article", tokens(heads(is_definite)), "nouns with the article ال"),
    ("ar_independent_pronoun", pronoun_measure, PRONOUNS),
    ("arabic_ptm_verb", ptm_measure, PTM),
)


def _rule(name: str, measure: Measure, unit: str, total: bool, wrap=lambda c: c):
    return rule(name, _bounds, wrap(counter(measure, unit, total=total)))


RULES = [
    *(
        _rule(f"{prefix}_{scope}", measure, unit, scope == "total")
        for prefix, measure, unit in _FAMILIES
        for scope in ("total", "each")
    ),
    _rule(
        "athlete_masc_plural_each",
        tokens(matching(is_masc_plural_nominative)),
        "nominative sound masculine plurals (-ūn)",
        False,
    ),
    _rule("arabic_broken_plurals_each", tokens(matching(is_broken_plural)), "broken plurals", False),
    _rule(
        "arabic_idafa_structure_each",
        lambda ws: (idafa_count(ws), ""),
        "definite iḍāfa structures (noun + definite noun)",
        False,
    ),
    _rule(
        "arabic_feminine_indefinite_total",
        tokens(heads(feminine_indefinite)),
        "indefinite feminine nouns in ة",
        True,
        _head_unbound,
    ),
    _rule(
        "arabic_feminine_definite_total",
        tokens(heads(feminine_definite)),
        "definite feminine nouns",
        True,
        _head_unbound,
    ),
    rule("arabic_gender_ratio_total", _ratio, check_gender_ratio),
]

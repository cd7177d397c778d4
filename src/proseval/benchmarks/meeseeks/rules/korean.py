"""Korean rules: tense initial consonants, initial-consonant abbreviations, rhyme."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from .. import text
from .base import ParameterError, RuleContext, Verdict
from .params import after_colon, int_after_colon
from .spec import Items, no_params, rule

INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
TENSE_INITIALS = frozenset("ㄲㄸㅃㅆㅉ")
RHYME_SHARE = Fraction(1, 2)


def decompose(syllable: str) -> tuple[str, int, int] | None:
    """(initial jamo, vowel index, final index) of a Hangul syllable, else None."""
    code = ord(syllable) - 0xAC00
    if not 0 <= code < 11172:
        return None
    return INITIALS[code // 588], (code % 588) // 28, code % 28


def tense_syllables(item: str, ctx: RuleContext) -> list[str]:
    """Syllables whose initial consonant is tense (ㄲ ㄸ ㅃ ㅆ ㅉ); bare jamo do not count."""
    return [s for s in text.cjk_clean(item, ctx.compat) if (d := decompose(s)) and d[0] in TENSE_INITIALS]


def check_double_consonants(n: int, items: Items, ctx: RuleContext) -> Verdict:
    total = sum(len(tense_syllables(i, ctx)) for i in items)
    return Verdict.of(total == n, f"{total} tense-initial syllables, expected {n}")


def check_each_double_consonants(n: int, items: Items, ctx: RuleContext) -> Verdict:
    bad = [f"item {i}: {c}" for i, item in enumerate(items, 1) if (c := len(tense_syllables(item, ctx))) != n]
    return Verdict.of(not bad, f"every item needs {n} tense-initial syllables" + (f"; {', '.join(bad)}" if bad else ""))


def _abbreviation(label: str) -> str:
    initials = after_colon(label).strip()
    if not initials or any(c not in INITIALS for c in initials):
        raise ParameterError(f"rule {label!r} needs initial consonants (ㄱ…ㅎ)")
    return initials


def check_korean_abbreviation(initials: str, items: Items, ctx: RuleContext) -> Verdict:
    """Every item is exactly one syllable per given initial consonant, in order."""
    bad = []
    for item in items:
        syllables = text.cjk_clean(item, ctx.compat)
        heads = "".join(d[0] if (d := decompose(s)) else "?" for s in syllables)
        if heads != initials:
            bad.append(item)
    return Verdict.of(not bad, f"items not matching {initials}: {bad}" if bad else f"every item matches {initials}")


def check_kor_yayun(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """More than half of the lines end in a syllable with the same vowel and final consonant."""
    rhymes = []
    for item in items:
        cleaned = text.cjk_clean(item, ctx.compat)
        last = decompose(cleaned[-1]) if cleaned else None
        if last:
            rhymes.append(last[1:])
    if not items or not rhymes:
        return Verdict.fail("no line ends in a Hangul syllable")
    n = Counter(rhymes).most_common(1)[0][1]
    return Verdict.of(Fraction(n, len(items)) > RHYME_SHARE, f"{n} of {len(items)} lines share the final rhyme")


RULES = [
    rule("double_consonants", int_after_colon, check_double_consonants, dispatchers=("cjk",)),
    rule("each_has_double_consonants", int_after_colon, check_each_double_consonants, dispatchers=("cjk",)),
    rule("has_korean_abbreviation", _abbreviation, check_korean_abbreviation, dispatchers=("cjk",)),
    rule("kor_yayun", no_params, check_kor_yayun, dispatchers=("cjk",)),
]

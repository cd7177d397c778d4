"""Rhyme of line endings in the non-CJK languages.

A line is every line of every item. Its rhyme key comes from its last word: the tail from
the last vowel (most languages), the last two letters after the article (Arabic), or the
last syllable (French, hyphenation patterns from ``pyphen``).
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from functools import lru_cache

from .base import ParameterError, RuleContext, Verdict
from .params import after_colon
from .spec import Items, no_params, rule

VOWELS = {
    "english": "aeiouy",
    "portuguese": "aeiou",
    "german": "aeiouäöü",
    "spanish": "aeiouáéíóú",
    "indonesian": "aeiou",
    "russian": "аеёиоуыэюя",
}
_WORD = re.compile(r"[^\W\d_]+")
_LATIN_WORD = re.compile("[a-zß-öø-ÿ]+")
LETTER_WORDS = {  # the script a language's rhyme is read in; other words are ignored
    "english": re.compile("[a-z]+"),
    "russian": re.compile("[а-яё]+"),
    **{lang: _LATIN_WORD for lang in ("portuguese", "german", "spanish", "indonesian")},
}
_ARABIC_WORD = re.compile(r"[\u0621-\u064a]+")


def lines(items: Items) -> list[str]:
    return [line for item in items for line in item.splitlines() if line.strip()]


def last_word(line: str, word: re.Pattern[str] = _WORD) -> str | None:
    found = word.findall(line.lower())
    return found[-1] if found else None


def vowel_tail(word: str, vowels: str) -> str:
    """The word from its last vowel on (the whole word when it has none)."""
    positions = [i for i, c in enumerate(word) if c in vowels]
    return word[positions[-1] :] if positions else word


def _share(keys: list[str], n_lines: int) -> tuple[str, Fraction]:
    key, n = Counter(keys).most_common(1)[0]
    return key, Fraction(n, n_lines)


def vowel_rhyme_checker(language: str, threshold: Fraction = Fraction(499, 1000)):
    """More than ``threshold`` of the lines share the tail from the last vowel."""
    vowels, word = VOWELS[language], LETTER_WORDS[language]

    def check(_: None, items: Items, ctx: RuleContext) -> Verdict:
        ls = lines(items)
        keys = [vowel_tail(w, vowels) for line in ls if (w := last_word(line, word))]
        if not keys:
            return Verdict.fail(f"no line ends in a word of the {language} script")
        key, share = _share(keys, len(ls))
        return Verdict.of(share > threshold, f"{float(share):.0%} of the lines end in '-{key}'")

    return check


def arabic_key(word: str) -> str:
    """Last two letters after dropping the article; tā' marbūṭa counts as tā'."""
    if word.startswith("ال") and len(word) > 3:
        word = word[2:]
    return word.replace("ة", "ت")[-2:]


def check_arabic_yayun(_: None, items: Items, ctx: RuleContext) -> Verdict:
    ls = lines(items)
    keys = [arabic_key(found[-1]) for line in ls if (found := _ARABIC_WORD.findall(line))]
    if not keys:
        return Verdict.fail("no Arabic line ending to compare")
    key, share = _share(keys, len(ls))
    return Verdict.of(share >= Fraction(1, 2), f"{float(share):.0%} of the lines end in '{key}'")


@lru_cache(maxsize=None)
def _french_hyphenator():
    import pyphen

    return pyphen.Pyphen(lang="fr_FR")


def french_key(word: str) -> str:
    """Last syllable of a French word."""
    return _french_hyphenator().inserted(word).split("-")[-1]


def _merged_share(keys: list[str], n_lines: int) -> tuple[str, Fraction]:
    """Best share when keys that are suffixes of one another count as the same rhyme; on a tie the
    alphabetically first key wins, so the explanation does not depend on Python's hash seed."""
    best_key, best = keys[0], 0
    for key in sorted(set(keys)):
        n = sum(1 for k in keys if k.endswith(key) or key.endswith(k))
        if n > best:
            best_key, best = key, n
    return best_key, Fraction(best, n_lines)


def check_french_yayun(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """More than half of the items end in the same last syllable (an item is one verse)."""
    keys = [french_key(w) for item in items if (w := last_word(item))]
    if not keys:
        return Verdict.fail("no line ending to compare")
    key, share = _merged_share(keys, len(items))
    return Verdict.of(share > Fraction(1, 2), f"{float(share):.0%} of the lines rhyme with '-{key}'")


def _scheme(label: str) -> str:
    scheme = after_colon(label).strip().upper()
    if scheme not in ("AABB", "ABAB", "ABBA"):
        raise ParameterError(f"rule {label!r} needs AABB, ABAB or ABBA")
    return scheme


_FRENCH_VOWELS = "aeiouyàâäéèêëîïôöùûü"
_SILENT_ENDING = re.compile(r"(?:es|s|x|e|t|d)$")


def french_sound_key(word: str) -> str:
    """Approximate spoken ending: silent final letters dropped, then the last vowel group onwards."""
    stem = _SILENT_ENDING.sub("", word) or word
    match = re.search(f"[{_FRENCH_VOWELS}]+[^{_FRENCH_VOWELS}]*$", stem)
    return match.group(0) if match else stem


def check_french_rhyme_pattern(scheme: str, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly four verses (items) whose endings follow the scheme (same letter ⇔ same rhyme)."""
    if len(items) != len(scheme):
        return Verdict.fail(f"{len(items)} verses, the scheme {scheme} needs {len(scheme)}")
    keys = [french_sound_key(last_word(item) or "") for item in items]
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            if (scheme[i] == scheme[j]) != (keys[i] == keys[j]):
                return Verdict.fail(f"verses {i + 1} and {j + 1} break the scheme {scheme}")
    return Verdict.ok(f"the verses follow {scheme}")


RULES = [
    rule("yayun", no_params, vowel_rhyme_checker("english")),
    *(
        rule(f"{lang}_yayun", no_params, vowel_rhyme_checker(lang))
        for lang in ("portuguese", "german", "spanish", "indonesian", "russian")
    ),
    rule("arabic_yayun", no_params, check_arabic_yayun),
    rule("french_yayun", no_params, check_french_yayun, requires=("pyphen",), extra="meeseeks"),
    rule("french_rhyme_pattern", _scheme, check_french_rhyme_pattern),
]

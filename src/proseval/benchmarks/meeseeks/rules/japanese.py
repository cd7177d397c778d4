"""Japanese rules: voiced/semi-voiced/small kana, furigana, readings, script shares, rhyme."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from functools import lru_cache

from .. import text
from .base import ParameterError, RuleContext, Verdict
from .params import after_colon, int_after_colon, list_param, name_suffix
from .spec import Items, no_params, rule

_HIRA_VOICED = "がぎぐげござじずぜぞだぢづでどばびぶべぼ"
DAKUTEN = frozenset(_HIRA_VOICED + "ガギグゲゴザジズゼゾダヂヅデドバビブベボヴ")
HANDAKUTEN = frozenset("ぱぴぷぺぽパピプペポ")
SMALL_KANA = frozenset("ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮ")


def _count_total(chars: frozenset[str], what: str):
    def check(n: int, items: Items, ctx: RuleContext) -> Verdict:
        found = [c for item in items for c in item if c in chars]
        return Verdict.of(len(found) == n, f"{len(found)} {what} found, expected {n}")

    return check


# A numbered line: "1." "1、" "①" "一." "ⅰ." at the start of a line.
_NUMBERED = re.compile(
    r"^\s*(?:\d+[.．、)]|[\u2460-\u2473]|[一二三四五六七八九十]+[.．、]|[\u2170-\u217f\u2160-\u216f]+[.．、]?)", re.M
)


def check_small_kana(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N small kana in every numbered entry (≥ 2 entries), else in the whole text."""
    joined = "\n".join(items)
    starts = [m.end() for m in _NUMBERED.finditer(joined)]
    if len(starts) >= 2:
        bounds = [m.start() for m in _NUMBERED.finditer(joined)][1:] + [len(joined)]
        counts = [sum(c in SMALL_KANA for c in joined[s:e]) for s, e in zip(starts, bounds)]
        bad = [f"entry {i}: {c}" for i, c in enumerate(counts, 1) if c != n]
        return Verdict.of(
            not bad, f"small kana per numbered entry must be {n}" + (f"; {', '.join(bad)}" if bad else "")
        )
    total = sum(c in SMALL_KANA for c in joined)
    return Verdict.of(total == n, f"{total} small kana in the text, expected {n}")


_FURIGANA = re.compile(
    f"[{text.HAN}]+(?:（[{text.HIRAGANA}{text.KATAKANA}]+）|\\([{text.HIRAGANA}{text.KATAKANA}]+\\))"
)


def check_furigana(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Exactly N kanji-with-reading annotations such as 漢字（かんじ） over all items."""
    found = [m for item in items for m in _FURIGANA.findall(item)]
    return Verdict.of(len(found) == n, f"{len(found)} furigana annotations, expected {n}")


_HONORIFIC = re.compile(f"[おご][{text.HAN}]")


def check_honorific_prefix_each(_: None, items: Items, ctx: RuleContext) -> Verdict:
    if not items:
        return Verdict.fail("nothing was extracted")
    bad = [item for item in items if not _HONORIFIC.search(item)]
    return Verdict.of(not bad, f"items without お/ご + kanji: {bad}" if bad else "every item has an honorific prefix")


KANA_ROWS = {
    "あ": "あいうえお",
    "か": "かきくけこがぎぐげご",
    "さ": "さしすせそざじずぜぞ",
    "た": "たちつてとだぢづでど",
    "な": "なにぬねの",
    "は": "はひふへほばびぶべぼぱぴぷぺぽ",
    "ま": "まみむめも",
    "や": "やゆよ",
    "ら": "らりるれろ",
    "わ": "わをん",
    "が": "がぎぐげご",
    "ざ": "ざじずぜぞ",
    "だ": "だぢづでど",
    "ば": "ばびぶべぼ",
    "ぱ": "ぱぴぷぺぽ",
}
_READING = re.compile(r"[（(]([^）)]+)[）)]")


def _kana_row(label: str) -> str:
    row = after_colon(label).strip().removesuffix("行")
    if row not in KANA_ROWS:
        raise ParameterError(f"unknown kana row in rule {label!r}")
    return row


def reading(item: str) -> str:
    """The reading given in brackets, else the item itself."""
    match = _READING.search(item)
    return (match.group(1) if match else item).strip()


def check_starts_with_kana_row(row: str, items: Items, ctx: RuleContext) -> Verdict:
    """Every item's reading starts with a hiragana of the row (か行 includes が行, は行 ば/ぱ行)."""
    if not items:
        return Verdict.fail("nothing was extracted")
    bad = [item for item in items if not reading(item)[:1] or reading(item)[0] not in KANA_ROWS[row]]
    return Verdict.of(not bad, f"items not starting with {row}行: {bad}" if bad else f"every item starts with {row}行")


def _shares(label: str) -> tuple[int, int, int]:
    values = list_param(label)
    if len(values) != 3 or not all(isinstance(v, (int, float)) and v >= 0 for v in values) or sum(values) == 0:
        raise ParameterError(f"rule {label!r} needs [hiragana, katakana, kanji] weights")
    return tuple(values)


SHARE_TOLERANCE = Fraction(1, 10)
_SCRIPT_CLASSES = (f"[{text.HIRAGANA}]", f"[{text.KATAKANA}]", f"[{text.HAN}]")


def check_mixed_ratio(weights: tuple[int, int, int], items: Items, ctx: RuleContext) -> Verdict:
    """Hiragana : katakana : kanji shares of every item within ±0.1 of the given ratio.

    ``head`` compares the raw weights with the shares, as the reference does.
    """
    total_weight = sum(weights)
    expected = [Fraction(w) if ctx.compat == "head" else Fraction(w, total_weight) for w in weights]
    for item in items:
        counts = [len(re.findall(c, item)) for c in _SCRIPT_CLASSES]
        n = sum(counts)
        if not n:
            continue
        off = [abs(Fraction(c, n) - e) for c, e in zip(counts, expected)]
        if any(d > SHARE_TOLERANCE for d in off):
            shares = ", ".join(f"{float(Fraction(c, n)):.2f}" for c in counts)
            return Verdict.fail(f"{item!r}: shares {shares}, expected {weights} within ±0.1")
    return Verdict.ok(f"every item has the script shares {weights}")


# Vowel of each kana (hiragana and katakana); ん and small tsu have no vowel of their own.
_VOWEL_ROWS = {
    "a": "あかさたなはまやらわがざだばぱぁゃゎ",
    "i": "いきしちにひみりぎじぢびぴぃ",
    "u": "うくすつぬふむゆるぐずづぶぷぅゅゔ",
    "e": "えけせてねへめれげぜでべぺぇ",
    "o": "おこそとのほもよろをごぞどぼぽぉょ",
}
VOWEL_OF = {k: v for v, ks in _VOWEL_ROWS.items() for k in ks}
RHYME_SHARE = Fraction(1, 2)


def _to_hiragana(s: str) -> str:
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in s)


def last_vowel(line: str) -> str | None:
    """Vowel of the last kana with a vowel (ー repeats the previous one)."""
    kana = [c for c in _to_hiragana(line) if c in VOWEL_OF or c == "ー"]
    for c in reversed(kana):
        if c in VOWEL_OF:
            return VOWEL_OF[c]
    return None


def check_jpn_yayun(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """More than half of the lines end in the same vowel (kana lines; kanji carry no reading)."""
    if ctx.compat == "head":
        return Verdict.fail("the reference implementation cannot run this check (undefined cleaner)")
    vowels = [v for v in (last_vowel(i) for i in items) if v]
    if not vowels:
        return Verdict.fail("no line ends in kana")
    vowel, n = Counter(vowels).most_common(1)[0]
    share = Fraction(n, len(items))
    return Verdict.of(share > RHYME_SHARE, f"{n} of {len(items)} lines end in '{vowel}'")


_OKURIGANA = re.compile(f"[{text.HAN}]+[{text.HIRAGANA}]+")
_NOMINAL_AUXILIARIES = frozenset({"だ", "です"})


@lru_cache(maxsize=1)
def _tokenizer():
    from janome.tokenizer import Tokenizer

    return Tokenizer()


def _used_nominally(next_token) -> bool:
    """A 連用形 verb is a noun before a non-conjunctive particle, a noun, だ/です, punctuation other
    than 、 (洗い、 is the verb's continuative use) or nothing."""
    if next_token is None:
        return True
    pos, sub = next_token.part_of_speech.split(",")[:2]
    return (
        (pos == "記号" and sub != "読点")
        or pos == "名詞"
        or (pos == "助詞" and sub != "接続助詞")
        or (pos == "助動詞" and next_token.base_form in _NOMINAL_AUXILIARIES)
    )


def okurigana_nouns(item: str) -> list[str]:
    """Kanji + trailing hiragana words (考え, 始まり) used as nouns (Janome POS; na-adjective stems
    such as 静か excluded); 届け出 or 話し合い do not fit the shape."""
    tokens = list(_tokenizer().tokenize(item))
    found = []
    for token, nxt in zip(tokens, [*tokens[1:], None]):
        if not _OKURIGANA.fullmatch(token.surface):
            continue
        pos, sub = token.part_of_speech.split(",")[:2]
        noun = pos == "名詞" and sub != "形容動詞語幹"
        if noun or (pos == "動詞" and token.infl_form == "連用形" and _used_nominally(nxt)):
            found.append(token.surface)
    return found


def check_okurigana_nouns(n: int, items: Items, ctx: RuleContext) -> Verdict:
    found = [word for item in items for word in okurigana_nouns(item)]
    return Verdict.of(len(found) >= n, f"{len(found)} kanji + okurigana nouns {found}, at least {n} required")


RULES = [
    rule("has_dakuten_count", int_after_colon, _count_total(DAKUTEN, "voiced kana"), dispatchers=("cjk",)),
    rule("has_handakuten_count", int_after_colon, _count_total(HANDAKUTEN, "semi-voiced kana"), dispatchers=("cjk",)),
    rule("has_small_kana", lambda label: name_suffix(label, "has_small_kana"), check_small_kana, dispatchers=("cjk",)),
    rule("has_furigana_pattern", int_after_colon, check_furigana, dispatchers=("cjk",)),
    rule("has_honorific_prefix_each", no_params, check_honorific_prefix_each, dispatchers=("cjk",)),
    rule("jpn_starts_with_kana_row", _kana_row, check_starts_with_kana_row, dispatchers=("cjk",)),
    rule("jpn_mixed_ratio", _shares, check_mixed_ratio, dispatchers=("cjk",)),
    rule("jpn_yayun", no_params, check_jpn_yayun, dispatchers=("cjk",)),
    rule(
        "has_kanji_okurigana_pattern",
        int_after_colon,
        check_okurigana_nouns,
        dispatchers=("cjk",),
        requires=("janome",),
        extra="meeseeks",
    ),
]

"""Chinese rules: traditional script, strokes, tones, components, structures, word games.

Character data comes from optional packages (extra ``meeseeks``): OpenCC for the
simplified→traditional map, ``strokes`` for stroke counts, ``pypinyin`` for readings; components,
structures and tones come from ``data/hanzi.tsv``, the reference's char-similar tables in one
compact file (built by ``tools/build_hanzi_table.py``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from .. import text
from .base import ParameterError, RuleContext, Verdict
from .params import after_colon, int_after_colon, range_param
from .spec import Items, no_params, rule

EXTRA = "meeseeks"
_HAN = re.compile(f"[{text.HAN}]")


def han_chars(item: str) -> list[str]:
    return _HAN.findall(item)


# --- character tables ----------------------------------------------------------------


_HANZI_TABLE = Path(__file__).with_name("data") / "hanzi.tsv"
_COLUMNS = ("component", "struct", "tone")


@lru_cache(maxsize=None)
def char_table(name: str) -> dict[str, str]:
    """One column of the character table (`component`, `struct` or `tone`): character → value."""
    column = _COLUMNS.index(name) + 1
    table = {}
    with _HANZI_TABLE.open(encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or line.startswith("char\t"):
                continue
            fields = line.rstrip("\n").split("\t")
            if fields[column]:
                table[fields[0]] = fields[column]
    return table


@lru_cache(maxsize=None)
def _s2t():
    import opencc

    return opencc.OpenCC("s2t")


def check_fanti(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """Every Han character is already in traditional form (unchanged by s2t conversion)."""
    convert = _s2t().convert
    for i, item in enumerate(items, 1):
        for ch in han_chars(item):
            if convert(ch) != ch:
                return Verdict.fail(f"item {i}: {ch!r} is simplified (traditional: {convert(ch)!r})")
    return Verdict.ok("every Han character is traditional")


def stroke_count(ch: str) -> int:
    from strokes import strokes

    return int(strokes(ch) or 0)


def check_stroke_count_total(n: int, items: Items, ctx: RuleContext) -> Verdict:
    """Every item's Han characters have N strokes in total."""
    for i, item in enumerate(items, 1):
        chars = han_chars(item)
        total = sum(stroke_count(c) for c in chars)
        if not chars or total != n:
            return Verdict.fail(f"item {i} has {total} strokes, expected {n}")
    return Verdict.ok(f"every item has {n} strokes")


def check_stroke_count_each(bounds: tuple[float, float], items: Items, ctx: RuleContext) -> Verdict:
    """Every Han character has a stroke count in range."""
    lo, hi = bounds
    for item in items:
        if not han_chars(item):
            return Verdict.fail(f"{item!r} has no Han character")
        for ch in han_chars(item):
            n = stroke_count(ch)
            if not lo <= n <= hi:
                return Verdict.fail(f"{ch!r} has {n} strokes, expected [{lo:g}, {hi:g}]")
    return Verdict.ok(f"every character has [{lo:g}, {hi:g}] strokes")


def check_pinyin_order(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """At least two items, listed in pinyin alphabetical order."""
    from pinyin_order import pinyin_sorted

    if len(items) < 2:
        return Verdict.fail("at least two items are needed to judge an order")
    cleaned = [text.cjk_clean(i, ctx.compat) for i in items]
    expected = list(pinyin_sorted(cleaned))
    return Verdict.of(cleaned == expected, f"order {cleaned}, pinyin order {expected}")


def _tone(label: str) -> int:
    tone = int_after_colon(label)
    if tone not in range(0, 6):
        raise ParameterError(f"rule {label!r} names no tone 1-5")
    return tone


def tone_of(ch: str) -> int | None:
    tone = char_table("tone").get(ch)
    return int(tone) if tone else None


def tone_checker(first: bool):
    where = "first" if first else "last"

    def check(tone: int, items: Items, ctx: RuleContext) -> Verdict:
        for i, item in enumerate(items, 1):
            chars = han_chars(item)
            ch = (chars[0] if first else chars[-1]) if chars else None
            if ch is None or tone_of(ch) != tone:
                return Verdict.fail(
                    f"item {i}: {where} character {ch!r} has tone {ch and tone_of(ch)}, expected {tone}"
                )
        return Verdict.ok(f"every item's {where} character has tone {tone}")

    return check


def _named_range(prefix: str):
    def parse(label: str) -> tuple[str, tuple[float, float]]:
        name = label[len(prefix) :].split(":", 1)[0].strip()
        if not name:
            raise ParameterError(f"rule {label!r} names nothing after {prefix}")
        return name, range_param(label)

    return parse


def _per_item_count(items: Items, bounds: tuple[float, float], match, what: str) -> Verdict:
    lo, hi = bounds
    for i, item in enumerate(items, 1):
        n = sum(1 for ch in han_chars(item) if match(ch))
        if not lo <= n <= hi:
            return Verdict.fail(f"item {i} has {n} {what}, expected [{lo:g}, {hi:g}]")
    return Verdict.ok(f"every item has [{lo:g}, {hi:g}] {what}")


def check_hanzi_component(params: tuple[str, tuple[float, float]], items: Items, ctx: RuleContext) -> Verdict:
    """Per item, the number of characters whose component is the given one is in range."""
    component, bounds = params
    table = char_table("component")
    return _per_item_count(items, bounds, lambda ch: table.get(ch) == component, f"characters with {component}")


# Structure names in the order of the structure codes of the character table.
STRUCTURES = (
    "独体字",
    "左右结构",
    "上下结构",
    "左中右结构",
    "上中下结构",
    "右上包围结构",
    "左上包围结构",
    "左下包围结构",
    "上三包围结构",
    "下三包围结构",
    "左三包围结构",
    "全包围结构",
    "镶嵌结构",
    "品字结构",
)
HALF_ENCLOSED = frozenset(range(5, 11))


def check_hanzi_structure(params: tuple[str, tuple[float, float]], items: Items, ctx: RuleContext) -> Verdict:
    """Per item, the number of characters of a structure type is in range (半包围 = any half enclosure)."""
    name, bounds = params
    if ctx.compat == "head":
        return Verdict.fail(f"unsupported structure type: hanzi_structure{name} (reference behaviour)")
    if name == "半包围结构":
        codes = HALF_ENCLOSED
    elif name in STRUCTURES:
        codes = frozenset({STRUCTURES.index(name)})
    else:
        return Verdict.undecidable(f"unknown structure type {name!r}")
    table = char_table("struct")
    return _per_item_count(items, bounds, lambda ch: ch in table and int(table[ch]) in codes, f"{name} characters")


# --- word games ------------------------------------------------------------------------


def _pattern(label: str) -> str:
    pattern = after_colon(label).strip()
    if not pattern.isalpha() or not pattern.isupper():
        raise ParameterError(f"rule {label!r} needs a letter pattern such as AABB")
    return pattern


def fits_pattern(word: str, pattern: str) -> bool:
    """Same length and a one-to-one letter↔character correspondence."""
    if len(word) != len(pattern):
        return False
    forward: dict[str, str] = {}
    backward: dict[str, str] = {}
    for letter, ch in zip(pattern, word):
        if forward.setdefault(letter, ch) != ch or backward.setdefault(ch, letter) != letter:
            return False
    return True


def check_word_structure(pattern: str, items: Items, ctx: RuleContext) -> Verdict:
    bad = [item for item in items if not fits_pattern(text.cjk_clean(item, ctx.compat), pattern)]
    return Verdict.of(not bad, f"words not shaped {pattern}: {bad}" if bad else f"every word is shaped {pattern}")


def check_has_palindrome(_: None, items: Items, ctx: RuleContext) -> Verdict:
    bad = [item for item in items if (h := han_chars(item)) != h[::-1] or not h]
    return Verdict.of(not bad, f"not palindromes: {bad}" if bad else "every item reads the same backwards")


NUMERALS = "一二三四五六七八九十"


def _jielong_kind(label: str) -> int:
    match = re.match(r"jielong(\d?)", label)
    kind = int(match.group(1) or 1) if match else 1
    if kind not in (1, 2, 3, 4):
        raise ParameterError(f"unknown chain rule {label!r}")
    return kind


def check_jielong(kind: int, items: Items, ctx: RuleContext) -> Verdict:
    """Word chains: 1 last→first char, 2 numeral openings 一…十, 3 first→last char, 4 shifting position."""
    words = [text.cjk_clean(i, ctx.compat) for i in items]
    if kind == 2:
        if len(words) > len(NUMERALS):
            return Verdict.fail(f"{len(words)} items, at most {len(NUMERALS)} numerals available")
        bad = [w for w, numeral in zip(words, NUMERALS) if not w.startswith(numeral)]
        return Verdict.of(not bad, f"items not opening with their numeral: {bad}" if bad else "numerals in order")
    if any(not w for w in words):
        return Verdict.fail("an item has no CJK character")
    for i, (a, b) in enumerate(zip(words, words[1:])):
        if kind == 1:
            ok = a[-1] == b[0]
        elif kind == 3:
            ok = a[0] == b[-1]
        else:
            ok = a[i % len(a)] == b[(i + 1) % len(b)]
        if not ok:
            return Verdict.fail(f"{a!r} and {b!r} do not chain")
    return Verdict.ok("the items form a chain")


RULES = [
    rule("fanti", no_params, check_fanti, dispatchers=("cjk",), requires=("opencc",), extra=EXTRA),
    rule(
        "stroke_count_total",
        int_after_colon,
        check_stroke_count_total,
        dispatchers=("cjk",),
        requires=("strokes",),
        extra=EXTRA,
    ),
    rule(
        "stroke_count_each",
        range_param,
        check_stroke_count_each,
        dispatchers=("cjk",),
        requires=("strokes",),
        extra=EXTRA,
    ),
    rule(
        "check_pinyin_order",
        no_params,
        check_pinyin_order,
        dispatchers=("cjk",),
        requires=("pinyin_order", "pypinyin"),
        extra=EXTRA,
    ),
    rule("start_hanzi_tone", _tone, tone_checker(True), dispatchers=("cjk",)),
    rule("end_hanzi_tone", _tone, tone_checker(False), dispatchers=("cjk",)),
    rule("hanzi_component", _named_range("hanzi_component"), check_hanzi_component, dispatchers=("cjk",)),
    rule("hanzi_structure", _named_range("hanzi_structure"), check_hanzi_structure, dispatchers=("cjk",)),
    rule("word_structure", _pattern, check_word_structure, dispatchers=("cjk",)),
    rule("has_palindrome", no_params, check_has_palindrome, dispatchers=("cjk",)),
    rule("jielong", _jielong_kind, check_jielong, dispatchers=("cjk",)),
]

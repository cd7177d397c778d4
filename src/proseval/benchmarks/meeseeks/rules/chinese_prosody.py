"""Chinese classical prosody: rhyme groups, tone patterns, regulated verse.

A line is one non-blank line of an item (the extractor gives one verse per item). A line
rhymes through its last Han character, read with every ``pypinyin`` reading (heteronyms)
and mapped to the 18 groups of the 中华新韵 by its final. Regulated-verse forms (进退韵,
辘轳韵) use the 平水韵 groups 五微–九佳 instead, from the character lists below.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import Literal, Sequence

from .. import text
from .base import ParameterError, RuleContext, Verdict
from .params import after_colon
from .spec import Checker, Items, Parser, RuleSpec, no_params, rule

EXTRA = "meeseeks"
_HAN = re.compile(f"[{text.HAN}]")

# 中华新韵 (2005) groups by pypinyin final (strict finals, ü written v). pypinyin gives the
# apical vowel of zhi/chi/shi/ri/zi/ci/si the final "i", so 五支 syllables fall in 七齐, as
# in the reference implementation.
_GROUP_FINALS = {
    "一麻": ("a", "ia", "ua"),
    "二波": ("o", "uo", "io"),
    "三歌": ("e",),
    "四皆": ("ie", "ve", "ê"),
    "六儿": ("er",),
    "七齐": ("i",),
    "八微": ("ei", "uei"),
    "九开": ("ai", "uai"),
    "十姑": ("u",),
    "十一鱼": ("v",),
    "十二侯": ("ou", "iou"),
    "十三豪": ("ao", "iao"),
    "十四寒": ("an", "ian", "uan", "van"),
    "十五痕": ("en", "in", "uen", "vn"),
    "十六唐": ("ang", "iang", "uang"),
    "十七庚": ("eng", "ing", "ueng"),
    "十八东": ("ong", "iong"),
}
FINAL_GROUP = {final: group for group, finals in _GROUP_FINALS.items() for final in finals}

# 平水韵 上平声 groups 五微–九佳 (simplified, then traditional forms), in rhyme-book order.
_PINGSHUI = {
    "五微": (
        "微薇晖辉徽挥翚韦围帏违闱霏菲妃飞非扉肥腓威祈旂畿机几讥玑稀希衣依归饥矶欷诽绯晞葳巍沂圻颀騑暉輝揮翬韋"
        "圍幃違闈飛機幾譏璣歸飢饑磯誹緋頎"
    ),
    "六鱼": (
        "鱼渔初书舒居裾车渠蕖余予誉舆胥狙锄疏蔬梳虚嘘徐猪闾庐驴诸除储如墟於畲茹蛆沮苴菹琚榈蜍樗滁雎疽纾妤欤蘧"
        "璩袪祛淤砠摅躇魚漁書車餘譽輿鋤虛噓豬閭廬驢諸儲櫚紓歟攄"
    ),
    "七虞": (
        "虞愚娱隅无芜巫诬毋于盂竽迂纡吁衢瞿劬拘驹俱区驱躯岖儒濡襦须需株诛蛛殊瑜榆愉逾渝萸谀腴臾禺嵎俞朱珠铢姝"
        "茱趋扶芙符凫雏刍敷夫肤麸孚俘桴蚨跗输枢厨蹰模谟蒲匍晡逋胡湖瑚醐糊葫壶狐弧乎孤辜姑觚菰沽酤蛄徒途涂荼图"
        "屠酴奴驽孥呼吾梧鼯吴蜈租徂殂卢芦炉垆颅鲈泸胪鸬舻轳苏酥乌呜污枯刳粗都铺娛無蕪誣紆駒區驅軀嶇須誅諛銖趨"
        "鳧雛芻膚麩輸樞廚躕謨壺塗圖駑吳盧蘆爐壚顱鱸瀘臚鸕艫轤蘇烏嗚鋪"
    ),
    "八齐": (
        "齐脐蛴黎犁藜黧妻萋凄堤低题提蹄啼鹈缇醍稊荑鸡稽笄兮奚溪蹊鼷携畦西栖犀嘶梯鼙批迷泥倪霓猊鲵麑圭闺"
        "珪奎刲暌睽羝鞮跻齑嵇醯齊臍蠐悽題鵜緹雞攜棲鯢閨躋齏"
    ),
    "九佳": ("佳街鞋牌柴钗差崖涯偕阶皆喈谐骸排俳乖怀淮槐豺侪埋霾斋揩蜗娲娃哇蛙洼挨捱歪釵階諧懷儕齋蝸媧窪"),
}
PINGSHUI_ORDER = tuple(_PINGSHUI)
PINGSHUI_GROUP = {ch: group for group, chars in _PINGSHUI.items() for ch in chars}


# --- lines and rhyme groups -----------------------------------------------------------


def verse_lines(items: Items) -> list[str]:
    """Every non-blank line of every item, stripped."""
    return [line.strip() for item in items for line in item.splitlines() if line.strip()]


def last_han(line: str) -> str | None:
    found = _HAN.findall(line)
    return found[-1] if found else None


@lru_cache(maxsize=4096)
def rhyme_options(ch: str | None) -> tuple[str, ...]:
    """The 中华新韵 groups of every reading of ``ch``, in pypinyin's reading order."""
    if ch is None:
        return ()
    from pypinyin import Style, pinyin

    finals = pinyin(ch, style=Style.FINALS, heteronym=True, strict=True)[0]
    return tuple(dict.fromkeys(FINAL_GROUP[f] for f in finals if f in FINAL_GROUP))


def best_groups(options: Sequence[tuple[str, ...]]) -> list[str | None]:
    """One group per line such that the largest group is as large as possible.

    Same choice as trying every reading combination in order and keeping the first best
    one, without the exponential search: the best size is, over groups, the number of lines
    with a reading in that group; lines then take their first reading that keeps it reachable.
    """
    suffix: list[Counter[str]] = [Counter() for _ in range(len(options) + 1)]
    for i in range(len(options) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + Counter(options[i])
    best = max(suffix[0].values(), default=0)
    prefix: Counter[str] = Counter()
    chosen: list[str | None] = []
    for i, opts in enumerate(options):
        pick = next((g for g in opts if any(prefix[h] + (h == g) + suffix[i + 1][h] >= best for h in suffix[0])), None)
        if pick:
            prefix[pick] += 1
        chosen.append(pick)
    return chosen


def rhyme_groups(lines: Sequence[str]) -> list[str | None]:
    return best_groups([rhyme_options(last_han(line)) for line in lines])


def top_group(groups: Sequence[str | None]) -> tuple[str | None, int]:
    counts = Counter(g for g in groups if g)
    return counts.most_common(1)[0] if counts else (None, 0)


def _ending(number: int, line: str, group: str | None) -> str:
    return f"line {number} ends in {last_han(line) or 'no Chinese character'} ({group or 'no rhyme group'})"


def _endings(numbered: Sequence[tuple[int, str]], groups: Sequence[str | None]) -> str:
    return "; ".join(_ending(n, line, g) for (n, line), g in zip(numbered, groups))


# --- checkers -------------------------------------------------------------------------

RHYME_SHARE = Fraction(1, 2)


def check_yayun(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """At least half of the lines end in the same 中华新韵 group."""
    lines = [line for line in verse_lines(items) if last_han(line)]
    if not lines:
        return Verdict.fail("no line ends in a Chinese character")
    group, n = top_group(rhyme_groups(lines))
    share = Fraction(n, len(lines))
    return Verdict.of(
        share >= RHYME_SHARE,
        f"{n} of {len(lines)} lines rhyme in {group or 'no group'} ({float(share):.0%}); at least 50% required",
    )


_TONE_CLASS = {"1": "平", "2": "平", "3": "仄", "4": "仄"}


def tone_pattern(line: str) -> str:
    """平/仄 per Han character (tones 1–2 / 3–4), 轻 for the neutral tone."""
    from pypinyin import Style, lazy_pinyin

    syllables = lazy_pinyin("".join(_HAN.findall(line)), style=Style.TONE3)
    return "".join(_TONE_CLASS.get(s[-1:], "轻") for s in syllables)


def check_pingze(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """Every line has the same 平仄 pattern.

    ``head``: lines without Chinese characters keep their empty pattern, so lines of other
    scripts only are "identical" and pass, as in the reference.
    """
    lines = verse_lines(items)
    if ctx.compat == "head" and lines and not any(tone_pattern(line) for line in lines):
        return Verdict.ok("no line has Chinese characters: every (empty) pattern is the same")
    patterns = [(i, p) for i, line in enumerate(lines, 1) if (p := tone_pattern(line))]
    if not patterns:
        return Verdict.fail("no line with Chinese characters")
    first_line, first = patterns[0]
    bad = [f"line {i}: {p}" for i, p in patterns if p != first]
    if bad:
        return Verdict.fail(f"line {first_line} has the 平仄 pattern {first}, but {'; '.join(bad)}")
    return Verdict.ok(f"every line has the 平仄 pattern {first}")


def _even(lines: list[str]) -> list[tuple[int, str]]:
    return [(i, line) for i, line in enumerate(lines, 1) if i % 2 == 0]


def check_lvshi_yayun(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """The even lines (2, 4, 6, …) all end in the same rhyme group."""
    even = _even(verse_lines(items))
    if not even:
        return Verdict.fail("at least 2 lines are needed to check the even lines")
    groups = rhyme_groups([line for _, line in even])
    n = top_group(groups)[1]
    verdict = "share one rhyme group" if n == len(even) else "do not share one rhyme group"
    return Verdict.of(n == len(even), f"the even lines {verdict}: {_endings(even, groups)}")


FirstLine = Literal["入韵", "不入韵"]


def _first_line_mode(label: str) -> FirstLine:
    mode = after_colon(label).strip()
    modes: tuple[FirstLine, ...] = ("入韵", "不入韵")
    for known in modes:
        if mode == known:
            return known
    raise ParameterError(f"rule {label!r} needs 入韵 or 不入韵")


def check_first_line_rhyme(mode: FirstLine, items: Items, ctx: RuleContext) -> Verdict:
    """入韵: line 1 and the even lines share one group; 不入韵: they do not."""
    lines = verse_lines(items)
    if len(lines) < 2:
        return Verdict.fail(f"{len(lines)} line(s); at least 2 are needed")
    checked = [(1, lines[0]), *_even(lines)]
    groups = rhyme_groups([line for _, line in checked])
    rhymes = top_group(groups)[1] == len(checked)
    wanted = mode == "入韵"
    found = "rhymes" if rhymes else "does not rhyme"
    return Verdict.of(
        rhymes == wanted, f"the first line {found} with the even lines, expected {mode}: {_endings(checked, groups)}"
    )


def check_odd_lines_no_rhyme(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """The even lines share one group and no odd line (1, 3, 5, …) ends in that group."""
    lines = verse_lines(items)
    even = _even(lines)
    if not even:
        return Verdict.fail(f"{len(lines)} line(s); at least 2 are needed")
    even_groups = rhyme_groups([line for _, line in even])
    group, n = top_group(even_groups)
    if n < len(even):
        return Verdict.fail(f"the even lines do not share one rhyme group: {_endings(even, even_groups)}")
    odd = [(i, line) for i, line in enumerate(lines, 1) if i % 2]
    odd_groups = rhyme_groups([line for _, line in odd])
    bad = [(o, g) for o, g in zip(odd, odd_groups) if g == group]
    if bad:
        return Verdict.fail(
            f"odd lines rhyme with the even lines ({group}): {_endings([o for o, _ in bad], [g for _, g in bad])}"
        )
    return Verdict.ok(f"the even lines rhyme in {group} and no odd line does: {_endings(odd, odd_groups)}")


# 进退韵: lines 2 & 6 in group A, 4 & 8 in group B; 辘轳韵: 2 & 4 in A, 6 & 8 in B (A, B adjacent).
_PAIRS = {"jin_tui_yun": ((2, 6), (4, 8)), "lu_lu_yun": ((2, 4), (6, 8))}


def alternating_rhyme_checker(form: str):
    pair_a, pair_b = _PAIRS[form]

    def check(_: None, items: Items, ctx: RuleContext) -> Verdict:
        lines = verse_lines(items)
        if len(lines) < 8:
            return Verdict.fail(f"{form} needs at least 8 lines, found {len(lines)}")
        chars = {n: last_han(lines[n - 1]) for n in (2, 4, 6, 8)}
        groups = {n: PINGSHUI_GROUP.get(ch or "") for n, ch in chars.items()}
        detail = "; ".join(f"line {n} ends in {chars[n]} ({groups[n] or 'outside 五微–九佳'})" for n in groups)
        if not all(groups.values()):
            return Verdict.fail(
                f"rhyme characters must come from the 平水韵 groups 五微, 六鱼, 七虞, 八齐, 九佳: {detail}"
            )
        for a, b in (pair_a, pair_b):
            if groups[a] != groups[b]:
                return Verdict.fail(f"lines {a} and {b} must share a rhyme group: {detail}")
        ga, gb = groups[pair_a[0]], groups[pair_b[0]]
        if ga == gb:
            return Verdict.fail(f"the two rhyme groups must differ, both are {ga}: {detail}")
        if abs(PINGSHUI_ORDER.index(ga) - PINGSHUI_ORDER.index(gb)) != 1:
            return Verdict.fail(f"{ga} and {gb} are not adjacent 平水韵 groups: {detail}")
        return Verdict.ok(f"{ga} (lines {pair_a}) and {gb} (lines {pair_b}) are adjacent groups: {detail}")

    return check


def _zh(prefix: str, parse: Parser, check: Checker) -> RuleSpec:
    return rule(prefix, parse, check, dispatchers=("cjk",), requires=("pypinyin",), extra=EXTRA)


RULES = [
    _zh("yayun", no_params, check_yayun),
    _zh("pingze", no_params, check_pingze),
    _zh("lvshi_yayun", no_params, check_lvshi_yayun),
    _zh("first_line_rhyme", _first_line_mode, check_first_line_rhyme),
    _zh("chinese_odd_lines_no_rhyme", no_params, check_odd_lines_no_rhyme),
    *(rule(form, no_params, alternating_rhyme_checker(form), dispatchers=("cjk",)) for form in _PAIRS),
]

"""French grammar rules: h aspiré, pronominal verbs, partitives, passé composé, en/y, ne, spacing, numbers."""

from __future__ import annotations

import re
from math import gcd

from .base import ParameterError, RuleContext, Verdict
from .european import per_item_range
from .params import list_param, name_suffix, range_param
from .spec import Items, no_params, rule
from .wordlists import word_list

Range = tuple[float, float]
_WORD = re.compile(r"[^\W\d_]+(?:[-][^\W\d_]+)*")
_H_WORD = re.compile(r"(?<![^\W\d_])[hH][^\W\d_]+")

# Common words with an aspirated h (no elision, no liaison), singular base forms.
H_ASPIRE = frozenset(word_list("french/h_aspire"))
_PLURAL_ENDINGS = ("es", "s", "x", "e")

Ratio = tuple[int, int]


def _ratio(label: str) -> Ratio:
    values = list_param(label)
    if len(values) != 2 or not all(isinstance(v, int) and v >= 0 for v in values) or values == [0, 0]:
        raise ParameterError(f"rule {label!r} needs an [a, b] ratio of non-negative integers")
    return values[0], values[1]


def reduce(a: int, b: int) -> Ratio:
    """Lowest terms; a ratio with a zero side is kept as counted (0:2 is not 0:1), as the reference."""
    g = gcd(a, b) if a and b else 1
    return a // g, b // g


def ratio_matches(a: int, b: int, expected: Ratio) -> bool:
    return reduce(a, b) == reduce(*expected)


def is_h_aspire(word: str) -> bool:
    w = word.lower()
    return w in H_ASPIRE or any(w.endswith(e) and w[: -len(e)] in H_ASPIRE for e in _PLURAL_ENDINGS)


def h_words(item: str) -> tuple[list[str], list[str]]:
    """(aspirated, mute) words starting with h; the bare letter h is ignored."""
    found = _H_WORD.findall(item)
    return [w for w in found if is_h_aspire(w)], [w for w in found if not is_h_aspire(w)]


def _h_summary(asp: list[str], mute: list[str]) -> str:
    return f"{len(asp)} aspirated-h words {asp[:8]} : {len(mute)} mute-h words {mute[:8]}"


def check_h_ratio_total(expected: Ratio, items: Items, ctx: RuleContext) -> Verdict:
    asp, mute = h_words("\n".join(items))
    if not asp and not mute:
        return Verdict.fail("no word starting with h found")
    ok = ratio_matches(len(asp), len(mute), expected)
    return Verdict.of(ok, f"{_h_summary(asp, mute)}, expected ratio {expected[0]}:{expected[1]}")


def check_h_ratio_each(expected: Ratio, items: Items, ctx: RuleContext) -> Verdict:
    for i, item in enumerate(items, 1):
        asp, mute = h_words(item)
        if not ratio_matches(len(asp), len(mute), expected) or not (asp or mute):
            return Verdict.fail(f"item {i}: {_h_summary(asp, mute)}, expected ratio {expected[0]}:{expected[1]}")
    return Verdict.ok(f"every item has the aspirated:mute h ratio {expected[0]}:{expected[1]}")


# Reflexive pronoun + verb. me/te count only with their subject je/tu a few words before,
# nous/vous only after a subject nous/vous (so "nous aimons" and "il me parle" do not count).
_REFLEXIVE = re.compile(
    r"\b(?:(?P<se>se\s+|s['’](?!ils?\b))|(?P<p>me\s+|m['’]|te\s+|t['’]|nous\s+|vous\s+))"
    r"(?=(?P<verb>(?:(?:en|y)\s+|[ny]['’])?[^\W\d_]+))",
    re.IGNORECASE,
)
_SUBJECT = {"m": "je", "t": "tu", "n": "nous", "v": "vous"}
_IMPERATIVE_TOI = re.compile(r"\b[^\W\d_]+-toi\b", re.IGNORECASE)


def pronominal_verbs(item: str) -> list[str]:
    found = []
    for m in _REFLEXIVE.finditer(item):
        if m.group("p"):
            if m.group("verb").lower() in ("nous", "vous"):
                continue
            sentence = re.split(r"[.!?;]", item[: m.start()])[-1]
            if _SUBJECT[m.group("p")[0].lower()] not in re.findall(r"[^\W\d_]+", sentence.lower())[-4:]:
                continue
        found.append(m.group(0) + m.group("verb"))
    return found + _IMPERATIVE_TOI.findall(item)


_PARTITIVE = re.compile(r"\bdu\s+[^\W\d_]+", re.IGNORECASE)


def partitive_articles(item: str) -> list[str]:
    """``du`` + noun. The reference counts only ``du`` (never ``de la`` / ``de l'``); reproduced."""
    return _PARTITIVE.findall(item)


# Passé composé: auxiliary + (adverbs) + past participle.
AVOIR = frozenset({"ai", "as", "a", "avons", "avez", "ont"})
ETRE = frozenset({"suis", "es", "est", "sommes", "êtes", "sont"})
_ADVERBS = frozenset(word_list("french/adverbs"))
_PARTICIPLE_END = re.compile(r"(?:é|i|u|is|it|ert|int|aint|eint|oint)(?:e|s|es)?$|(?:é|i|u)(?:e|s|es)$")
IRREGULAR_PARTICIPLES = frozenset(word_list("french/irregular_participles"))
NOT_PARTICIPLES = frozenset(word_list("french/not_participles"))


def is_participle(word: str) -> bool:
    w = word.lower()
    return w in IRREGULAR_PARTICIPLES or (w not in NOT_PARTICIPLES and len(w) > 1 and bool(_PARTICIPLE_END.search(w)))


def passe_compose(item: str) -> dict[str, list[str]]:
    """Passé composé forms found, by auxiliary (``avoir`` / ``être``)."""
    tokens = [(m.group(0), m.start()) for m in re.finditer(r"[^\W\d_]+", item)]
    found: dict[str, list[str]] = {"avoir": [], "être": []}
    for k, (tok, start) in enumerate(tokens):
        aux = tok.lower()
        kind = "avoir" if aux in AVOIR else "être" if aux in ETRE else None
        if kind is None or item[max(0, start - 2) : start].lower() in ("l'", "l’"):
            continue  # "l'est" (the east) is no auxiliary
        rest = [t for t, _ in tokens[k + 1 : k + 4]]
        while rest and rest[0].lower() in _ADVERBS:
            rest.pop(0)
        if rest and is_participle(rest[0]):
            found[kind].append(f"{tok} {rest[0]}")
    return found


def _passe_compose_params(label: str) -> tuple[int, str]:
    n = name_suffix(label, "french_passe_compose")
    aux = "être" if re.search(r"[eê]tre", label.split(":", 1)[-1], re.IGNORECASE) else "avoir"
    return n, aux


def check_passe_compose(params: tuple[int, str], items: Items, ctx: RuleContext) -> Verdict:
    """Every item has ≥ N passé composé forms, all with the given auxiliary."""
    n, aux = params
    other = "avoir" if aux == "être" else "être"
    for i, item in enumerate(items, 1):
        found = passe_compose(item)
        if len(found[aux]) < n or found[other]:
            extra = f"; forms with {other} are not allowed: {found[other][:5]}" if found[other] else ""
            return Verdict.fail(
                f"item {i} has {len(found[aux])} passé composé forms with {aux} {found[aux][:8]}, "
                f"at least {n} required{extra}"
            )
    return Verdict.ok(f"every item has at least {n} passé composé forms, all with {aux}")


# Adverbial pronouns en / y.
_IL_Y_A = re.compile(r"\b(?:il\s+(?:n['’])?y\s+(?:a|avait|aura|aurait|eut|ait|ont)|y\s+a-t-il)\b", re.IGNORECASE)
_Y = re.compile(r"(?<![^\W_])y(?![^\W_])(?!\s+compris\b)", re.IGNORECASE)
_EN_AFTER = re.compile(
    r"\b(?:j|je|tu|il|elle|on|nous|vous|ils|elles|ne|n|m|t|s|me|te|se|lui|leur|y)['’\s]\s*en\b", re.IGNORECASE
)
_EN_IMPERATIVE = re.compile(r"-en\b|-t['’]en\b", re.IGNORECASE)


def adverbial_y(item: str) -> list[str]:
    """``y`` used as a pronoun; the idiom ``il y a`` is left out."""
    idioms = [m.span() for m in _IL_Y_A.finditer(item)]
    return [
        item[max(0, m.start() - 12) : m.end() + 12].strip()
        for m in _Y.finditer(item)
        if not any(a <= m.start() < b for a, b in idioms)
    ]


def adverbial_en(item: str) -> list[str]:
    """``en`` as a pronoun: after a subject/clitic pronoun or ``ne``, or in an imperative (``prends-en``)."""
    hits = [m.end() for m in _EN_AFTER.finditer(item)] + [m.end() for m in _EN_IMPERATIVE.finditer(item)]
    return [item[max(0, end - 14) : end + 10].strip() for end in sorted(hits)]


def check_adverbial_pronoun(expected: Ratio, items: Items, ctx: RuleContext) -> Verdict:
    joined = "\n".join(items)
    en, y = adverbial_en(joined), adverbial_y(joined)
    if not en and not y:
        return Verdict.fail("no adverbial pronoun en or y found")
    ok = ratio_matches(len(en), len(y), expected)
    return Verdict.of(ok, f"en: {len(en)}, y: {len(y)}, expected ratio {expected[0]}:{expected[1]}")


def check_adverbial_y(bounds: Range, items: Items, ctx: RuleContext) -> Verdict:
    """Total adverbial ``y`` in range; ``head``: the reference always crashes (UnboundLocalError)."""
    if ctx.compat == "head":
        return Verdict.fail("reference checker error (UnboundLocalError), reproduced under compat=head")
    lo, hi = bounds
    found = [hit for item in items for hit in adverbial_y(item)]
    return Verdict.of(lo <= len(found) <= hi, f"{len(found)} adverbial y {found[:6]}, expected [{lo:g}, {hi:g}]")


# ne: negation vs expletive ("à moins qu'il ne vienne", "plus grand que je ne pensais").
_NE = re.compile(r"\bn(?:e\b|['’])", re.IGNORECASE)
NEGATORS = frozenset("pas plus jamais rien personne guère point aucun aucune nul nulle ni que nullement".split())
NEGATORS_BEFORE = frozenset("rien personne aucun aucune nul nulle jamais ni".split())  # rien ne…, personne n'…
_EXPLETIVE_TRIGGER = re.compile(
    r"(?:à moins qu|avant qu|de peur qu|de crainte qu|sans qu|craign|crain|redout|peur qu|empêch|évit"
    r"|(?:plus|moins|mieux|pire|meilleure?s?|autre|autrement|davantage)\b[^.!?;]*?\bqu)",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.!?;:,]")


_QUIRK_NEGATORS = re.compile(r"\b(?:rien|personne|aucune?|nulle?|guère|point|nullement)\b", re.IGNORECASE)


def ne_usages(item: str, compat: str = "fixed") -> tuple[list[str], list[str]]:
    """(expletive, negation) occurrences of ``ne``/``n'``.

    Negation when a negator follows in the same clause (or rien/personne/aucun… opens
    it: "rien n'était prêt"); otherwise expletive when a
    trigger (à moins que, avant que, de peur que, comparative … que, craindre …) precedes
    it in the sentence; a bare literary ``ne`` (je ne sais) counts as negation.
    ``head`` reproduces the reference: expletive when a trigger is in the 25 characters
    before, unless rien/personne/aucun… occurs within a window that crosses sentences.
    """
    expletive: list[str] = []
    negation: list[str] = []
    for m in _NE.finditer(item):
        start = max(item.rfind(c, 0, m.start()) for c in ".!?")
        stop = min((i for c in ".!?" if (i := item.find(c, m.end())) >= 0), default=len(item))
        snippet = item[max(start + 1, m.start() - 30) : min(stop + 1, m.end() + 30)].strip()
        if compat == "head":
            is_expletive = bool(_EXPLETIVE_TRIGGER.search(item[max(0, m.start() - 25) : m.start()])) and not (
                _QUIRK_NEGATORS.search(item[max(0, m.start() - 20) : m.end() + 40])
            )
        else:
            end = _CLAUSE_END.search(item, m.end())
            after = item[m.end() : end.start() if end else len(item)]
            before = re.split(r"[.!?;:,]", item[: m.start()])[-1]
            negated = set(re.findall(r"[^\W\d_]+", after.lower())) & NEGATORS or (
                set(re.findall(r"[^\W\d_]+", before.lower())) & NEGATORS_BEFORE
            )
            is_expletive = not negated and bool(_EXPLETIVE_TRIGGER.search(item[start + 1 : m.start()]))
        (expletive if is_expletive else negation).append(snippet)
    return expletive, negation


def _ne_params(label: str) -> tuple[int, Ratio]:
    return name_suffix(label, "french_ne_usage"), _ratio(label)


def check_ne_usage(params: tuple[int, Ratio], items: Items, ctx: RuleContext) -> Verdict:
    """At least N ``ne`` in all, expletive : negation in the given ratio."""
    n, expected = params
    expl, neg = ne_usages("\n".join(items), ctx.compat)
    total = len(expl) + len(neg)
    ok = total >= n and ratio_matches(len(expl), len(neg), expected)
    return Verdict.of(
        ok,
        f"{total} ne (at least {n} required): {len(expl)} expletive, {len(neg)} negation, "
        f"expected ratio {expected[0]}:{expected[1]}",
    )


# Spacing: a space (or no-break space) before ; : ! ? » and after « ; none needed at the end.
_SPACE = " \u00a0\u202f\t\n"
_HIGH = ";:!?"
_CLOSERS = "»)]}\"'’.,;:!?…"


def spacing_errors(item: str) -> list[str]:
    errors = []
    for i, c in enumerate(item):
        before, after = item[i - 1 : i], item[i + 1 : i + 2]
        where = f"…{item[max(0, i - 12) : i]}【{c}】{item[i + 1 : i + 8]}…"
        if c in _HIGH:
            if c == ":" and ((before.isdigit() and after.isdigit()) or item[i + 1 : i + 3] == "//"):
                continue  # 10:30, https://
            if before and before not in _SPACE and before not in _HIGH:
                errors.append(f"no space before {c!r}: {where}")
            if after and after not in _SPACE and after not in _CLOSERS:
                errors.append(f"no space after {c!r}: {where}")
        elif c == "«" and after and after not in _SPACE:
            errors.append(f"no space after «: {where}")
        elif c == "»" and before and before not in _SPACE:
            errors.append(f"no space before »: {where}")
    return errors


def check_punctuation_spacing(_: None, items: Items, ctx: RuleContext) -> Verdict:
    """French typography: space before ; : ! ? and », after «, and after ; : ! ? inside a text."""
    for i, item in enumerate(items, 1):
        errors = spacing_errors(item)
        if errors:
            return Verdict.fail(f"item {i}: {len(errors)} spacing errors: " + "; ".join(errors[:5]))
    return Verdict.ok("every item follows the French punctuation spacing rules")


# Numbers: 7-digit numbers grouped with spaces (1 234 567), vigesimal number words.
_GROUP = "[ \u00a0\u202f]"
_SEVEN_DIGITS = re.compile(rf"(?<![\d.,])(?<!\d{_GROUP})\d{_GROUP}\d{{3}}{_GROUP}\d{{3}}(?!\d)(?!{_GROUP}\d)")
_VIGESIMAL = re.compile(  # 71–99 written the standard way, with hyphens (70 and 60 are not vigesimal)
    r"\bsoixante(?: et |-et-)onze\b|\bsoixante-(?:douze|treize|quatorze|quinze|seize|dix-(?:sept|huit|neuf))\b"
    r"|\bquatre-vingts?\b",
    re.IGNORECASE,
)
_DIGIT = re.compile("[0-9]")


def _each_item_has(pattern: re.Pattern[str], what: str, *, words_only: bool = False):
    """Every item holds a match of ``pattern``; ``words_only``: a digit anywhere fails the list.

    ``head``: the reference passes a list as soon as one item matches (it reports the other
    items but still returns true).
    """

    def check(_: None, items: Items, ctx: RuleContext) -> Verdict:
        if not items:
            return Verdict.fail("nothing was extracted")
        if words_only and any(_DIGIT.search(item) for item in items):
            return Verdict.fail("numbers must be written in words, not digits")
        bad = [i for i, item in enumerate(items, 1) if not pattern.search(item)]
        if ctx.compat == "head" and len(bad) < len(items):
            return Verdict.ok(f"some item has {what} (items without: {bad})")
        return Verdict.of(not bad, f"items without {what}: {bad}" if bad else f"every item has {what}")

    return check


RULES = [
    rule("french_h_ratio_total", _ratio, check_h_ratio_total),
    rule("french_h_ratio_each", _ratio, check_h_ratio_each),
    rule("french_pronominal_verbs", range_param, per_item_range(pronominal_verbs, "pronominal verbs")),
    rule("french_partitive_articles", range_param, per_item_range(partitive_articles, "partitive articles")),
    rule("french_passe_compose", _passe_compose_params, check_passe_compose),
    rule("french_adverbial_pronoun", _ratio, check_adverbial_pronoun),
    rule("french_adverbial_y", range_param, check_adverbial_y),
    rule("french_ne_usage", _ne_params, check_ne_usage),
    rule("french_punctuation_spacing", no_params, check_punctuation_spacing),
    rule(
        "french_seven_digit_number",
        no_params,
        _each_item_has(_SEVEN_DIGITS, "a seven-digit number grouped as 1 234 567"),
        bare_string="item",
    ),
    rule(
        "is_vigesimal_number",
        no_params,
        _each_item_has(
            _VIGESIMAL, "a vigesimal number word (71–99: soixante-et-onze…, quatre-vingts…)", words_only=True
        ),
        bare_string="item",
    ),
]

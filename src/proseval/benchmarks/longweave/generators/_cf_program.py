"""Polluted Python programs for the Code Fixing task.

A program is a module docstring, imports, helper functions drawn from a small set of
templates, a ``main`` function and a ``__main__`` guard. Its clean form passes flake8 with the
official selection (E, W, F, B, N, SIM, C4; nothing ignored). Pollution happens at *sites*:
every code line, every function name/argument/local/default/body, every blank-line gap between
top-level blocks, the imports and the end of the file. Each site is polluted independently
with probability ``p`` by one violation chosen from those that fit it, and every polluted site
is recorded as ``(line, flake8 code)``. Syntax errors are injected separately and recorded too.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

INDENT = "    "
MAX_LINE = 79

NOUNS = (
    "order",
    "invoice",
    "sensor",
    "reading",
    "ticket",
    "shipment",
    "account",
    "booking",
    "sample",
    "parcel",
    "payment",
    "visit",
    "batch",
    "entry",
    "job",
    "review",
    "claim",
    "trip",
    "device",
    "member",
)
ATTRIBUTES = (
    "amount",
    "weight",
    "score",
    "price",
    "level",
    "duration",
    "rating",
    "volume",
    "distance",
    "quantity",
    "cost",
    "speed",
)
STATUSES = ("active", "pending", "closed", "failed", "ready", "queued")
GROUPS = ("region", "owner", "channel", "category", "team", "source")
COMMENTS = (
    "keep order",
    "quick check",
    "see notes",
    "fast path",
    "tidy later",
    "edge case",
    "main step",
    "safe value",
    "rarely used",
    "from config",
)
UNUSED_MODULES = (
    "os",
    "sys",
    "random",
    "re",
    "csv",
    "shutil",
    "string",
    "itertools",
    "pathlib",
    "textwrap",
)
USED_MODULES = ("json", "math", "time")
FILLER_WORDS = ("details", "follow", "for", "the", "current", "batch", "of", "records", "now")

_ASSIGN = re.compile(r"^([A-Za-z_][\w\[\]\.]*) (=|\+=|-=) (.+)$")
_CALL_OPEN = re.compile(r"\w\((?![)\s])")


@dataclass
class Program:
    """A generated program and its bookkeeping (line numbers are 1-based)."""

    code: str
    function_names: list[str]
    sites: int
    violations: list[tuple[int, str]]
    syntax_slips: list[int]


@dataclass
class _Writer:
    rng: random.Random
    p: float
    lines: list[str] = field(default_factory=list)
    sites: int = 0
    violations: list[tuple[int, str]] = field(default_factory=list)

    def polluted(self) -> bool:
        """Count one site and decide whether it is polluted."""
        self.sites += 1
        return self.rng.random() < self.p

    def next_line(self) -> int:
        return len(self.lines) + 1

    def raw(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text if text else "")

    def line(self, depth: int, text: str, extra: tuple[tuple[str, str], ...] = ()) -> None:
        """Emit a code line that is a site; ``extra`` adds template-specific violations."""
        if self.polluted():
            code, text = self.rng.choice(list(extra) + _generic_variants(self.rng, text))
            self.violations.append((self.next_line(), code))
        self.raw(depth, text)


def _generic_variants(rng: random.Random, text: str) -> list[tuple[str, str]]:
    """Violations that fit any code line of this shape."""
    comment = rng.choice(COMMENTS)
    variants = [("W291", text + "  "), ("E261", f"{text} # {comment}"), ("E262", f"{text}  #{comment}")]
    if text.startswith('"""'):  # docstring: punctuation inside it is not code
        return variants + [("E703", text + ";")]
    if ", " in text:
        variants += [("E231", text.replace(", ", ",", 1)), ("E203", text.replace(", ", " , ", 1))]
    if not text.endswith(":") and text not in ("break", "continue", "pass"):
        variants.append(("E703", text + ";"))
    if text.startswith("return "):
        variants.append(("E271", "return  " + text[len("return ") :]))
    match = _ASSIGN.match(text)
    if match:
        left, op, right = match.groups()
        variants += [
            ("E225", f"{left}{op}{right}"),
            ("E221", f"{left}  {op} {right}"),
            ("E222", f"{left} {op}  {right}"),
        ]
    call = _CALL_OPEN.search(text)
    if call:
        variants.append(("E201", text[: call.end()] + " " + text[call.end() :]))
    close = text.rfind(")")
    if close > 0 and text[close - 1] not in "( ":
        variants.append(("E202", text[:close] + " " + text[close:]))
    return variants


def _camel(name: str) -> str:
    """A non-lowercase spelling of ``name`` (mixedCase, or CapWords for one word)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest) if rest else head.title()


def _long_print(depth: int, message: str) -> str:
    """A print call whose line is longer than the limit (E501)."""
    words = message
    for word in FILLER_WORDS * 4:
        if len(INDENT * depth) + len(f'print("{words}")') > MAX_LINE + 4:
            break
        words += " " + word
    return f'print("{words}")'


# ---------------------------------------------------------------- helper templates
# Each body writer gets the writer and the identifier map; the Template lists the
# placeholders, which of them are parameters and which locals may be renamed (N806).


@dataclass(frozen=True)
class Template:
    verbs: tuple[str, ...]
    params: tuple[str, ...]
    local_names: dict[str, tuple[str, ...]]
    docstring: str
    body: Callable[[_Writer, dict[str, str]], None]
    renamable: tuple[str, ...]


def _total(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"{n['total']} = 0")
    w.line(1, f"{n['count']} = 0")
    w.line(1, f"for {n['item']} in {n['items']}:")
    w.line(2, f'{n["value"]} = {n["item"]}.get("{n["attr"]}", 0)')
    w.line(2, f"if {n['value']} > {n['limit']}:")
    w.line(3, f"{n['total']} += {n['value']}")
    w.line(3, f"{n['count']} += 1")
    w.line(1, f"return {n['total']}, {n['count']}")


def _select(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"{n['chosen']} = []")
    w.line(1, f"for {n['item']} in {n['items']}:")
    w.line(2, f'if {n["item"]}.get("status") == "{n["status"]}":')
    w.line(3, f"{n['chosen']}.append({n['item']})")
    w.line(1, f"return {n['chosen']}[:{n['limit']}]")


def _find(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"{n['found']} = None")
    w.line(1, f"for {n['item']} in {n['items']}:")
    w.line(2, f'if {n["item"]}.get("id") == {n["key"]}:')
    w.line(3, f"{n['found']} = {n['item']}")
    w.line(3, "break")
    w.line(1, f"if {n['found']} is None:", (("E711", f"if {n['found']} == None:"),))
    w.line(2, f'print("No {n["item"]} for", {n["key"]})')
    w.line(1, f"return {n['found']}")


def _label(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"{n['size']} = len({n['batch']})")
    w.line(1, f"{n['big']} = {n['size']} > {n['limit']}")
    if w.polluted():
        w.violations.append((w.next_line(), "SIM108"))
        w.raw(1, f"if {n['big']}:")
        w.raw(2, f"{n['label']} = 2")
        w.raw(1, "else:")
        w.raw(2, f"{n['label']} = 1")
    else:  # kept short: flake8-simplify skips SIM108 when its message exceeds 79 chars
        w.line(1, f"{n['label']} = 2 if {n['big']} else 1")
    w.line(1, f'return {{"size": {n["size"]}, "tier": {n["label"]}}}')


def _count(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"{n['counts']} = {{}}", (("C408", f"{n['counts']} = dict()"),))
    w.line(1, f"for {n['item']} in {n['items']}:")
    w.line(2, f'{n["key"]} = {n["item"]}.get("{n["group"]}", "unknown")')
    w.line(2, f"{n['counts']}[{n['key']}] = {n['counts']}.get({n['key']}, 0) + 1")
    w.line(1, f"return {n['counts']}")


def _report(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f'print("Summary:", {n["title"]})')
    w.line(1, f"for {n['key']} in sorted({n['stats']}):")
    w.line(2, f"print({n['key']}, {n['stats']}[{n['key']}])")
    w.line(1, f'if "total" in {n["stats"]}:', (("SIM118", f'if "total" in {n["stats"]}.keys():'),))
    w.line(2, f'print("Total:", {n["stats"]}["total"])')
    message = f"End of {n['item']} summary"
    w.line(1, f'print("{message}")', (("F541", f'print(f"{message}")'), ("E501", _long_print(1, message))))
    w.line(1, f"return len({n['stats']})")


def _repeat(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"{n['misses']} = 0")
    w.line(1, f"for _ in range({n['rounds']}):", (("B007", f"for {n['step']} in range({n['rounds']}):"),))
    w.line(2, f"{n['misses']} += sum(1 for {n['item']} in {n['items']} if not {n['item']})")
    w.line(1, f"return {n['misses']}")


def _scale(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"if not {n['values']}:")
    w.line(2, "return []")
    w.line(1, f"{n['low']} = min({n['values']})")
    w.line(1, f"{n['high']} = max({n['values']})")
    w.line(1, f"{n['span']} = {n['high']} - {n['low']} or 1")
    w.line(1, f"return [({n['v']} - {n['low']}) / {n['span']} for {n['v']} in {n['values']}]")


def _stats(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"{n['size']} = len({n['values']})")
    w.line(1, f"if {n['size']} == 0:")
    w.line(2, "return 0.0, 0.0")
    w.line(1, f"{n['mean']} = sum({n['values']}) / {n['size']}")
    w.line(1, f"{n['spread']} = sum(({n['v']} - {n['mean']}) ** 2 for {n['v']} in {n['values']})")
    w.line(1, f"return {n['mean']}, math.sqrt({n['spread']} / {n['size']})")


def _validate(w: _Writer, n: dict[str, str]) -> None:
    w.line(1, f"{n['passed']} = []")
    w.line(1, f"for {n['item']} in {n['items']}:")
    w.line(2, f'{n["ok"]} = {n["item"]}.get("valid", False)')
    w.line(2, f"if {n['ok']} or not {n['strict']}:", (("E712", f"if {n['ok']} == True or not {n['strict']}:"),))
    w.line(3, f"{n['passed']}.append({n['item']})")
    w.line(1, f"return {n['passed']}")


def _merge(w: _Writer, n: dict[str, str]) -> None:
    comprehension = f"{{k: v for k, v in {n['first']}.items()}}"
    w.line(1, f"{n['merged']} = dict({n['first']})", (("C416", f"{n['merged']} = {comprehension}"),))
    w.line(1, f"for {n['key']}, {n['value']} in {n['second']}.items():")
    w.line(2, f"{n['merged']}[{n['key']}] = {n['merged']}.get({n['key']}, 0) + {n['value']}")
    w.line(1, f"return {n['merged']}")


TEMPLATES: tuple[Template, ...] = (
    Template(
        ("total", "sum"),
        ("items", "limit"),
        {
            "total": ("total", "subtotal", "running_total"),
            "count": ("count", "hits", "matched"),
            "value": ("value", "current", "measured"),
            "limit": ("threshold", "minimum", "floor_value"),
        },
        "Return the total {attr} of {items} above a threshold.",
        _total,
        ("total", "count", "value"),
    ),
    Template(
        ("select", "pick"),
        ("items", "limit"),
        {"chosen": ("chosen", "selected", "kept"), "limit": ("limit", "max_items", "cap")},
        "Return up to a limit of {items} with status {status}.",
        _select,
        ("chosen",),
    ),
    Template(
        ("find", "lookup"),
        ("items", "key"),
        {"found": ("found", "match", "result"), "key": ("key", "wanted_id", "target_id")},
        "Return the {item} with the given id or None.",
        _find,
        ("found",),
    ),
    Template(
        ("label", "classify"),
        ("batch", "limit"),
        {
            "size": ("size", "batch_size", "length"),
            "label": ("rank", "tier", "grade"),
            "big": ("big", "over", "high"),
            "limit": ("threshold", "cutoff", "boundary"),
        },
        "Rank a batch of {items} by size.",
        _label,
        ("size", "big"),
    ),
    Template(
        ("count", "tally"),
        ("items",),
        {"counts": ("counts", "totals", "per_group"), "key": ("group_key", "bucket", "slot")},
        "Count {items} per {group}.",
        _count,
        ("counts", "key"),
    ),
    Template(
        ("print", "show"),
        ("stats", "title"),
        {"key": ("key", "name", "field"), "title": ("title", "heading", "caption")},
        "Print every entry of a {item} summary.",
        _report,
        (),
    ),
    Template(
        ("recount", "scan"),
        ("items", "rounds"),
        {
            "misses": ("misses", "empty_count", "blanks"),
            "rounds": ("rounds", "passes", "repeats"),
            "step": ("step", "attempt", "pass_no"),
        },
        "Count empty {items} over several passes.",
        _repeat,
        ("misses",),
    ),
    Template(
        ("scale", "normalize"),
        ("values",),
        {
            "low": ("low", "smallest", "lower"),
            "high": ("high", "largest", "upper"),
            "span": ("span", "width", "extent"),
            "v": ("v", "x", "point"),
        },
        "Scale {attr} values to the range 0 to 1.",
        _scale,
        ("low", "high", "span"),
    ),
    Template(
        ("describe", "measure"),
        ("values",),
        {
            "size": ("size", "n_values", "how_many"),
            "mean": ("mean", "average", "centre"),
            "spread": ("spread", "squares", "deviation"),
            "v": ("v", "x", "point"),
        },
        "Return the mean and spread of {attr} values.",
        _stats,
        ("size", "mean", "spread"),
    ),
    Template(
        ("validate", "check"),
        ("items", "strict"),
        {
            "passed": ("passed", "accepted", "good"),
            "ok": ("ok", "is_valid", "flag"),
            "strict": ("strict", "enforce", "careful"),
        },
        "Return the {items} that passed validation.",
        _validate,
        ("passed", "ok"),
    ),
    Template(
        ("merge", "combine"),
        ("first", "second"),
        {
            "merged": ("merged", "combined", "joined"),
            "key": ("key", "name", "label"),
            "value": ("value", "amount_in", "extra"),
        },
        "Merge two {item} mappings and add shared keys.",
        _merge,
        ("merged",),
    ),
)


def _identifiers(rng: random.Random, template: Template) -> dict[str, str]:
    noun = rng.choice(NOUNS)
    attr = rng.choice(ATTRIBUTES)
    names = {
        "item": noun,
        "items": noun + "s",
        "batch": noun + "_batch",
        "attr": attr,
        "values": attr + "_values",
        "stats": noun + "_stats",
        "status": rng.choice(STATUSES),
        "group": rng.choice(GROUPS),
        "first": "first_" + noun,
        "second": "second_" + noun,
    }
    for placeholder, options in template.local_names.items():
        names[placeholder] = rng.choice(options)
    return names


def _function(w: _Writer, template: Template, used_names: set[str], slip_rate: float) -> tuple[str, int | None]:
    """Write one helper function; return its final name and the line of its syntax slip."""
    rng = w.rng
    n = _identifiers(rng, template)
    base = f"{rng.choice(template.verbs)}_{n['items']}"
    name = base if base not in used_names else f"{base}_{len(used_names)}"
    used_names.add(name)
    def_line = w.next_line()
    naming = []
    if w.polluted():
        name = _camel(name)
        naming.append("N802")
    first = template.params[0]
    if w.polluted():
        n[first] = _camel(n[first])
        naming.append("N803")
    renamed = None
    if template.renamable and w.polluted():
        renamed = rng.choice(template.renamable)
        n[renamed] = _camel(n[renamed])
    default = ""
    if w.polluted():
        code, default = rng.choice((("B006", ", cache={}"), ("B008", ", stamp=time.time()")))
        naming.append(code)
    slip = rng.random() < slip_rate
    args = ", ".join(n[param] for param in template.params)
    w.line(0, f"def {name}({args}{default})" + ("" if slip else ":"))
    w.violations.extend((def_line, code) for code in naming)
    doc = template.docstring.format(**n)
    w.line(1, f'"""{doc}"""')
    if w.polluted():
        w.violations.append((w.next_line(), "F841"))
        unused = rng.choice(("scratch", "spare", "debug_flag"))
        w.raw(1, f"{unused} = {rng.choice(('0', 'None', '[]'))}")
    start = len(w.lines)
    template.body(w, n)
    if renamed:
        pattern = re.compile(rf"^\s*{re.escape(n[renamed])}\s*=[^=]")
        line = next(i for i, text in enumerate(w.lines[start:], start + 1) if pattern.match(text))
        w.violations.append((line, "N806"))
    return name, def_line if slip else None


def _main(w: _Writer) -> None:
    w.line(0, "def main():")
    w.line(1, '"""Run a small demonstration."""')
    w.line(1, "started = time.time()")
    w.line(1, 'data = [{"id": 1, "amount": 5, "status": "active"}]')
    w.line(1, "print(json.dumps(data))")
    w.line(1, "elapsed = time.time() - started")
    w.line(1, 'print("Elapsed seconds:", math.floor(elapsed))')


def _gap(w: _Writer) -> None:
    """Two blank lines before a top-level block; a site for E302 (one) or E303 (three)."""
    if w.polluted():
        code, blanks = w.rng.choice((("E302", 1), ("E303", 3)))
        w.lines.extend([""] * blanks)
        w.violations.append((w.next_line(), code))
    else:
        w.lines.extend(["", ""])


def write_program(
    rng: random.Random,
    num_functions: int,
    p: float,
    unused_import_sites: int,
    slip_rate: float,
) -> Program:
    """A polluted program with ``num_functions`` helpers plus ``main``."""
    w = _Writer(rng, p)
    w.raw(0, f'"""Helpers for {rng.choice(NOUNS)} records."""')
    w.raw(0, "")
    unused = []
    for module in rng.sample(UNUSED_MODULES, unused_import_sites):
        if w.polluted():  # F401
            unused.append(module)
    # E402 moves `json` (used only inside main) below the first function.
    late = "json" if w.polluted() else None
    modules = sorted(m for m in (*USED_MODULES, *unused) if m != late)
    combine = w.polluted()  # E401 on the first two imports
    head = [modules[:2], *([m] for m in modules[2:])] if combine else [[m] for m in modules]
    for group in head:
        if len(group) > 1:
            w.violations.append((w.next_line(), "E401"))
        w.violations.extend((w.next_line(), "F401") for m in group if m in unused)
        w.raw(0, "import " + ", ".join(group))

    names: list[str] = []
    slips: list[int] = []
    used_names: set[str] = set()
    for position in range(num_functions):
        _gap(w)
        name, slip_line = _function(w, rng.choice(TEMPLATES), used_names, slip_rate)
        names.append(name)
        if slip_line is not None:
            slips.append(slip_line)
        if position == 0 and late:
            w.lines.extend(["", ""])
            w.violations.append((w.next_line(), "E402"))
            if late in unused:
                w.violations.append((w.next_line(), "F401"))
            w.raw(0, f"import {late}")
    _gap(w)
    _main(w)
    names.append("main")
    if w.polluted():
        w.lines.append("")
        w.violations.append((w.next_line(), "E305"))
    else:
        w.lines.extend(["", ""])
    w.raw(0, 'if __name__ == "__main__":')
    w.raw(1, "main()")
    code = "\n".join(w.lines)
    if w.polluted():
        eof_code = rng.choice(("W292", "W391"))
        w.violations.append((len(w.lines) + (1 if eof_code == "W391" else 0), eof_code))
        code += "" if eof_code == "W292" else "\n\n"
    else:
        code += "\n"
    return Program(code, names, w.sites, sorted(w.violations), slips)

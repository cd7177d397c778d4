"""Generating new Meeseeks items from a parameterised item template.

A template is a JSON object (see `ItemTemplate`)::

    {
      "name": "poem_lines",
      "language": "en",
      "parameters": {"n": [3, 4], "topic": ["the sea", "autumn"], "k": {"first": 2, "last": 6, "step": 2}},
      "limit": 5, "seed": 1,
      "item": {"category": "general_multi", "question": "Write a poem of {n} lines about {topic} ...",
               "sub_questions": [{"point_id": 0, "rule": "item_count:[{n},{n}]", ...}], ...}
    }

Every string of ``item`` (values and object keys, at any depth) may contain placeholders
``{expression}``; ``{{`` and ``}}`` stand for literal braces. An expression is arithmetic over
the parameters: numbers, parameter names, ``+ - * / // % **`` (exponent at most
`MAX_EXPONENT`), unary minus, parentheses and ``min``/``max``/``round``. It is parsed with
`ast` and walked node by node — never evaluated by Python. Every placeholder must name at
least one parameter, so stray braces (``\\d{8}`` in a regular expression, a JSON example in a
question) are rejected instead of being silently rewritten. A string that is exactly one
placeholder takes the value's type (e.g. ``"maxItems": "{n}"`` becomes a number); elsewhere the
value is inserted as text (an integral float is written without ``.0``). Inserted values are
not scanned again.

Items are the cartesian product of the parameters in the order they are declared, the last one
varying fastest. ``limit`` keeps the first ``limit`` combinations, or, with ``seed``, a seeded
random sample of ``limit`` combinations (output still in product order). Each item gets
``data_id = "<name>#<combination index>"`` and is validated with the data loader's item model.
"""

from __future__ import annotations

import ast
import json
import math
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from .data import LANGUAGE_TOKENS, LANGUAGES, MeeseeksDataError, parse_item
from .deps import DependencyGraph

Value = int | float | str

MAX_EXPRESSION_CHARS = 200
MAX_EXPONENT = 64
MAX_MAGNITUDE = 10**15
MAX_ROUND_DIGITS = 15
MAX_ITEMS = 10_000
FUNCTIONS = ("min", "max", "round")

_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_NAME_PATTERN = r"^[A-Za-z0-9_.-]+$"


class TemplateError(ValueError):
    """A template that cannot be expanded; the message names the file and the placeholder."""


class PlaceholderError(ValueError):
    """An expression that is not allowed or cannot be computed (the message says why)."""


class IntRange(BaseModel):
    """Integers from ``first`` to ``last`` inclusive, by ``step``."""

    model_config = ConfigDict(extra="forbid")

    first: StrictInt
    last: StrictInt
    step: StrictInt = 1

    @model_validator(mode="after")
    def _direction(self) -> IntRange:
        if self.step == 0 or (self.last - self.first) * self.step < 0:
            raise ValueError(f"step {self.step} never goes from {self.first} to {self.last}")
        return self

    def values(self) -> range:
        return range(self.first, self.last + (1 if self.step > 0 else -1), self.step)


class ItemTemplate(BaseModel):
    """A parameterised Meeseeks item.

    ``parameters`` maps a name (a letter, then letters, digits or ``_``) to a non-empty list
    of numbers/strings or to an `IntRange`. ``item`` follows the official item schema.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=_NAME_PATTERN)
    language: str
    parameters: dict[str, list[StrictInt | StrictFloat | StrictStr] | IntRange]
    item: dict[str, Any]
    limit: int | None = Field(default=None, ge=1, le=MAX_ITEMS)
    seed: int | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ItemTemplate:
        if self.language not in LANGUAGES:
            raise ValueError(f"language {self.language!r} is not one of {', '.join(LANGUAGES)}")
        for name, values in self.parameters.items():
            if not _IDENTIFIER.fullmatch(name) or name in FUNCTIONS:
                raise ValueError(
                    f"parameter name {name!r} must be a letter then letters, digits or _, "
                    f"and not one of {', '.join(FUNCTIONS)}"
                )
            if isinstance(values, list) and not values:
                raise ValueError(f"parameter {name!r} has no values")
        if self.seed is not None and self.limit is None:
            raise ValueError("seed is only used together with limit")
        return self


# ---------------------------------------------------------------- expressions


def _number(value: Any, what: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PlaceholderError(f"{what} is not a number ({value!r})")
    return value


def _bounded(value: int | float) -> int | float:
    if (isinstance(value, float) and not math.isfinite(value)) or abs(value) > MAX_MAGNITUDE:
        raise PlaceholderError(f"result out of range (|value| > {MAX_MAGNITUDE})")
    return value


def _power(base: int | float, exponent: int | float) -> int | float:
    if abs(exponent) > MAX_EXPONENT:
        raise PlaceholderError(f"exponent {exponent} exceeds {MAX_EXPONENT}")
    result = base**exponent
    if isinstance(result, complex):
        raise PlaceholderError("fractional power of a negative number")
    return result


_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: _power,
}


def _call(node: ast.Call, bindings: Mapping[str, Value]) -> int | float:
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        raise PlaceholderError(f"only calls to {', '.join(FUNCTIONS)} are allowed")
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        raise PlaceholderError(f"{node.func.id}() takes plain positional arguments only")
    args = [_number(_walk(a, bindings), f"argument of {node.func.id}()") for a in node.args]
    if node.func.id == "round":
        if not 1 <= len(args) <= 2 or (
            len(args) == 2 and (not isinstance(args[1], int) or abs(args[1]) > MAX_ROUND_DIGITS)
        ):
            raise PlaceholderError(
                f"round() takes a number and optionally a number of digits between "
                f"-{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}"
            )
        return round(args[0], int(args[1])) if len(args) == 2 else round(args[0])
    if len(args) < 2:
        raise PlaceholderError(f"{node.func.id}() needs at least two numbers")
    return (min if node.func.id == "min" else max)(args)


def _walk(node: ast.AST, bindings: Mapping[str, Value]) -> Value:
    if isinstance(node, ast.Expression):
        return _walk(node.body, bindings)
    if isinstance(node, ast.Constant):
        return _number(node.value, "constant")
    if isinstance(node, ast.Name):
        if node.id not in bindings:
            raise PlaceholderError(f"unknown name {node.id!r}")
        return bindings[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _number(_walk(node.operand, bindings), "operand")
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _number(_walk(node.left, bindings), "left operand")
        right = _number(_walk(node.right, bindings), "right operand")
        try:
            return _bounded(_BINARY[type(node.op)](left, right))
        except (ArithmeticError, ValueError) as exc:
            raise PlaceholderError(f"arithmetic error: {exc}") from exc
    if isinstance(node, ast.Call):
        return _bounded(_call(node, bindings))
    raise PlaceholderError(f"{type(node).__name__} is not allowed")


def parse_expression(expression: str) -> ast.Expression:
    """Parse a placeholder expression (syntax only; `evaluate` checks what it uses)."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise PlaceholderError(f"longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        return ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise PlaceholderError(f"not a valid expression ({exc.__class__.__name__})") from exc


def evaluate(expression: str, bindings: Mapping[str, Value]) -> Value:
    """Value of a placeholder expression under ``bindings`` (only the allowed arithmetic).

    A bare parameter name may be a string; arithmetic needs numbers. The expression must
    use at least one name.
    """
    tree = parse_expression(expression)
    if not any(isinstance(n, ast.Name) and n.id not in FUNCTIONS for n in ast.walk(tree)):
        raise PlaceholderError("uses no parameter (write {{ and }} for literal braces)")
    try:
        value = _walk(tree, bindings)
    except RecursionError as exc:
        raise PlaceholderError("expression nested too deeply") from exc
    return _bounded(value) if not isinstance(value, str) else value


# ---------------------------------------------------------------- strings


def _segments(text: str) -> list[tuple[bool, str]]:
    """Split a template string into (is_placeholder, text) segments; raises on stray braces."""
    segments: list[tuple[bool, str]] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in "{}" and text[i + 1 : i + 2] == char:
            literal.append(char)
            i += 2
        elif char == "{":
            end = text.find("}", i + 1)
            if end < 0 or "{" in text[i + 1 : end]:
                raise PlaceholderError(f"unclosed '{{' at character {i} (write {{{{ for a literal brace)")
            if literal:
                segments.append((False, "".join(literal)))
                literal = []
            segments.append((True, text[i + 1 : end]))
            i = end + 1
        elif char == "}":
            raise PlaceholderError(f"single '}}' at character {i} (write }}}} for a literal brace)")
        else:
            literal.append(char)
            i += 1
    if literal:
        segments.append((False, "".join(literal)))
    return segments


def _as_text(value: Value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _fill(text: str, bindings: Mapping[str, Value], where: str) -> Value:
    try:
        segments = _segments(text)
    except PlaceholderError as exc:
        raise TemplateError(f"{where}: {exc}") from exc
    values: list[Value] = []
    for is_placeholder, part in segments:
        if not is_placeholder:
            values.append(part)
            continue
        try:
            values.append(evaluate(part, bindings))
        except PlaceholderError as exc:
            shown = ", ".join(f"{k}={v!r}" for k, v in bindings.items())
            raise TemplateError(f"{where}: placeholder {{{part}}}: {exc} (with {shown})") from exc
    if len(segments) == 1 and segments[0][0]:
        value = values[0]
        return int(value) if isinstance(value, float) and value.is_integer() else value
    return "".join(_as_text(v) for v in values)


def _fill_tree(node: Any, bindings: Mapping[str, Value], where: str) -> Any:
    if isinstance(node, str):
        return _fill(node, bindings, where)
    if isinstance(node, list):
        return [_fill_tree(v, bindings, f"{where}[{i}]") for i, v in enumerate(node)]
    if isinstance(node, dict):
        filled: dict[str, Any] = {}
        for key, value in node.items():
            new_key = _as_text(_fill(key, bindings, f"{where} key {key!r}"))
            if new_key in filled:
                raise TemplateError(f"{where}: key {key!r} becomes {new_key!r}, which is already present")
            filled[new_key] = _fill_tree(value, bindings, f"{where}.{key}")
        return filled
    return node


# ---------------------------------------------------------------- expansion


def _combination(index: int, domains: list[list[Value] | range]) -> list[Value]:
    """The ``index``-th combination of the cartesian product (last domain fastest)."""
    values: list[Value] = []
    for domain in reversed(domains):
        index, position = divmod(index, len(domain))
        values.append(domain[position])
    return values[::-1]


def _selected(total: int, limit: int | None, seed: int | None) -> list[int] | range:
    if limit is None:
        return range(total)
    if seed is None:
        return range(min(limit, total))
    return sorted(random.Random(seed).sample(range(total), min(limit, total)))


def _check_item(item: dict[str, Any], template: ItemTemplate, source: str, index: int) -> None:
    where = f"{source}: item {index}"
    parse_item(item, source_file=source, index=index, language=template.language)
    subs = item["sub_questions"]
    try:
        DependencyGraph.build([s.get("point_id") for s in subs], [s.get("dep") for s in subs], where)
    except (TypeError, ValueError) as exc:
        raise MeeseeksDataError(str(exc)) from exc
    parts = item.get("corresponding_parts") or {}
    for position, sub in enumerate(subs):
        rule, part = sub.get("rule"), sub.get("corresponding_part")
        if rule and not str(rule).startswith("SCHEMA") and part not in parts:
            raise MeeseeksDataError(
                f"{where}, sub-question {position}: rule {rule!r} needs a corresponding_part "
                f"that is a key of corresponding_parts (got {part!r})"
            )


def parse_template(raw: Any, source: str = "<template>") -> ItemTemplate:
    """Validate a template object; errors name ``source``."""
    try:
        return ItemTemplate.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'template'}: {e['msg']}" for e in exc.errors())
        raise TemplateError(f"{source}: {problems}") from exc


def expand_template(
    template: Mapping[str, Any] | ItemTemplate,
    *,
    source: str = "<template>",
    limit: int | None = None,
    seed: int | None = None,
) -> list[dict[str, Any]]:
    """New items in the official item schema, one per selected parameter combination.

    ``limit``/``seed`` override the template's. Each item is checked with the data loader's
    item model, its dependencies and its part references; errors name ``source``, the item
    (combination index) and, for placeholders, the field and the parameter values.
    """
    spec = template if isinstance(template, ItemTemplate) else parse_template(template, source)
    limit = spec.limit if limit is None else limit
    seed = spec.seed if seed is None else seed
    if limit is not None and not 1 <= limit <= MAX_ITEMS:
        raise TemplateError(f"{source}: limit {limit} is not between 1 and {MAX_ITEMS}")
    if seed is not None and limit is None:
        raise TemplateError(f"{source}: seed is only used together with limit")
    names = list(spec.parameters)
    domains = [v.values() if isinstance(v, IntRange) else v for v in spec.parameters.values()]
    total = math.prod(len(d) for d in domains)
    if total == 0:
        raise TemplateError(f"{source}: a parameter range is empty")
    if limit is None and total > MAX_ITEMS:
        raise TemplateError(f"{source}: {total} combinations exceed {MAX_ITEMS}; set a limit")
    items = []
    for index in _selected(total, limit, seed):
        bindings = dict(zip(names, _combination(index, domains)))
        item = _fill_tree(spec.item, bindings, f"{source}: item {index}: item")
        item["data_id"] = f"{spec.name}#{index}"
        _check_item(item, spec, source, index)
        items.append(item)
    return items


def load_template(path: Path) -> ItemTemplate:
    """Read and validate a template file; errors name the file (and the JSON line)."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TemplateError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    return parse_template(raw, str(path))


def data_file_name(name: str, language: str) -> str:
    """A file name that the data loader reads as ``language`` (e.g. ``DATA-poem英语版.json``)."""
    token = next((t for t, code in LANGUAGE_TOKENS.items() if code == language), None)
    if token is None:
        raise ValueError(f"unknown language code {language!r}")
    return f"DATA-{name}{token}版.json"

"""``SCHEMA:json_schema``: the whole response must hold JSON matching the item's schema.

The check is split into validation points, one per field: for an object schema one per
required property of every object found (so several returned objects give several sets),
for an array schema one per property of the item objects, aggregated over the array.
Nested arrays of objects add ``parent[*].child`` points.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from ..text import Compat
from .base import RuleContext, Verdict
from .spec import no_params, rule

DEFAULT_TAG = "JSON"
TAG_KEYS = ("能力项", "能力項", "능력항")


@dataclass(frozen=True)
class SchemaPoint:
    """One field-level validation result; ``tags`` is ``"<property tag>、JSON"``."""

    path: str
    passed: bool
    reason: str
    tags: str


# --- JSON extraction ---------------------------------------------------------------

_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)
_SHALLOW_OBJECT = re.compile(r"\{(?:[^{}]|\{[^{}]*\})*\}")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_OPENING = re.compile(r"[\[{]")


def _loads(text: str) -> Any:
    """A JSON or Python literal value, or raise ValueError."""
    text = text.strip()
    if not text:
        raise ValueError("empty")
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    tweaked = re.sub(r"\bundefined\b", "null", text)
    try:
        return json.loads(tweaked)
    except json.JSONDecodeError:
        return json.loads(_CONTROL.sub("", tweaked))


def _balanced_end(text: str, start: int) -> int | None:
    """Index after the bracket closing the one at ``start`` (quotes respected), if any."""
    closing = {"{": "}", "[": "]"}
    stack, quote, escaped = [], None, False
    for i in range(start, len(text)):
        c = text[i]
        if quote:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in closing:
            stack.append(closing[c])
        elif c in "]}":
            if not stack or stack.pop() != c:
                return None
            if not stack:
                return i + 1
    return None


def _scan_values(text: str) -> list[Any]:
    """Every complete top-level JSON (or Python-literal) object/array found in the text."""
    values, pos = [], 0
    while (match := _OPENING.search(text, pos)) is not None:
        end = _balanced_end(text, match.start())
        if end is not None:
            try:
                values.append(_loads(text[match.start() : end]))
                pos = end
                continue
            except ValueError:
                pass
        pos = match.start() + 1
    return values


def _head_extract(text: str) -> Any:
    """The reference parser: literal/JSON of the whole text, else shallow ``{...}`` matches."""
    try:
        return _loads(text)
    except ValueError:
        pass
    found = []
    for chunk in _SHALLOW_OBJECT.findall(text):
        try:
            found.append(_loads(chunk))
        except ValueError:
            continue
    if not found:
        raise ValueError("no JSON found")
    return found


def extract_json(text: str, compat: Compat = "fixed") -> Any:
    """The JSON value a response holds; raises ValueError when there is none.

    Fixed: the whole text, else the first fenced block, else every complete JSON value
    found in the text (one value → that value, several → a list of them).
    """
    if compat == "head":
        return _head_extract(text)
    for candidate in (text, *(m.group(1) for m in _FENCE.finditer(text))):
        try:
            return _loads(candidate)
        except ValueError:
            continue
    values = _scan_values(text)
    if not values:
        raise ValueError("no JSON found")
    return values[0] if len(values) == 1 else values


# --- validation points -------------------------------------------------------------


def _tag(prop_schema: dict) -> str:
    tag = next((prop_schema[k] for k in TAG_KEYS if k in prop_schema), DEFAULT_TAG)
    return f"{tag}、{DEFAULT_TAG}"


def _error(value: Any, schema: dict) -> str | None:
    import jsonschema

    validator = jsonschema.Draft7Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    return None if error is None else error.message


def _object_points(obj: dict, schema: dict, prefix: str) -> list[SchemaPoint]:
    points = []
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        prop = properties.get(name, {})
        path = f"{prefix}{name}"
        if name not in obj:
            points.append(SchemaPoint(path, False, f"{path}: required field missing", _tag(prop)))
            continue
        error = _error(obj[name], prop)
        points.append(SchemaPoint(path, error is None, f"{path}: {error or 'valid'}", _tag(prop)))
        points.extend(_nested_points(obj[name], prop, path))
    return points


def _nested_points(value: Any, prop: dict, path: str) -> list[SchemaPoint]:
    items = prop.get("items")
    if prop.get("type") == "array" and isinstance(items, dict) and items.get("properties"):
        return _array_points(value if isinstance(value, list) else [], items, f"{path}[*].")
    if prop.get("type") == "object" and prop.get("properties") and isinstance(value, dict):
        return _object_points(value, prop, f"{path}.")
    return []


def _array_points(elements: list, item_schema: dict, prefix: str) -> list[SchemaPoint]:
    """One point per item property, over all objects of the array (present values only)."""
    objects = [e for e in elements if isinstance(e, dict)]
    points = []
    for name, prop in item_schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        values = [o[name] for o in objects if name in o]
        if not values:
            points.append(SchemaPoint(path, False, f"{path}: field not found in any array item", _tag(prop)))
            continue
        errors = [f"item {i}: {e}" for i, v in enumerate(values, 1) if (e := _error(v, prop))]
        reason = (
            f"{path}: {len(errors)} of {len(values)} values invalid ({'; '.join(errors)})"
            if errors
            else f"{path}: {len(values)} valid values"
        )
        points.append(SchemaPoint(path, not errors, reason, _tag(prop)))
    return points


def schema_points(response: str, schema: dict, compat: Compat = "fixed") -> list[SchemaPoint] | None:
    """Validation points of ``response`` against ``schema``; ``None`` when no JSON is found."""
    try:
        data = extract_json(response, compat)
    except ValueError:
        return None
    if schema.get("type") == "array":
        elements = data if isinstance(data, list) else [data]
        return _array_points(elements, schema.get("items", {}), "[*].")
    objects = data if isinstance(data, list) else [data]
    return [p for obj in objects if isinstance(obj, dict) for p in _object_points(obj, schema, "")]


def check_schema(_: None, response: str | list[str], ctx: RuleContext) -> Verdict:
    """Passes when JSON is found and every validation point passes."""
    if ctx.json_schema is None:
        return Verdict.undecidable("the item has no json_schema")
    if not isinstance(response, str):
        response = "\n".join(response)
    points = schema_points(response, ctx.json_schema, ctx.compat)
    if points is None:
        return Verdict.fail("no JSON could be parsed from the response")
    if not points:
        return Verdict.fail("the JSON holds no object to validate")
    failed = [p.reason for p in points if not p.passed]
    return Verdict.of(not failed, "; ".join(failed) if failed else f"all {len(points)} fields valid")


RULES = [
    rule(
        "SCHEMA",
        no_params,
        check_schema,
        family="schema",
        dispatchers=("cjk", "latin"),
        requires=("jsonschema",),
        bare_string="raw",
    )
]

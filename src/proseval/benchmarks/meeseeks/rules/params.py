"""Parsing of rule-label parameters. Labels are data: they are parsed, never evaluated."""

from __future__ import annotations

import ast
import re

from .base import ParameterError

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def list_param(label: str) -> list:
    """The literal list between the first ``[`` and the last ``]`` of the label."""
    start, end = label.find("["), label.rfind("]")
    if start < 0 or end < start:
        raise ParameterError(f"no [...] parameter in rule {label!r}")
    try:
        value = ast.literal_eval(label[start : end + 1])
    except (ValueError, SyntaxError) as exc:
        raise ParameterError(f"unparsable list parameter in rule {label!r}: {exc}") from exc
    if not isinstance(value, list):
        raise ParameterError(f"parameter of rule {label!r} is not a list")
    return value


def range_param(label: str) -> tuple[float, float]:
    """A ``[min, max]`` parameter (floats allowed)."""
    values = list_param(label)
    if len(values) != 2 or not all(isinstance(v, (int, float)) for v in values):
        raise ParameterError(f"rule {label!r} needs a [min, max] parameter")
    return float(values[0]), float(values[1])


def string_list_param(label: str) -> list[str]:
    """A list of strings (keywords, suffixes, notations)."""
    values = list_param(label)
    return [str(v) for v in values]


def name_suffix(label: str, prefix: str, default: int = 1) -> int:
    """The integer written right after ``prefix`` (``word_freq3`` → 3); ``default`` if none."""
    match = re.match(re.escape(prefix) + r"(\d+)", label, flags=re.IGNORECASE)
    return int(match.group(1)) if match else default


def after_colon(label: str) -> str:
    """Everything after the first ``:`` (empty when there is none)."""
    _, sep, rest = label.partition(":")
    return rest if sep else ""


def int_after_colon(label: str) -> int:
    """An integer parameter after the first ``:`` (``has_dakuten_count:12``)."""
    match = _NUMBER.search(after_colon(label))
    if not match:
        raise ParameterError(f"rule {label!r} needs an integer parameter")
    return int(float(match.group(0)))


def numbers(text: str) -> list[float]:
    """All numbers written in ``text``."""
    return [float(m) for m in _NUMBER.findall(text)]

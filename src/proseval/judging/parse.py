"""Reading judge answers: JSON found anywhere in the text, repaired when slightly broken."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.score import ParseStatus
from .jsonfind import find_json_values, repair_json_value
from .reasoning import strip_reasoning


@dataclass(frozen=True)
class Parsed:
    value: Any
    status: ParseStatus
    detail: str = ""


def extract_json(text: str) -> Parsed:
    """The first JSON object or array in `text`: exact if possible, else repaired, else unparsable."""
    cleaned = strip_reasoning(text or "").text
    if not cleaned.strip():
        return Parsed(None, "empty", "the judge returned no text")
    values = find_json_values(cleaned)
    if values:
        return Parsed(values[0], "ok")
    repaired = repair_json_value(cleaned)
    if isinstance(repaired, (dict, list)):
        return Parsed(repaired, "repaired")
    return Parsed(None, "unparsable", f"no JSON found in: {cleaned[:200]!r}")


def parse_score(value: Any, low: int, high: int) -> Parsed:
    """An integer score in [low, high]; "7", 7.0 and "7/10" are accepted, 7.5 and 11 are not."""
    if isinstance(value, bool) or value is None:
        return Parsed(None, "unparsable", f"score missing or not a number: {value!r}")
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(-?\d+(?:\.0+)?)\s*(?:/\s*\d+)?\s*", value)
        if not match:
            return Parsed(None, "unparsable", f"score is not a number: {value!r}")
        value = float(match.group(1))
    if not isinstance(value, (int, float)) or float(value) != int(value):
        return Parsed(None, "unparsable", f"score is not an integer: {value!r}")
    if not low <= int(value) <= high:
        return Parsed(None, "out_of_range", f"score {int(value)} outside {low}–{high}")
    return Parsed(int(value), "ok")

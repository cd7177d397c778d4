"""Reading judge answers: JSON found anywhere in the text, repaired when slightly broken."""

from __future__ import annotations

import math
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


_NUMERIC_TEXT = re.compile(r"[+-]?\d+(?:\.0*)?")


def parse_score(value: Any, low: int, high: int) -> Parsed:
    """A whole-number score in [low, high], as every judge answer is read.

    Numbers written as ``8.0`` are whole; a numeric string (``"8"``, ``" 8.0 "``) is accepted
    with status ``coerced``. Booleans, fractions, NaN, ``"7/10"`` and values out of range
    are not scores.
    """
    coerced = False
    if isinstance(value, str) and _NUMERIC_TEXT.fullmatch(value.strip()):
        value, coerced = float(value.strip()), True
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return Parsed(None, "unparsable", f"score {value!r} is not a number")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return Parsed(None, "unparsable", f"score {value!r} is not a whole number")
    if not low <= value <= high:
        return Parsed(None, "out_of_range", f"score {value!r} is outside {low}-{high}")
    return Parsed(int(value), "coerced" if coerced else "ok")

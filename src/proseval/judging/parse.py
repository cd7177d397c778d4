"""Reading judge answers: JSON found anywhere in the text, repaired when slightly broken."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import json_repair

from ..core.score import ParseStatus

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?(</\1>|$)", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Parsed:
    value: Any
    status: ParseStatus
    detail: str = ""


def strip_reasoning(text: str) -> str:
    """Remove `<think>…</think>`-style blocks (an unclosed one runs to the end)."""
    return _THINK.sub("", text).strip()


def _candidates(text: str) -> list[str]:
    found = [m.group(1).strip() for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        found.append(text[start : end + 1])
    start, end = text.find("["), text.rfind("]")
    if start != -1 and end > start:
        found.append(text[start : end + 1])
    return found


def extract_json(text: str) -> Parsed:
    """The first JSON object or array in `text`: exact if possible, else repaired, else unparsable."""
    cleaned = strip_reasoning(text or "")
    if not cleaned:
        return Parsed(None, "empty", "the judge returned no text")
    for candidate in [cleaned, *_candidates(cleaned)]:
        try:
            return Parsed(json.loads(candidate), "ok")
        except ValueError:
            continue
    for candidate in [*_candidates(cleaned), cleaned]:
        repaired = json_repair.loads(candidate)
        if isinstance(repaired, (dict, list)) and repaired:
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

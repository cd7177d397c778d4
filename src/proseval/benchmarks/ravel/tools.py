"""Reading the tool models' answers (pure). A reply that cannot be used is a `ToolError`: the
action fails, the state is unchanged, and the episode goes on.

The planner and the reviewer must answer JSON (an outline; a score with feedback). The writer
and the reviser are asked for JSON too, but a reply without it is taken as the text itself
(``plain_text``), since a usable section is what the step needs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from proseval.kit import find_json_values, repair_json_value, strip_reasoning

SCORE_LOW, SCORE_HIGH = 0.0, 10.0
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


class ToolError(ValueError):
    """A tool answer the environment cannot use."""


@dataclass(frozen=True)
class Outline:
    title: str
    sections: list[tuple[str, list[str]]]


@dataclass(frozen=True)
class Text:
    content: str
    summary: str = ""
    read_as: str = "json"  # json | plain_text


@dataclass(frozen=True)
class Review:
    score: float
    feedback: str
    read_as: str = "json"  # json | coerced


def json_objects(text: str) -> list[dict[str, Any]]:
    """The JSON objects in a reply (reasoning removed), in order; a broken one repaired if none is whole."""
    cleaned = strip_reasoning(text or "").text
    found = [v for v in find_json_values(cleaned) if isinstance(v, dict)]
    if not found:
        repaired = repair_json_value(cleaned)
        found = [repaired] if isinstance(repaired, dict) else []
    return found


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "\n\n".join(_text(v) for v in value if _text(v))
    return "" if value is None else str(value).strip()


def parse_outline(text: str, max_sections: int | None = None) -> Outline:
    """``{"title": ..., "sections": [{"title": ..., "points": [...]}]}`` (``outline`` and
    ``section_title`` accepted as key names; a section may be a bare title); `max_sections` is
    the cap on its length (None: no cap)."""
    for obj in json_objects(text):
        raw = obj.get("sections", obj.get("outline"))
        if not isinstance(raw, list):
            continue
        sections: list[tuple[str, list[str]]] = []
        for entry in raw:
            if isinstance(entry, str) and entry.strip():
                sections.append((entry.strip()[:200], []))
            elif isinstance(entry, dict):
                title = _text(entry.get("title", entry.get("section_title", "")))
                points = entry.get("points", [])
                points = [_text(p) for p in points if _text(p)] if isinstance(points, list) else [_text(points)]
                if title:
                    sections.append((title[:200], [p for p in points if p]))
        if not sections:
            raise ToolError("the planner's outline has no usable section")
        if max_sections is not None and len(sections) > max_sections:
            raise ToolError(f"the planner's outline has {len(sections)} sections (at most {max_sections})")
        return Outline(_text(obj.get("title", ""))[:200], sections)
    raise ToolError("the planner's answer holds no JSON outline (a 'sections' list)")


def _first_sentence(text: str) -> str:
    match = re.match(r"(.+?[.!?。！？])(\s|$)", text.strip(), re.DOTALL)
    return (match.group(1) if match else text.strip())[:300]


def _read_text(text: str, keys: tuple[str, ...], who: str) -> Text:
    for obj in json_objects(text):
        for key in keys:
            content = _text(obj.get(key))
            if content:
                summary = _text(obj.get("summary", obj.get("short_summary", ""))) or _first_sentence(content)
                return Text(content, summary[:500], "json")
    plain = strip_reasoning(text or "").text.strip()
    if plain.startswith("```"):
        plain = plain.strip("`").strip()
    if not plain:
        raise ToolError(f"the {who} returned no text")
    return Text(plain, _first_sentence(plain), "plain_text")


def parse_draft(text: str) -> Text:
    return _read_text(text, ("content", "paragraph_content", "text"), "writer")


def parse_refinement(text: str) -> Text:
    return _read_text(text, ("content", "revised_content", "text"), "reviser")


def read_score(value: Any) -> tuple[float, str]:
    """A number in 0-10 (a numeric string or a one-number list is coerced)."""
    how = "json"
    if isinstance(value, list) and len(value) == 1:
        value, how = value[0], "coerced"
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        value, how = float(value.strip()), "coerced"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ToolError(f"the reviewer's score {value!r} is not a number")
    if not SCORE_LOW <= value <= SCORE_HIGH:
        raise ToolError(f"the reviewer's score {value!r} is outside {SCORE_LOW:g}-{SCORE_HIGH:g}")
    return float(value), how


def parse_review(text: str) -> Review:
    for obj in json_objects(text):
        if "score" in obj:
            score, how = read_score(obj["score"])
            return Review(score, _text(obj.get("feedback", ""))[:2000], how)
    raise ToolError("the reviewer's answer holds no JSON object with a 'score'")

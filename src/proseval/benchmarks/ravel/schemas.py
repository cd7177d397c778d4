"""JSON schemas for structured output (``--structured-policy``, ``--structured-tools``).

Asked with `response_format` (json_schema, strict), an endpoint that honours it can only answer
JSON of this shape; the reply is still read and validated as usual (actions.py, tools.py), since
not every endpoint honours the request. Bounds (section ids, the 0-10 score, the number of
sections) are checked when the reply is read: strict schemas on several providers refuse them.
"""

from __future__ import annotations

from typing import Any

from proseval.benchmarks.ravel.actions import ACTIONS
from proseval.kit import json_schema_format


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


_TEXT = {"type": "string"}


def decision_schema(texts: bool = False) -> dict[str, Any]:
    """``{"thought": "...", "action": one of the actions, "params": {"section_id": <integer> | null}}``
    (strict schemas need every key, so outline and finish carry ``section_id: null``); with `texts`,
    params also carry ``content`` and ``feedback`` (text or null)."""
    keys: dict[str, Any] = {"section_id": {"type": ["integer", "null"]}}
    if texts:
        keys.update(content={"type": ["string", "null"]}, feedback={"type": ["string", "null"]})
    params = _object(keys)
    return _object({"thought": _TEXT, "action": {"type": "string", "enum": list(ACTIONS)}, "params": params})


TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "outline": _object(
        {
            "title": _TEXT,
            "sections": {
                "type": "array",
                "items": _object({"title": _TEXT, "points": {"type": "array", "items": _TEXT}}),
            },
        }
    ),
    "draft": _object({"content": _TEXT, "summary": _TEXT}),
    "review": _object({"score": {"type": "number"}, "feedback": _TEXT}),
    "refine": _object({"content": _TEXT, "changes": _TEXT}),
}


def decision_format(texts: bool = False) -> dict[str, Any]:
    return {"response_format": json_schema_format("ravel_decision", decision_schema(texts))}


def tool_format(action: str) -> dict[str, Any]:
    return {"response_format": json_schema_format(f"ravel_{action}", TOOL_SCHEMAS[action])}

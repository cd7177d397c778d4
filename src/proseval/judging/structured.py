"""Structured output: ask an endpoint for JSON that follows a schema (OpenAI `response_format`).

Servers that support it (OpenAI, vLLM and SGLang with guided decoding, …) then cannot answer
with anything but valid JSON of that shape; the embedded model gets the same through a llama.cpp
grammar (`models.local.grammar_format`). The reply is still parsed and checked the usual way,
since not every server honours the request (the Anthropic provider does not send it).
"""

from __future__ import annotations

from typing import Any


def json_schema_format(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The `response_format` asking for JSON following `schema` (strict: no other keys)."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def score_schema(*, reason: bool = True, scale: tuple[int, int] | None = None) -> dict[str, Any]:
    """``{"score": <integer>, "reason": "<text>"}``; with `scale` (low, high), the score is one of
    low..high, listed as an `enum`: several providers refuse `minimum`/`maximum` in a strict schema
    and llama.cpp's grammar ignores them. The range is checked again when the reply is parsed."""
    score: dict[str, Any] = {"type": "integer"}
    if scale is not None:
        score["enum"] = list(range(scale[0], scale[1] + 1))
    properties: dict[str, Any] = {"score": score}
    if reason:
        properties["reason"] = {"type": "string"}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def named_scores_schema() -> dict[str, Any]:
    """``{"scores": [{"name": "...", "score": <integer>, "reason": "..."}, ...]}``."""
    entry = score_schema()
    entry = {
        **entry,
        "properties": {"name": {"type": "string"}, **entry["properties"]},
        "required": ["name", *entry["required"]],
    }
    return {
        "type": "object",
        "properties": {"scores": {"type": "array", "items": entry}},
        "required": ["scores"],
        "additionalProperties": False,
    }

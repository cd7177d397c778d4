"""How an OpenAI-compatible endpoint takes a schema-held answer, learned rather than assumed.

Servers differ: OpenAI, vLLM and SGLang take `response_format` of type `json_schema`;
llama-cpp-python's server refuses it (HTTP 500, "Input should be 'text' or 'json_object'") and
takes `json_object` with the schema beside it; others take neither. An endpoint starts at
`json_schema`; when it refuses the format, it steps down one mode and the request is sent again
at once (a refusal of the format is not an outage, so it is never retried as one):

- ``json_schema``: ``{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}``
- ``json_object``: ``{"type": "json_object", "schema": SCHEMA}`` (llama-cpp-python's form; a server
  that ignores ``schema`` still answers JSON)
- ``prompt``: no `response_format`; the schema is stated at the end of the last user message.

The reply is parsed and checked against the schema the usual way in every mode.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Message, ModelError

MODES = ("json_schema", "json_object", "prompt")
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "guided_json", "structured output")


def is_format_refusal(error: ModelError) -> bool:
    """Whether a failed request was refused because of its `response_format` (a client error or a
    server error whose text names the format), rather than for anything retrying could fix."""
    text = str(error).lower()
    return error.status in (400, 415, 422, 500, 501) and any(word in text for word in _FORMAT_WORDS)


def step_down(mode: str) -> str | None:
    """The next mode to try after `mode` was refused; None after the last."""
    index = MODES.index(mode)
    return MODES[index + 1] if index + 1 < len(MODES) else None


def schema_of(params: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON Schema of a `json_schema` response format in `params`, else None."""
    fmt = params.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and isinstance(fmt.get("json_schema"), dict):
        schema = fmt["json_schema"].get("schema")
        return schema if isinstance(schema, dict) else {}
    return None


def in_mode(messages: list[Message], params: dict[str, Any], mode: str) -> tuple[list[Message], dict[str, Any]]:
    """The request for an endpoint that takes structured output in `mode` (see the module's text)."""
    schema = schema_of(params)
    if schema is None or mode == "json_schema":
        return messages, params
    if mode == "json_object":
        return messages, {**params, "response_format": {"type": "json_object", "schema": schema}}
    rest = {k: v for k, v in params.items() if k != "response_format"}
    note = "\n\nAnswer with one JSON object and nothing else. It must follow this JSON Schema:\n" + json.dumps(
        schema, ensure_ascii=False
    )
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    if last_user is None:
        return [*messages, {"role": "user", "content": note.strip()}], rest
    changed = [dict(m) for m in messages]
    changed[last_user]["content"] = str(changed[last_user].get("content") or "") + note
    return changed, rest

"""Anthropic's Messages API (`POST /v1/messages`), posted with aiohttp like `openai_compat.CompatModel`.

Retries are the executor's job; this module only translates a request into a Messages body and
the transport's outcomes into a `Completion` or a `RetryableError` / `FatalError`. The official
`anthropic` SDK is not used (nor a dependency): a message is one JSON POST, and the SDK's request
pipeline measured more than twice the client's CPU per request through the runtime (proseval docs runtime).
Every request carries the key as `x-api-key` and the API version of the model's rules (`api_version`).

The mapping of `GenerateConfig` (proseval docs runtime, "Models"):

- system messages → the top-level `system` (joined by a blank line; they must come before the
  other messages, which keep only `role` and `content`);
- `max_tokens` → `max_tokens` (required by the API: `DEFAULT_MAX_TOKENS` when the config sets none);
- what the model's family takes (`models.families`, proseval docs models) decides the rest: under API
  version 2026-10-21 no `temperature`, `top_p` or `top_k`; under 2023-06-01 (a user's rules file)
  `temperature` (at most 1), `top_p`, `top_k` as they are, only one of `temperature` and `top_p`
  for Claude 4.5 and 4.6; never `min_p`, `repetition_penalty`, `presence_penalty` or
  `frequency_penalty`. A role's setting a family refuses is refused before the run when the user
  set it, and left out with a notice recorded in the header when the task set it
  (`runtime.roles`); `reasoning_effort` → `output_config.effort` with adaptive thinking where the
  family reads it; `stop` → `stop_sequences`; `extra` sent as given;
- `seed` is not sent (the API has none; it still tells requests apart in the cache);
- `response_format` is refused in a role's settings (`check_config`), but a benchmark's per-call
  `response_format` is not sent: a benchmark asks for structured output on top of a prompt that
  already asks for the same JSON, and parses and checks the reply either way.

`stop_reason` → `finish_reason`: `end_turn` and `stop_sequence` → `stop`, `max_tokens` and
`model_context_window_exceeded` → `length`, `refusal` → `content_filter`, `tool_use` →
`tool_calls`, anything else as it is. Content: `text` blocks → the answer; `thinking` blocks (their
`thinking` text) and `redacted_thinking` blocks (`WITHHELD_REASONING`) → the reasoning, never the
answer. A refusal keeps the partial text it may have as the refusal, the answer empty. Usage:
`input_tokens` (plus the prompt-cache tokens, when reported) → prompt tokens, of which
`cache_read_input_tokens` → cached tokens; `output_tokens` (thinking included: the API reports no
reasoning tokens apart) → completion tokens.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from .base import (
    Completion,
    FatalError,
    GenerateConfig,
    Message,
    ModelError,
    RetryableError,
    Usage,
    check_maximum,
)
from .families import ModelRules, rules_for, wire_params
from .http import JsonEndpoints, http_error, short

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
# The `anthropic-version` sent when the model's rules name none: the version whose parameters
# rules without a version describe (`models.families`; the shipped rules name 2026-10-21).
ANTHROPIC_VERSION = "2023-06-01"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
BASE_URL_VARIABLE = "ANTHROPIC_BASE_URL"
DEFAULT_MAX_TOKENS = 4096  # the API requires max_tokens; sent when the role's settings set none
TEMPERATURE_MAX = 1.0  # the Messages API's temperature is from 0 to 1
# What stands for reasoning the API does not show: a `redacted_thinking` block (its `data` is
# encrypted) or a `thinking` block whose text is omitted.
WITHHELD_REASONING = "(reasoning withheld by the provider)"
FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
    "tool_use": "tool_calls",
}


def resolve_api_key() -> str:
    """The key from `ANTHROPIC_API_KEY` (or `.env`, loaded by the CLI); never from files we write."""
    key = os.environ.get(KEY_VARIABLE)
    if not key:
        raise FatalError(f"{KEY_VARIABLE} is not set: export it, or add it to a .env file in the current folder")
    return key


def normal_base_url(url: str) -> str:
    """The API's root (`https://api.anthropic.com`): a trailing `/` or `/v1` is dropped, since
    the paths proseval posts to start with `/v1/`."""
    url = url.strip().rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


# Settings of `GenerateConfig` the body does not carry under their own name: the token limit is
# always sent (the API requires it), `stop` as `stop_sequences`; `seed` and `response_format` are not
# sent (see the module's text).
_NOT_AS_IS = frozenset({"max_tokens", "stop", "seed", "response_format"})


def request_body(
    model: str, messages: list[Message], config: GenerateConfig, rules: ModelRules | None = None
) -> dict[str, Any]:
    """The Messages API body of a chat request (see the module's text for the mapping): the
    settings the model's family refuses (`models.families`) are left out, the reasoning effort is
    put where the family reads it."""
    params = wire_params(config.sent_params(), rules if rules is not None else rules_for("anthropic", model))
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            if turns:
                raise FatalError(
                    f"anthropic/{model}: a system message after the conversation started cannot "
                    "be sent (the Messages API takes one system prompt, before the messages)"
                )
            system.append(str(message.get("content") or ""))
        elif role in ("user", "assistant"):
            turns.append({"role": role, "content": message.get("content") or ""})
        else:
            raise FatalError(f"anthropic/{model}: the Messages API has no message role {role!r}")
    body: dict[str, Any] = {"model": model, "max_tokens": params.get("max_tokens") or DEFAULT_MAX_TOKENS}
    if system:
        body["system"] = "\n\n".join(system)
    body["messages"] = turns
    if params.get("stop"):
        body["stop_sequences"] = list(params["stop"])
    body.update({name: value for name, value in params.items() if name not in _NOT_AS_IS})
    return body


def error_detail(raw: bytes) -> str:
    """The message of an error body (`{"type": "error", "error": {"type": ..., "message": ...}}`)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        kind, message = error.get("type"), error.get("message")
        return f"{kind}: {message}" if kind and message else str(message or kind or data)
    return str(data)


def status_error(status: int, detail: str, where: str, headers: Mapping[str, str] | None) -> ModelError:
    """The error of an HTTP status (`http.http_error`)."""
    return http_error(status, f"HTTP {status} from {where}: {short(detail)}", detail, headers)


def to_completion(response: Any, latency: float) -> Completion:
    """A Messages API response (a `message` object) as a `Completion`."""
    if not isinstance(response, dict) or not isinstance(response.get("content"), list):
        raise RetryableError(f"malformed response: no content in {short(str(response))}")
    blocks = [block for block in response["content"] if isinstance(block, dict)]
    text = "".join(str(block.get("text") or "") for block in blocks if block.get("type") == "text")
    thoughts = [
        (str(block.get("thinking") or "") if block["type"] == "thinking" else "") or WITHHELD_REASONING
        for block in blocks
        if block.get("type") in ("thinking", "redacted_thinking")
    ]
    usage = found if isinstance(found := response.get("usage"), dict) else {}
    prompt = sum(
        int(usage.get(name) or 0) for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    reason = response.get("stop_reason")
    refused = reason == "refusal"
    return Completion(
        text="" if refused else text,
        finish_reason=FINISH_REASONS.get(reason, reason) if isinstance(reason, str) else None,
        usage=Usage(
            prompt_tokens=prompt,
            completion_tokens=int(usage.get("output_tokens") or 0),
            cached_tokens=int(usage.get("cache_read_input_tokens") or 0),
        ),
        latency=latency,
        raw=response,
        reasoning="\n\n".join(thoughts) or None,
        refusal=(text.strip() or None) if refused else None,
    )


def api_version(model: str) -> str:
    """The `anthropic-version` requests for `model` are sent with: its rules' (`models.families`),
    else `ANTHROPIC_VERSION`."""
    return rules_for("anthropic", model).api_version or ANTHROPIC_VERSION


def api_headers(key: str, version: str) -> dict[str, str]:
    return {"x-api-key": key, "anthropic-version": version, "content-type": "application/json"}


class AnthropicModel:
    """Claude through the Messages API (see the module's text); several base URLs are replicas
    (the one with the fewest requests in flight first)."""

    provider = "anthropic"
    applies_timeout = True  # `JsonEndpoints.post` bounds each request (no task of the executor's around it)

    def __init__(self, name: str, base_urls: list[str] | None = None):
        self.name = name
        urls = base_urls or [os.environ.get(BASE_URL_VARIABLE) or ANTHROPIC_BASE_URL]
        self.base_urls = [normal_base_url(u) for u in urls]
        self._headers = api_headers(resolve_api_key(), api_version(name))
        self._endpoints = JsonEndpoints(self.base_urls)

    def check_config(self, config: GenerateConfig) -> None:
        """Refuse a role's settings the API cannot take (before any request)."""
        check_maximum(config, "temperature", TEMPERATURE_MAX, f"anthropic/{self.name}")
        if config.response_format is not None:
            raise FatalError(
                f"anthropic/{self.name}: the Messages API has no setting response_format (unset it for this role)"
            )

    async def generate(self, messages: list[Message], config: GenerateConfig) -> Completion:
        body = json.dumps(request_body(self.name, messages, config))
        response, latency = await self._endpoints.post(
            "/v1/messages",
            body,
            self._headers,
            config.request_timeout(),
            lambda status, raw, headers, index: status_error(status, error_detail(raw), self.base_urls[index], headers),
        )
        return to_completion(response, latency)

    def cache_identity(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.name, "base_url": sorted(self.base_urls)}

    async def aclose(self) -> None:
        await self._endpoints.aclose()

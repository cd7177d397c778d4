"""Anthropic's Messages API (`POST /v1/messages`), posted with aiohttp like `openai_compat.CompatModel`.

Retries are the executor's job; this module only translates a request into a Messages body and
the transport's outcomes into a `Completion` or a `RetryableError` / `FatalError`. The official
`anthropic` SDK is not used (nor a dependency): a message is one JSON POST.

The mapping of `GenerateConfig` (docs/runtime.md, "Models"):

- system messages → the top-level `system` (joined by a blank line; they must come before the
  other messages, which keep only `role` and `content`);
- `max_tokens` → `max_tokens` (required by the API: `DEFAULT_MAX_TOKENS` when the config sets none);
- `temperature` (at most 1), `top_p`, `top_k` as they are; `stop` → `stop_sequences`; `extra` sent as given;
- `seed` is not sent (the API has none; it still tells requests apart in the cache);
- `min_p`, `repetition_penalty`, `presence_penalty` and `frequency_penalty` are refused
  (`unsupported_settings`): before the run for a role's settings, before the request for a
  benchmark's per-call settings — never silently dropped;
- `response_format` is refused in a role's settings (`check_config`), but a benchmark's per-call
  `response_format` is not sent: a benchmark asks for structured output on top of a prompt that
  already asks for the same JSON, and parses and checks the reply either way.

`stop_reason` → `finish_reason`: `end_turn` and `stop_sequence` → `stop`, `max_tokens` and
`model_context_window_exceeded` → `length`, `refusal` → `content_filter`, `tool_use` →
`tool_calls`, anything else as it is. Usage: `input_tokens` (plus the prompt-cache tokens, when
reported) → prompt tokens, `output_tokens` → completion tokens.
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
from .http import JsonEndpoints, http_error, short

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
BASE_URL_VARIABLE = "ANTHROPIC_BASE_URL"
DEFAULT_MAX_TOKENS = 4096  # the API requires max_tokens; sent when the role's settings set none
TEMPERATURE_MAX = 1.0  # the Messages API's temperature is from 0 to 1
UNSUPPORTED = ("min_p", "repetition_penalty", "presence_penalty", "frequency_penalty")
FINISH_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
                  "model_context_window_exceeded": "length", "refusal": "content_filter", "tool_use": "tool_calls"}


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


def unsupported_settings(config: GenerateConfig) -> list[str]:
    """The settings in `config` the Messages API has no parameter for (refused, not dropped)."""
    return [name for name in UNSUPPORTED if getattr(config, name) is not None]


def request_body(model: str, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
    """The Messages API body of a chat request (see the module's text for the mapping)."""
    refused = unsupported_settings(config)
    if refused:
        raise FatalError(f"anthropic/{model}: the Messages API has no setting {', '.join(refused)} "
                         "(unset it for this role, or use -g ROLE.extra.KEY=VALUE for an Anthropic field)")
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            if turns:
                raise FatalError(f"anthropic/{model}: a system message after the conversation started cannot "
                                 "be sent (the Messages API takes one system prompt, before the messages)")
            system.append(str(message.get("content") or ""))
        elif role in ("user", "assistant"):
            turns.append({"role": role, "content": message.get("content") or ""})
        else:
            raise FatalError(f"anthropic/{model}: the Messages API has no message role {role!r}")
    body: dict[str, Any] = {"model": model, "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS}
    if system:
        body["system"] = "\n\n".join(system)
    body["messages"] = turns
    for name in ("temperature", "top_p", "top_k"):
        if (value := getattr(config, name)) is not None:
            body[name] = value
    if config.stop:
        body["stop_sequences"] = list(config.stop)
    body.update(config.extra or {})
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
    text = "".join(str(block.get("text") or "") for block in response["content"]
                   if isinstance(block, dict) and block.get("type") == "text")
    usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
    prompt = sum(int(usage.get(name) or 0) for name in
                 ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    reason = response.get("stop_reason")
    return Completion(
        text=text,
        finish_reason=FINISH_REASONS.get(reason, reason) if isinstance(reason, str) else None,
        usage=Usage(prompt_tokens=prompt, completion_tokens=int(usage.get("output_tokens") or 0)),
        latency=latency,
        raw=response,
    )


def api_headers(key: str) -> dict[str, str]:
    return {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION, "content-type": "application/json"}


class AnthropicModel:
    """Claude through the Messages API (see the module's text); several base URLs are replicas
    (the one with the fewest requests in flight first)."""

    provider = "anthropic"
    applies_timeout = True  # `JsonEndpoints.post` bounds each request (no task of the executor's around it)

    def __init__(self, name: str, base_urls: list[str] | None = None):
        self.name = name
        urls = base_urls or [os.environ.get(BASE_URL_VARIABLE) or ANTHROPIC_BASE_URL]
        self.base_urls = [normal_base_url(u) for u in urls]
        self._headers = api_headers(resolve_api_key())
        self._endpoints = JsonEndpoints(self.base_urls)

    def check_config(self, config: GenerateConfig) -> None:
        """Refuse a role's settings the API cannot take (before any request)."""
        check_maximum(config, "temperature", TEMPERATURE_MAX, f"anthropic/{self.name}")
        if config.response_format is not None:
            raise FatalError(f"anthropic/{self.name}: the Messages API has no setting response_format "
                             "(unset it for this role)")
        request_body(self.name, [], config)

    async def generate(self, messages: list[Message], config: GenerateConfig) -> Completion:
        body = json.dumps(request_body(self.name, messages, config))
        response, latency = await self._endpoints.post(
            "/v1/messages", body, self._headers, config.request_timeout(),
            lambda status, raw, headers, index: status_error(status, error_detail(raw), self.base_urls[index], headers))
        return to_completion(response, latency)

    def cache_identity(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.name, "base_url": sorted(self.base_urls)}

    async def aclose(self) -> None:
        await self._endpoints.aclose()



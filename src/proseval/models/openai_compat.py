"""OpenAI and any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, llama.cpp, Ollama, ...).

Retries are the executor's job; this module only translates transport outcomes into a
`Completion` or a `RetryableError` / `FatalError`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
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
from .families import rules_for, wire_params
from .http import (
    JsonEndpoints,
    http_error,
    parse_retry_after,  # noqa: F401 - also importable from here
    short,
)
from .spec import SERVICES, split_urls
from .structured_modes import MODES, in_mode, is_format_refusal, step_down

OPENAI_BASE_URL = "https://api.openai.com/v1"
TEMPERATURE_MAX = 2.0  # OpenAI's API: temperature from 0 to 2


def resolve_api_key(provider: str) -> str:
    """Keys come from the environment (or `.env`, loaded by the CLI); never from files we write.
    A named service's key comes from its own variable only, so no other key is sent to it."""
    service = SERVICES.get(provider)
    if provider == "openai":
        names = ["OPENAI_API_KEY"]
    elif service is not None:
        names = [service.key_variable] if service.key_variable else []
    else:
        names = ["PROSEVAL_API_KEY", "OPENAI_API_KEY"]
    for name in names:
        if os.environ.get(name):
            return os.environ[name]
    if provider == "openai" or (service is not None and service.key_required):
        raise FatalError(f"{names[0]} is not set: export it, or add it to a .env file in the current folder")
    return "EMPTY"  # local servers (vLLM, Ollama, ...) accept any key


class _ChatEndpoint:
    """What both transports share: replicas, key, replica choice, cache identity, error mapping."""

    def __init__(
        self,
        provider: str,
        name: str,
        base_urls: list[str] | None = None,
    ):
        if provider in SERVICES and not base_urls:  # the service's own: never OpenAI's, its key would go there
            base_urls = SERVICES[provider].default_urls()
        if provider == "openai-compatible" and not base_urls:
            base_urls = split_urls(os.environ.get("PROSEVAL_BASE_URL", ""))
            if not base_urls:
                raise FatalError(
                    f"openai-compatible/{name} needs --base-url (or PROSEVAL_BASE_URL), "
                    "e.g. --base-url http://localhost:8000/v1"
                )
        self.provider = provider
        self.name = name
        self.base_urls = [u.rstrip("/") for u in (base_urls or [os.environ.get("OPENAI_BASE_URL", OPENAI_BASE_URL)])]
        self._key = resolve_api_key(provider)
        self._endpoints = JsonEndpoints(self.base_urls)  # replica choice (and, for CompatModel, the POST)

    def _status_error(self, status: int, detail: str, index: int, headers: Mapping[str, str] | None) -> ModelError:
        return http_error(status, f"HTTP {status} from {self.base_urls[index]}: {short(detail)}", detail, headers)

    def cache_identity(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.name, "base_url": sorted(self.base_urls)}


class OpenAIModel(_ChatEndpoint):
    """OpenAI itself, through the official SDK (its own retries off: retrying is the executor's)."""

    def __init__(self, provider: str, name: str, base_urls: list[str] | None = None):
        import openai  # here: the SDK takes 0.3 s to import, which only this provider needs

        super().__init__(provider, name, base_urls)
        self.rules = rules_for(provider, name)
        self._clients = [
            openai.AsyncOpenAI(api_key=self._key, base_url=url, max_retries=0, http_client=_http_client())
            for url in self.base_urls
        ]

    def check_config(self, config: GenerateConfig) -> None:
        """Refuse a role's settings OpenAI's API does not take (before any request)."""
        check_maximum(config, "temperature", TEMPERATURE_MAX, f"openai/{self.name}")

    async def generate(self, messages: list[Message], config: GenerateConfig) -> Completion:
        import openai  # imported by __init__ already

        index = self._endpoints.pick()
        self._endpoints.in_flight[index] += 1
        start = time.perf_counter()
        try:
            # The SDK's generic `post` (its transport, headers and errors) with a plain JSON body:
            # about half the CPU of the typed `chat.completions.create`, which matters at scale.
            response = await self._clients[index].post(
                "/chat/completions",
                body={"model": self.name, "messages": messages, **wire_params(config.sent_params(), self.rules)},
                cast_to=object,
                options={"timeout": config.request_timeout()},
            )
        except openai.APIStatusError as exc:
            raise self._status_error(exc.status_code, exc.message, index, exc.response.headers) from None
        except openai.APITimeoutError:
            raise RetryableError(f"timed out after {config.request_timeout():g}s ({self.base_urls[index]})") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise RetryableError(f"connection error ({self.base_urls[index]}): {short(str(cause))}") from None
        except (json.JSONDecodeError, openai.APIResponseValidationError) as exc:
            raise RetryableError(f"malformed response body: {short(str(exc))}") from None
        finally:
            self._endpoints.in_flight[index] -= 1
        return _to_completion(response, time.perf_counter() - start)

    async def aclose(self) -> None:
        for client in self._clients:
            await client.close()


class CompatModel(_ChatEndpoint):
    """Self-hosted OpenAI-compatible servers (vLLM, SGLang, Ollama, ...) over plain aiohttp.

    A chat completion is one JSON POST; doing it with aiohttp directly costs about a third of
    the CPU of the SDK's request pipeline (measured in bench/harness_throughput.py), which is
    what keeps hundreds of requests in flight on a small evaluation machine.
    """

    applies_timeout = True  # `JsonEndpoints.post` bounds each request (no task of the executor's around it)

    def __init__(self, provider: str, name: str, base_urls: list[str] | None = None):
        super().__init__(provider, name, base_urls)
        self.rules = rules_for(provider, name)
        # How these endpoints take a schema-held answer (`models.structured`): learned by the probe
        # or from the first refusal of the format, then used for every request.
        self.structured = MODES[0]
        self._headers = {"Authorization": f"Bearer {self._key}", "Content-Type": "application/json"}

    async def generate(self, messages: list[Message], config: GenerateConfig) -> Completion:
        params = wire_params(config.sent_params(), self.rules)
        while True:
            mode = self.structured
            sent_messages, sent = in_mode(messages, params, mode)
            body = json.dumps({"model": self.name, "messages": sent_messages, **sent})
            try:
                response, latency = await self._endpoints.post(
                    "/chat/completions",
                    body,
                    self._headers,
                    config.request_timeout(),
                    lambda status, raw, headers, index: self._status_error(status, _error_detail(raw), index, headers),
                )
            except ModelError as exc:
                lower = step_down(mode)
                if "response_format" not in sent or lower is None or not is_format_refusal(exc):
                    raise
                if self.structured == mode:  # other requests in flight may have stepped down already
                    self.structured = lower
                continue
            return _to_completion(response, latency)

    async def aclose(self) -> None:
        await self._endpoints.aclose()


def _error_detail(raw: bytes) -> str:
    """The message of an error body, with the parameter it names (OpenAI's `param`), if any."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return str(data)
    message = str(error.get("message") or data)
    return f"{message} (param: {error['param']})" if error.get("param") else message


def make_endpoint(provider: str, name: str, base_urls: list[str] | None = None) -> OpenAIModel | CompatModel:
    return (OpenAIModel if provider == "openai" else CompatModel)(provider, name, base_urls)


def _http_client() -> Any:
    """The SDK's aiohttp-based client when aiohttp is installed, else the SDK's default."""
    if importlib.util.find_spec("aiohttp") is None:
        return None
    import openai

    return openai.DefaultAioHttpClient()


def _to_completion(response: Any, latency: float) -> Completion:
    """A chat completion as a `Completion`: the answer in `text`, the reasoning apart.

    Reasoning text is `message.reasoning_content` (DeepSeek, vLLM and SGLang with a reasoning
    parser) or `message.reasoning` (OpenRouter, newer vLLM): "at the same level as content", as
    DeepSeek documents it, and never part of it. A refusal (`message.refusal`, which OpenAI sends
    with a null `content`) leaves `text` empty with finish_reason `content_filter`.
    """
    choices = response.get("choices") if isinstance(response, dict) else None
    first: dict[str, Any] = choices[0] if choices and isinstance(choices[0], dict) else {}
    message = first.get("message")
    if not isinstance(message, dict):
        raise RetryableError(f"malformed response: no choices in {short(str(response))}")
    refusal, reasoning = message.get("refusal"), message.get("reasoning_content") or message.get("reasoning")
    refusal = refusal if isinstance(refusal, str) and refusal else None
    return Completion(
        text="" if refusal else message.get("content") or "",
        finish_reason="content_filter" if refusal else first.get("finish_reason"),
        usage=_usage(response.get("usage")),
        latency=latency,
        raw=response,
        reasoning=reasoning if isinstance(reasoning, str) and reasoning else None,
        refusal=refusal,
    )


def _usage(usage: Any) -> Usage:
    """`usage` with its breakdowns: `completion_tokens_details.reasoning_tokens` (part of the
    completion tokens) and `prompt_tokens_details.cached_tokens` (part of the prompt tokens)."""
    if not isinstance(usage, dict):
        return Usage()

    def detail(group: str, name: str) -> int:
        details = usage.get(group)
        return int(details.get(name) or 0) if isinstance(details, dict) else 0

    return Usage(
        prompt_tokens=usage.get("prompt_tokens") or 0,
        completion_tokens=usage.get("completion_tokens") or 0,
        reasoning_tokens=detail("completion_tokens_details", "reasoning_tokens"),
        cached_tokens=detail("prompt_tokens_details", "cached_tokens"),
    )

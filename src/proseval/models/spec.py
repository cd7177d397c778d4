"""Model spec strings (`provider/model`) and building providers from them.

Besides the providers proper, a few OpenAI-compatible services are reachable by name
(`openrouter/anthropic/claude-sonnet-4.5`): `SERVICES` is that table, kept as data. A service's
role is an `openai-compatible` role (same transport) with the service's own endpoint and key
variable; only the first segment of the spec names the provider, the rest is the model as the
service spells it (slashes included).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .base import FatalError, ModelAPI

EMBEDDED_SPEC = "local/smollm2-135m"
SERVICES_CHECKED = "2026-12-01"  # when every row below was last read against the service's own docs


@dataclass(frozen=True)
class Service:
    """An OpenAI-compatible service reached by name: where its chat completions live, which
    environment variable holds its key, and whether it needs one."""

    name: str
    base_url: str  # as the service's docs give it to the OpenAI SDKs (`/chat/completions` is appended)
    key_variable: str | None  # None: a local server that takes no key
    key_required: bool
    description: str
    checked: str = SERVICES_CHECKED

    @property
    def url_variable(self) -> str:
        """The variable that moves the service's default endpoint (a proxy, another host). Named
        for proseval: the services' own SDK variables may mean another URL (the Groq SDK's
        GROQ_BASE_URL is the host without `/openai/v1`)."""
        return f"PROSEVAL_{self.name.upper()}_BASE_URL"

    def default_urls(self) -> list[str]:
        """Where a role of this service without a base URL of its own is sent."""
        return split_urls(os.environ.get(self.url_variable, "")) or [self.base_url]


# Each base URL and key variable as the service's own OpenAI-compatibility docs give them.
SERVICES: dict[str, Service] = {s.name: s for s in (
    # openrouter.ai/docs/quickstart: base_url="https://openrouter.ai/api/v1", key from OPENROUTER_API_KEY
    Service("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", True,
            "OpenRouter: many vendors' models behind one key (openrouter/anthropic/claude-sonnet-4.5)"),
    # docs.together.ai OpenAI compatibility: base_url "https://api.together.ai/v1", TOGETHER_API_KEY
    Service("together", "https://api.together.ai/v1", "TOGETHER_API_KEY", True,
            "Together AI: open-weight models (together/meta-llama/Llama-3.3-70B-Instruct-Turbo)"),
    # api-docs.deepseek.com: "base_url (OpenAI) https://api.deepseek.com", DEEPSEEK_API_KEY
    Service("deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY", True, "DeepSeek's API"),
    # console.groq.com/docs/openai: "change the base_url to https://api.groq.com/openai/v1", GROQ_API_KEY
    Service("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", True, "GroqCloud"),
    # docs.mistral.ai quickstart: "A Mistral API key, exported as MISTRAL_API_KEY"; POST /v1/chat/completions
    Service("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", True, "Mistral AI's API"),
    # docs.fireworks.ai OpenAI compatibility: base_url="https://api.fireworks.ai/inference/v1"
    Service("fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY", True,
            "Fireworks AI (fireworks/accounts/fireworks/models/<model>)"),
    # ai.google.dev/gemini-api/docs/openai: base_url="https://generativelanguage.googleapis.com/v1beta/openai/"
    Service("gemini", "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY", True,
            "Google's Gemini API through its OpenAI compatibility"),
    # Ollama's OpenAI compatibility: base_url 'http://localhost:11434/v1/', api_key "required but ignored"
    Service("ollama", "http://localhost:11434/v1", None, False, "a local Ollama server"),
    # vLLM's OpenAI-compatible server: http://localhost:8000/v1; `vllm serve --api-key` (or VLLM_API_KEY)
    Service("vllm", "http://localhost:8000/v1", "VLLM_API_KEY", False,
            "a local vLLM server (its key, when it was started with one, from VLLM_API_KEY)"),
)}

PROVIDERS = ("openai", "openai-compatible", "anthropic", "local", "scripted", *SERVICES)
REMOTE_PROVIDERS = ("openai", "openai-compatible", "anthropic", *SERVICES)  # those that take base URLs
# The run's shared --base-url applies to these only: any other provider's key must not go where
# the user aimed an OpenAI-compatible server (a service's role takes its own --role-base-url).
SHARED_URL_PROVIDERS = ("openai", "openai-compatible")


def split_urls(text: str) -> list[str]:
    """A comma-separated list of base URLs (an environment variable's value)."""
    return [url.strip() for url in text.split(",") if url.strip()]


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str
    base_urls: tuple[str, ...] = field(default=())

    @property
    def spec(self) -> str:
        """The spec as the user wrote it (a service's name kept, not rewritten)."""
        return f"{self.provider}/{self.model}"

    def describe(self) -> str:
        urls = f" @ {', '.join(self.base_urls)}" if self.base_urls else ""
        return self.spec + urls


def parse_model_spec(text: str, base_urls: list[str] | tuple[str, ...] = ()) -> ModelSpec:
    """`provider/model` with its endpoints (kept for providers that take any). A service's role
    given none gets the service's default, so that its binding, and the run's header, show where
    its key goes."""
    provider, sep, model = text.strip().partition("/")
    if not sep or not model:
        raise ValueError(f"model spec {text!r} must look like provider/model, e.g. openai/gpt-4o-mini")
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r} in {text!r}; known: {', '.join(PROVIDERS)}")
    urls = tuple(base_urls) if provider in REMOTE_PROVIDERS else ()
    if provider in SERVICES and not urls:
        urls = tuple(SERVICES[provider].default_urls())
    return ModelSpec(provider, model, urls)


def build_model(spec: ModelSpec) -> ModelAPI:
    if spec.provider in ("openai", "openai-compatible") or spec.provider in SERVICES:
        from .openai_compat import make_endpoint

        return make_endpoint(spec.provider, spec.model, list(spec.base_urls))
    if spec.provider == "anthropic":
        from .anthropic_messages import AnthropicModel

        return AnthropicModel(spec.model, list(spec.base_urls))
    if spec.provider == "local":
        from .local import LocalModel

        return LocalModel(spec.model)
    if spec.provider == "scripted":
        from .scripted import ScriptedModel

        try:
            return ScriptedModel(spec.model)
        except ValueError as exc:
            raise FatalError(str(exc)) from None
    raise FatalError(f"unknown provider {spec.provider!r}")

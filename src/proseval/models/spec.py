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
from .urls import check_url

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
        return environment_urls(self.url_variable) or [self.base_url]


# Each base URL and key variable as the service's own OpenAI-compatibility docs give them.
SERVICES: dict[str, Service] = {
    s.name: s
    for s in (
        # openrouter.ai/docs/quickstart: base_url="https://openrouter.ai/api/v1", key from OPENROUTER_API_KEY
        Service(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            True,
            "OpenRouter: many vendors' models behind one key (openrouter/anthropic/claude-sonnet-4.5)",
        ),
        # docs.together.ai OpenAI compatibility: base_url "https://api.together.ai/v1", TOGETHER_API_KEY
        Service(
            "together",
            "https://api.together.ai/v1",
            "TOGETHER_API_KEY",
            True,
            "Together AI: open-weight models (together/meta-llama/Llama-3.3-70B-Instruct-Turbo)",
        ),
        # api-docs.deepseek.com: "base_url (OpenAI) https://api.deepseek.com", DEEPSEEK_API_KEY
        Service("deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY", True, "DeepSeek's API"),
        # console.groq.com/docs/openai: "change the base_url to https://api.groq.com/openai/v1", GROQ_API_KEY
        Service("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", True, "GroqCloud"),
        # docs.mistral.ai quickstart: "A Mistral API key, exported as MISTRAL_API_KEY"; POST /v1/chat/completions
        Service("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", True, "Mistral AI's API"),
        # docs.fireworks.ai OpenAI compatibility: base_url="https://api.fireworks.ai/inference/v1"
        Service(
            "fireworks",
            "https://api.fireworks.ai/inference/v1",
            "FIREWORKS_API_KEY",
            True,
            "Fireworks AI (fireworks/accounts/fireworks/models/<model>)",
        ),
        # ai.google.dev/gemini-api/docs/openai: base_url="https://generativelanguage.googleapis.com/v1beta/openai/"
        Service(
            "gemini",
            "https://generativelanguage.googleapis.com/v1beta/openai",
            "GEMINI_API_KEY",
            True,
            "Google's Gemini API through its OpenAI compatibility",
        ),
        # Ollama's OpenAI compatibility: base_url 'http://localhost:11434/v1/', api_key "required but ignored"
        Service("ollama", "http://localhost:11434/v1", None, False, "a local Ollama server"),
        # vLLM's OpenAI-compatible server: http://localhost:8000/v1; `vllm serve --api-key` (or VLLM_API_KEY)
        Service(
            "vllm",
            "http://localhost:8000/v1",
            "VLLM_API_KEY",
            False,
            "a local vLLM server (its key, when it was started with one, from VLLM_API_KEY)",
        ),
    )
}

PROVIDERS = ("openai", "openai-compatible", "anthropic", "local", "scripted", *SERVICES)
REMOTE_PROVIDERS = ("openai", "openai-compatible", "anthropic", *SERVICES)  # those that take base URLs
# The run's shared --base-url applies to these only: any other provider's key must not go where
# the user aimed an OpenAI-compatible server (a service's role takes its own --role-base-url).
SHARED_URL_PROVIDERS = ("openai", "openai-compatible")


# The variable that moves each provider's default endpoint, and whether it holds a comma-separated
# list of replicas (a named service's variable is `Service.url_variable`, a list).
URL_VARIABLES = {
    "openai-compatible": ("PROSEVAL_BASE_URL", True),
    "openai": ("OPENAI_BASE_URL", False),
    "anthropic": ("ANTHROPIC_BASE_URL", False),
}


def split_urls(text: str) -> list[str]:
    """A comma-separated list of base URLs (an environment variable's value)."""
    return [url.strip() for url in text.split(",") if url.strip()]


def environment_urls(variable: str, *, several: bool = True) -> list[str]:
    """The base URLs an environment variable gives (none when it is unset or blank), each checked
    (`models.urls`): a refusal names the variable."""
    text = os.environ.get(variable, "")
    urls = split_urls(text) if several else [text.strip()] if text.strip() else []
    return [check_url(url, variable) for url in urls]


def provider_urls(provider: str) -> list[str]:
    """The base URLs the environment gives a provider's roles that have none of their own (a named
    service's or PROSEVAL_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL; none: the default)."""
    if provider in SERVICES:
        return environment_urls(SERVICES[provider].url_variable)
    if provider in URL_VARIABLES:
        variable, several = URL_VARIABLES[provider]
        return environment_urls(variable, several=several)
    return []


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


def split_spec(text: str) -> tuple[str, str]:
    """`provider/model` as its provider and model; a ValueError when it is not that, or names no known provider."""
    provider, sep, model = text.strip().partition("/")
    if not sep or not model:
        raise ValueError(f"model spec {text!r} must look like provider/model, e.g. openai/gpt-4o-mini")
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r} in {text!r}; known: {', '.join(PROVIDERS)}")
    return provider, model


def parse_model_spec(text: str, base_urls: list[str] | tuple[str, ...] = ()) -> ModelSpec:
    """`provider/model` with its endpoints (kept for providers that take any). A service's role
    given none gets the service's default, so that its binding, and the run's header, show where
    its key goes. Given none, the endpoints the environment gives the provider are checked here
    (an `EndpointError` naming the variable), before anything is built or sent."""
    provider, model = split_spec(text)
    urls = tuple(base_urls) if provider in REMOTE_PROVIDERS else ()
    if provider in SERVICES and not urls:
        urls = tuple(SERVICES[provider].default_urls())
    elif provider in URL_VARIABLES and not urls:
        provider_urls(provider)  # checked now, not kept: the binding stays without endpoints, as the user gave it
    return ModelSpec(provider, model, urls)


def build_model(spec: ModelSpec) -> ModelAPI:
    """The model of `spec`; a remote one without endpoints of its own gets those of its provider's
    environment variable as checked (`provider_urls`), else its provider's default."""
    if spec.provider in ("openai", "openai-compatible") or spec.provider in SERVICES:
        from .openai_compat import make_endpoint

        return make_endpoint(spec.provider, spec.model, list(spec.base_urls) or provider_urls(spec.provider))
    if spec.provider == "anthropic":
        from .anthropic_messages import AnthropicModel

        return AnthropicModel(spec.model, list(spec.base_urls) or provider_urls(spec.provider))
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

"""Model spec strings (`provider/model`) and building providers from them."""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import FatalError, ModelAPI

PROVIDERS = ("openai", "openai-compatible", "anthropic", "local", "scripted")
REMOTE_PROVIDERS = ("openai", "openai-compatible", "anthropic")  # those that take base URLs
EMBEDDED_SPEC = "local/smollm2-135m"


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str
    base_urls: tuple[str, ...] = field(default=())

    @property
    def spec(self) -> str:
        return f"{self.provider}/{self.model}"

    def describe(self) -> str:
        urls = f" @ {', '.join(self.base_urls)}" if self.base_urls else ""
        return self.spec + urls


def parse_model_spec(text: str, base_urls: list[str] | tuple[str, ...] = ()) -> ModelSpec:
    provider, sep, model = text.strip().partition("/")
    if not sep or not model:
        raise ValueError(f"model spec {text!r} must look like provider/model, e.g. openai/gpt-4o-mini")
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r} in {text!r}; known: {', '.join(PROVIDERS)}")
    urls = tuple(base_urls) if provider in REMOTE_PROVIDERS else ()
    return ModelSpec(provider, model, urls)


def build_model(spec: ModelSpec) -> ModelAPI:
    if spec.provider in ("openai", "openai-compatible"):
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

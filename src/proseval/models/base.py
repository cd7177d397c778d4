"""Model interface shared by every provider: messages in, a `Completion` out."""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

Message = dict[str, str]


class GenerateConfig(BaseModel):
    """Generation parameters. `None` means "use the provider's default" and is not sent."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    stop: list[str] | None = None
    timeout: float = 120.0
    response_format: dict[str, Any] | None = None

    def merged(self, override: GenerateConfig | dict[str, Any] | None) -> GenerateConfig:
        """A copy with every field set in `override` replacing ours."""
        if override is None:
            return self
        data = override if isinstance(override, dict) else override.model_dump(exclude_unset=True)
        return self.model_copy(update={k: v for k, v in data.items()})

    def sent_params(self) -> dict[str, Any]:
        """The parameters that change the output (timeout excluded), without unset ones."""
        return {k: v for k, v in self.model_dump(exclude={"timeout"}).items() if v is not None}


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Completion(BaseModel):
    text: str
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency: float = 0.0
    raw: dict[str, Any] | None = None
    cached: bool = False


class ModelError(Exception):
    """A request that did not produce a completion."""

    kind: Literal["retryable", "fatal"] = "fatal"

    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class RetryableError(ModelError):
    """Rate limits, server errors, time-outs, dropped connections, broken bodies."""

    kind = "retryable"


class FatalError(ModelError):
    """Errors that retrying cannot fix: bad request, authentication, unknown model."""

    kind = "fatal"


class ContextOverflowError(FatalError):
    """The endpoint rejected the prompt as longer than the model's context window.

    For the candidate this is a model failure (the model cannot take the task), scored as the
    benchmark defines; for any other role it is an infrastructure failure like any other.
    """


_OVERFLOW_MARKERS = ("context length", "context window", "maximum context", "too many tokens",
                     "prompt is too long", "input is too long", "exceed context", "exceeds the context",
                     "context_length_exceeded", "requested tokens")


def is_context_overflow(message: str) -> bool:
    """Whether an endpoint's error text says the prompt did not fit the context window."""
    text = message.lower()
    return any(marker in text for marker in _OVERFLOW_MARKERS)


@runtime_checkable
class ModelAPI(Protocol):
    """What every provider implements."""

    provider: str
    name: str

    async def generate(self, messages: list[Message], config: GenerateConfig) -> Completion: ...

    def cache_identity(self) -> dict[str, Any]:
        """What identifies this model's outputs in the cache (never secrets)."""
        ...

    async def aclose(self) -> None: ...

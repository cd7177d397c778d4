"""Model interface shared by every provider: messages in, a `Completion` out."""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from ..errors import ProsevalError, UsageError

Message = dict[str, str]


# The slowest generation speed a request's default time limit allows for (tokens per second):
# an 8,192-token answer may take 60 + 8192 / 8 ≈ 1,084 s before it is given up and retried.
T = TypeVar("T")
SLOWEST_TOKENS_PER_SECOND = 8.0
# The time limit when max_tokens is not set (the server's own limit applies then).
UNBOUNDED_TIMEOUT = 900.0
# The largest seed: providers take a signed 64-bit seed and numpy's generators (the bootstrap's)
# no negative one, so a seed every part of a run can use is a whole number from 0 to 2**63 - 1.
SEED_MAX = 2**63 - 1


class SettingError(UsageError, ValueError):
    """A seed or generation setting out of range: a usage error (a ValueError to pydantic's validators)."""


def check_seed(value: int, *, name: str = "") -> int:
    """`value` if it is a seed a run can use end to end; else SettingError("NAME must be a whole number …")."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= SEED_MAX:
        raise SettingError(f"{name} must be a whole number from 0 to {SEED_MAX} (got {value!r})".lstrip())
    return value


class GenerateConfig(BaseModel):
    """Generation parameters. `None` means "use the provider's default" and is not sent.

    `extra` holds provider-specific body fields (``chat_template_kwargs``, ``min_tokens``, …),
    sent as given. `timeout` is seconds per request; by default it grows with `max_tokens`
    (see `request_timeout`), so that long answers from ordinary endpoints are not cut off.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)  # frozen: `sent_params` is worked out once

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    max_tokens: int | None = None
    # How hard a reasoning model thinks (`low`, `medium`, `high`, …): sent where the model's family
    # reads it (`models.families`: OpenAI's `reasoning_effort`, Anthropic's `output_config.effort`).
    reasoning_effort: str | None = None
    seed: int | None = None
    stop: list[str] | None = None
    response_format: dict[str, Any] | None = None
    extra: dict[str, Any] | None = None
    timeout: float | None = None

    @field_validator("max_tokens", "top_k")
    @classmethod
    def _positive(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError(f"must be at least 1 (got {value})")
        return value

    @field_validator("timeout")
    @classmethod
    def _positive_seconds(cls, value: float | None) -> float | None:
        if value is not None and value <= 0:
            raise ValueError(f"must be a positive number of seconds (got {value})")
        return value

    @field_validator("extra")
    @classmethod
    def _no_core_fields(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        clash = sorted(set(value or {}) & ({"model", "messages", "stream"} | set(cls.model_fields)))
        if clash:
            raise ValueError(f"extra cannot set {', '.join(clash)} (set them directly, or they are not allowed)")
        return value

    def request_timeout(self) -> float:
        """Seconds one request may take: `timeout`, else 60 s plus `max_tokens` at the slowest speed."""
        if self.timeout is not None:
            return self.timeout
        if self.max_tokens is None:
            return UNBOUNDED_TIMEOUT
        return max(120.0, 60.0 + self.max_tokens / SLOWEST_TOKENS_PER_SECOND)

    def merged(self, override: GenerateConfig | dict[str, Any] | None) -> GenerateConfig:
        """A copy with every field set in `override` replacing ours."""
        if override is None:
            return self
        data = override if isinstance(override, dict) else override.model_dump(exclude_unset=True)
        if isinstance(data.get("extra"), dict) and self.extra:
            data = {**data, "extra": {**self.extra, **data["extra"]}}
        return self.model_copy(update={k: v for k, v in data.items()})

    def checked(self) -> GenerateConfig:
        """Itself, once every value set is in the range every provider takes (else SettingError naming
        the first that is not): what a user asks for is checked so, before any request. A provider's
        narrower ranges are its `check_config`'s. Not a validator of the model, so that run folders
        written before these checks stay readable."""
        for name, (within, rule) in SETTING_RANGES.items():
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and within(value)):
                raise SettingError(f"{name} must be {rule} (got {value:g})")
        if self.seed is not None:
            check_seed(self.seed, name="seed")
        return self

    _sent: dict[str, Any] | None = PrivateAttr(None)

    def sent_params(self) -> dict[str, Any]:
        """The request body fields that change the output (timeout excluded), without unset ones (a
        new dict each call; worked out once per config, as every request of a role sends it twice)."""
        private = self.__pydantic_private__  # a slot: quicker than the attribute, read at every request
        assert private is not None  # set by pydantic on every model with private attributes
        if private["_sent"] is None:
            params = {k: v for k, v in self.model_dump(exclude={"timeout", "extra"}).items() if v is not None}
            private["_sent"] = {**params, **(self.extra or {})}
        return dict(private["_sent"])

    def __eq__(self, other: object) -> bool:  # the remembered `sent_params` is not part of the value
        if not isinstance(other, GenerateConfig):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> GenerateConfig:
        copy = super().model_copy(update=update, deep=deep)
        copy._sent = None  # the copy's fields may differ
        return copy


# The ranges no provider goes beyond: OpenAI's API's, vLLM's for min_p and repetition_penalty
# (OpenAI's temperature is at most 2 and Anthropic's at most 1: their `check_config`). The model
# itself checks max_tokens, top_k and timeout.
SETTING_RANGES: dict[str, tuple[Callable[[float], bool], str]] = {
    "temperature": (lambda v: v >= 0, "at least 0"),
    "top_p": (lambda v: 0 < v <= 1, "above 0 and at most 1"),
    "min_p": (lambda v: 0 <= v <= 1, "from 0 to 1"),
    "repetition_penalty": (lambda v: v > 0, "above 0"),
    "presence_penalty": (lambda v: -2 <= v <= 2, "from -2 to 2"),
    "frequency_penalty": (lambda v: -2 <= v <= 2, "from -2 to 2"),
}


def check_maximum(config: GenerateConfig, name: str, maximum: float, model: str) -> None:
    """A provider's narrower range (for its `check_config`): FatalError when `name` is above `maximum`."""
    value = getattr(config, name)
    if value is not None and value > maximum:
        raise FatalError(f"{model}: {name} must be at most {maximum:g} for this provider (got {value:g})")


class Usage(BaseModel):
    """Tokens as the provider reports them; the two breakdowns are parts of the totals, not additions."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = Field(0, description="of completion_tokens, those spent on reasoning")
    cached_tokens: int = Field(0, description="of prompt_tokens, those read from the provider's prompt cache")


class Completion(BaseModel):
    """One answer. `text` is the answer alone: a reasoning model's reasoning is in `reasoning`,
    never in `text`, so nothing that reads answers (a judge's prompt above all) can see it."""

    text: str
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency: float = 0.0
    raw: dict[str, Any] | None = None
    cached: bool = False
    batched: bool = False  # answered through a provider batch (`runtime.batch`): charged at the batch price
    reasoning: str | None = None  # the reasoning text the provider returned beside the answer
    refusal: str | None = None  # the provider's refusal message (then `text` is "" and finish_reason content_filter)

    @property
    def refused(self) -> bool:
        """Whether the model declined to answer (a refusal message, or the provider's content filter)."""
        return self.refusal is not None or self.finish_reason == "content_filter"

    @property
    def reasoning_exhausted(self) -> bool:
        """Whether the answer is empty because the token limit was spent on reasoning."""
        return (
            self.finish_reason == "length"
            and not self.text.strip()
            and (self.usage.reasoning_tokens > 0 or bool(self.reasoning))
        )


class ModelError(ProsevalError):
    """A request that did not produce a completion; raised before any request (a missing key,
    endpoint or model file), it stops the command with its message."""

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


class UnusableAnswerError(FatalError):
    """An answer that was paid for but gives nothing to use (`unusable_answer`). Retrying the same
    request cannot help, so it is never retried nor re-asked, and, like every error, never cached;
    `completion` is kept so that its tokens and cost are counted."""

    def __init__(self, message: str, completion: Completion):
        super().__init__(message)
        self.completion = completion


class ReasoningExhaustedError(UnusableAnswerError):
    """An answer left empty because the whole token budget went to reasoning: the sample or score
    is unscored, retryable once the role's settings change."""

    def __init__(self, completion: Completion, role: str, max_tokens: int | None):
        budget = f"max_tokens {max_tokens}" if max_tokens is not None else "the endpoint's default max_tokens"
        spent = completion.usage.reasoning_tokens or completion.usage.completion_tokens
        super().__init__(
            f"the answer is empty because the whole token budget ({budget}) went to reasoning "
            f"({spent} reasoning tokens): raise -g {role}.max_tokens= or lower "
            f"-g {role}.reasoning_effort=",
            completion,
        )


class RefusalError(UnusableAnswerError):
    """A role other than the candidate declined to answer (a refusal, or the provider's content
    filter): its score is unscored as refused, never read as an unparsable reply. The candidate's
    refusals are answers, counted as the model failure "refusal"."""

    def __init__(self, completion: Completion, role: str):
        said = " ".join((completion.refusal or "").split())
        reason = f": {said[:200]}" if said else " (the provider's content filter)"
        super().__init__(f"the {role} refused to answer{reason}", completion)


def unusable_answer(completion: Completion, role: str, max_tokens: int | None) -> UnusableAnswerError | None:
    """The error an answer of `role` amounts to, if any: its token budget spent on reasoning (any
    role), or a refusal by a role other than the candidate."""
    if completion.reasoning_exhausted:
        return ReasoningExhaustedError(completion, role, max_tokens)
    if completion.refused and role != "candidate":
        return RefusalError(completion, role)
    return None


def error_text(exc: BaseException) -> str:
    """An error as a record tells it, in words: the message alone for an answer the model did give
    (refused, or left empty by its reasoning), whose message says what happened and what to change;
    else what kind of failure it was (which `--retry-failed` may cure or not) before its message."""
    if isinstance(exc, UnusableAnswerError):
        return str(exc)
    if isinstance(exc, ContextOverflowError):
        kind = "the prompt is longer than the model's context"
    elif isinstance(exc, RetryableError):
        kind = "the request failed after its retries"
    elif isinstance(exc, FatalError):
        kind = "the request was refused"
    else:
        kind = "the request failed"
    return f"{kind}: {exc}"


_OVERFLOW_MARKERS = (
    "context length",
    "context window",
    "maximum context",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "exceed context",
    "exceeds the context",
    "context_length_exceeded",
    "requested tokens",
)


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


async def within(awaitable: Awaitable[T], seconds: float) -> T:
    """`awaitable`'s result, or `asyncio.TimeoutError` after `seconds` (the awaitable is cancelled),
    awaited in the calling task (`asyncio.wait_for` would wrap it in a task of its own)."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    return await asyncio.wait_for(awaitable, seconds)  # pragma: no cover - Python 3.10

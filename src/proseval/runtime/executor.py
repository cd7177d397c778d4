"""Calling a role's model: concurrency limit, retries with backoff, cache and accounting."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_base

from ..models.base import (
    Completion,
    FatalError,
    GenerateConfig,
    Message,
    ModelAPI,
    ModelError,
    RetryableError,
    unusable_answer,
)
from ..models.families import refused_setting
from .cache import ResponseCache, cache_key
from .limits import EndpointSlot


@dataclass
class RoleStats:
    """Per-role accounting shown in the progress display and stored in results.

    A request counts once it is sent (`Sending`): one cancelled while it waited for a slot or for a
    batch was never sent and is not counted; `retries` counts the attempts sent after the first."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0  # of completion_tokens
    cached_tokens: int = 0  # of prompt_tokens
    latency_total: float = 0.0
    timed: int = 0  # the answers in latency_total (a batch recorded by an earlier session is answered here)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "retries": self.retries,
            "errors": self.errors,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_tokens": self.cached_tokens,
            "mean_latency_s": round(self.latency_total / self.timed, 4) if self.timed else None,
        }


class Sending:
    """The sends of one request, counted as they happen: the first send counts the request, a
    later real-time attempt a retry. A batch request is sent when the batch holding it is created;
    a new batch, or real time, after it failed there adds no request (the batch counts say so)."""

    def __init__(self, stats: RoleStats):
        self.stats = stats
        self.counted = False

    def sent(self, *, retry: bool = False) -> None:
        if not self.counted:
            self.counted = True
            self.stats.requests += 1
        elif retry:
            self.stats.retries += 1


class WaitRetryAfter(wait_base):
    """Exponential backoff with full jitter, or the server's `Retry-After` when it gives one."""

    def __init__(self, initial: float = 1.0, maximum: float = 60.0, offset: int = 0):
        self.initial = initial
        self.maximum = maximum
        self.offset = offset  # attempts already made before tenacity took over

    def __call__(self, retry_state: Any) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        return self.delay(exc, retry_state.attempt_number + self.offset)

    def first(self, exc: BaseException) -> float:
        return self.delay(exc, 1)

    def delay(self, exc: BaseException | None, attempt: int) -> float:
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            return min(float(retry_after), self.maximum) + random.uniform(0, 0.1 * self.initial)
        ceiling = min(self.maximum, self.initial * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


def request_seed(seed: int | None, sample_id: str, epoch: int, turn: str | int, repeat: int = 0) -> int:
    """A sampler seed of its own for one request: a hash of the configured seed (0 when unset),
    the sample id, the epoch, the turn (and a judge's repeat number, from 1). Epochs and repeats
    draw different answers, and no answer depends on which requests ran before it."""
    parts: list[object] = [0 if seed is None else seed, sample_id, epoch, turn] + ([repeat] if repeat else [])
    identity = json.dumps(parts, ensure_ascii=False)
    return int.from_bytes(hashlib.sha256(identity.encode()).digest()[:4], "little") % (2**31 - 1)


def with_advice(error: FatalError, role: str) -> FatalError:
    """`error`, with the `-g` that leaves out the setting it says the model refused, if it names one
    (a refusal met in a run, e.g. with --no-probe; the probe gives the same advice before it)."""
    plain = type(error) is FatalError  # not a context overflow, nor an answer that came back unusable
    setting = refused_setting(str(error)) if plain and error.status in (400, 422) else None
    if setting is None or "-g " in str(error):
        return error
    advice = (
        f"the model refused {setting}: leave it out with -g {role}.{setting}=null, or give the model's rule "
        "in a rules file (docs/models.md)"
    )
    return type(error)(f"{error} — {advice}", retry_after=error.retry_after, status=error.status)


@dataclass
class RoleModel:
    """A model bound to a role, with everything around the raw provider call."""

    role: str
    model: ModelAPI
    config: GenerateConfig
    concurrency: int
    cache: ResponseCache | None = None
    max_attempts: int = 6
    backoff_initial: float = 1.0
    backoff_max: float = 60.0
    stats: RoleStats = field(default_factory=RoleStats)
    repeat: int = 0  # RunOptions.repeat
    # Limits shared with other runs (`runtime.limits`): a request takes a slot of each, in this
    # order, after its role's own; none for a single run.
    endpoint_slots: tuple[EndpointSlot, ...] = ()
    # --batch ROLE: a `runtime.batch.RoleBatcher` that sends this role's requests in provider batches
    # (None: each request is sent on its own).
    batcher: Any = None
    # Told of every answer a provider sent (a cache hit is none), once it is counted: the runner
    # keeps the session's usage on disk from it (`runtime.runner`).
    on_answer: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        self._semaphore = asyncio.Semaphore(self.concurrency)

    async def generate(
        self,
        messages: list[Message],
        config: GenerateConfig | dict[str, Any] | None = None,
        *,
        sample_id: str,
        epoch: int = 0,
        turn: str | int = 0,
    ) -> Completion:
        """One completion; raises `ModelError` when every attempt failed."""
        effective = self.config.merged(config)
        key = None
        if self.cache is not None or self.batcher is not None:  # a batch names each request by its key
            key = cache_key(
                self.model.cache_identity(),
                messages,
                effective.sent_params(),
                sample_id=sample_id,
                epoch=epoch,
                turn=turn,
                repeat=self.repeat,
            )
        if self.cache is not None and key is not None:
            if (hit := self.cache.get(key)) is not None:
                self.stats.requests += 1
                self.stats.cache_hits += 1
                self._account(hit)
                return hit
        if getattr(self.model, "seeds_each_request", False):  # in-process samplers keep state
            effective = effective.model_copy(
                update={"seed": request_seed(effective.seed, sample_id, epoch, turn, self.repeat)}
            )
        elif self.repeat and effective.seed is not None:  # a remote judge's repeat: another seed
            effective = effective.model_copy(update={"seed": effective.seed + self.repeat})
        sending = Sending(self.stats)
        try:
            completion = None
            if self.batcher is not None and key is not None:  # None: it failed in batches, sent in real time
                completion = await self.batcher.generate(
                    messages, effective, key=key, sample=(sample_id, epoch), sending=sending
                )
            if completion is None:
                completion = await self._call_with_retries(messages, effective, sending)
        except FatalError as exc:
            self.stats.errors += 1
            raise with_advice(exc, self.role) from None
        except ModelError:
            self.stats.errors += 1
            raise
        self._account(completion)
        if self.on_answer is not None:
            self.on_answer()
        unusable = unusable_answer(completion, self.role, effective.max_tokens)
        if unusable is not None:  # paid for and counted, but nothing to use: an error, never cached
            self.stats.errors += 1
            raise unusable
        if self.cache is not None and key is not None:
            self.cache.put(key, completion)
        return completion

    async def _call_once(self, messages: list[Message], config: GenerateConfig, sent: Callable[[], None]) -> Completion:
        """One attempt: `sent()` once it holds its slots, just before it goes out."""
        async with self._semaphore:
            if not self.endpoint_slots:
                sent()
                return await self._send(messages, config)
            taken: list[EndpointSlot] = []
            try:
                for slot in self.endpoint_slots:
                    await slot.acquire()
                    taken.append(slot)
                sent()
                return await self._send(messages, config)
            finally:
                for slot in reversed(taken):
                    slot.release()

    async def _send(self, messages: list[Message], config: GenerateConfig) -> Completion:
        start = time.perf_counter()
        try:
            limit = config.request_timeout()
            if getattr(self.model, "applies_timeout", False):  # the model bounds each request by `limit` itself
                completion = await self.model.generate(messages, config)
            else:
                completion = await asyncio.wait_for(self.model.generate(messages, config), timeout=limit + 1)
        except asyncio.TimeoutError:
            raise RetryableError(f"no answer within {limit:g}s") from None
        if not completion.latency:
            completion.latency = time.perf_counter() - start
        return completion

    async def _call_with_retries(
        self, messages: list[Message], config: GenerateConfig, sending: Sending | None = None
    ) -> Completion:
        sending = sending or Sending(self.stats)
        try:  # the common case needs none of the retry machinery
            return await self._call_once(messages, config, sending.sent)
        except RetryableError as first:
            if self.max_attempts <= 1:
                raise
            await asyncio.sleep(WaitRetryAfter(self.backoff_initial, self.backoff_max).first(first))
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(RetryableError),
            stop=stop_after_attempt(self.max_attempts - 1),
            wait=WaitRetryAfter(self.backoff_initial, self.backoff_max, offset=1),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                completion = await self._call_once(messages, config, lambda: sending.sent(retry=True))
        return completion

    def count_probe(self, completion: Completion) -> None:
        """Count a probe's answer (`runtime.probe`) with the role's requests and tokens."""
        self.stats.requests += 1
        self._account(completion)

    def _account(self, completion: Completion) -> None:
        usage, stats = completion.usage, self.stats
        stats.prompt_tokens += usage.prompt_tokens
        stats.completion_tokens += usage.completion_tokens
        stats.reasoning_tokens += usage.reasoning_tokens
        stats.cached_tokens += usage.cached_tokens
        if not completion.cached:
            stats.latency_total += completion.latency
            stats.timed += 1

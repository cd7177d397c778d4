"""Retries with backoff, Retry-After, concurrency limits and accounting."""

from __future__ import annotations

import asyncio
import time

import pytest

from proseval.models.base import Completion, FatalError, GenerateConfig, RetryableError, Usage
from proseval.models.scripted import ScriptedModel
from proseval.runtime.executor import RoleModel, WaitRetryAfter

MESSAGES = [{"role": "user", "content": "hi"}]


async def test_retryable_errors_are_retried_until_success():
    model = ScriptedModel("flaky", [RetryableError("a"), RetryableError("b"), "ok"])
    role = RoleModel("judge", model, GenerateConfig(), concurrency=1, backoff_initial=0.001)
    assert (await role.generate(MESSAGES, sample_id="x")).text == "ok"
    assert role.stats.retries == 2 and role.stats.errors == 0


async def test_fatal_errors_are_not_retried():
    model = ScriptedModel("bad", [FatalError("401"), "never"])
    role = RoleModel("judge", model, GenerateConfig(), concurrency=1, backoff_initial=0.001)
    with pytest.raises(FatalError):
        await role.generate(MESSAGES, sample_id="x")
    assert len(model.calls) == 1 and role.stats.errors == 1


async def test_attempts_are_bounded():
    model = ScriptedModel("down", [RetryableError("down")])
    role = RoleModel("judge", model, GenerateConfig(), concurrency=1, max_attempts=3, backoff_initial=0.001)
    with pytest.raises(RetryableError):
        await role.generate(MESSAGES, sample_id="x")
    assert len(model.calls) == 3 and role.stats.retries == 2


async def test_retry_after_is_honoured():
    model = ScriptedModel("limited", [RetryableError("429", retry_after=0.3, status=429), "ok"])
    role = RoleModel("judge", model, GenerateConfig(), concurrency=1, backoff_initial=0.001)
    start = time.perf_counter()
    await role.generate(MESSAGES, sample_id="x")
    assert time.perf_counter() - start >= 0.3


def test_backoff_grows_and_is_capped():
    wait = WaitRetryAfter(initial=1.0, maximum=8.0)

    class State:
        def __init__(self, n):
            self.attempt_number = n
            self.outcome = None

    assert 0.5 <= wait(State(1)) <= 1.0
    assert 2.0 <= wait(State(3)) <= 4.0
    assert 4.0 <= wait(State(10)) <= 8.0


async def test_concurrency_limit_is_respected():
    in_flight = 0
    peak = 0

    async def slow(messages):
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return "done"

    role = RoleModel("candidate", ScriptedModel("slow", slow), GenerateConfig(), concurrency=3)
    await asyncio.gather(*(role.generate(MESSAGES, sample_id=str(i)) for i in range(12)))
    assert peak == 3


async def test_a_hung_model_times_out_and_is_retried():
    calls = 0

    async def hang_once(messages):
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.sleep(60)
        return "late but fine"

    role = RoleModel(
        "candidate",
        ScriptedModel("hang", hang_once),
        GenerateConfig(timeout=0.05),
        concurrency=1,
        backoff_initial=0.001,
    )
    assert (await role.generate(MESSAGES, sample_id="x")).text == "late but fine"
    assert role.stats.retries == 1  # the first call was abandoned at its timeout, not waited out


async def test_token_and_latency_accounting():
    answer = Completion(text="x", usage=Usage(prompt_tokens=7, completion_tokens=3), latency=0.5)
    role = RoleModel("judge", ScriptedModel("fixed", [answer]), GenerateConfig(), concurrency=1)
    await role.generate(MESSAGES, sample_id="a")
    await role.generate(MESSAGES, sample_id="b")
    stats = role.stats.as_dict()
    assert stats["prompt_tokens"] == 14 and stats["completion_tokens"] == 6
    assert stats["mean_latency_s"] == 0.5


class SeededScript(ScriptedModel):
    """A scripted model that, like the in-process llama.cpp model, wants a seed per request."""

    seeds_each_request = True


async def _seeds(role: RoleModel, requests: list[tuple[str, int, str | int]]) -> dict[tuple, int]:
    seeds = {}
    for sample_id, epoch, turn in requests:
        await role.generate(MESSAGES, sample_id=sample_id, epoch=epoch, turn=turn)
        seeds[(sample_id, epoch, turn)] = role.model.configs[-1].seed
    return seeds


async def test_in_process_models_get_a_seed_per_request_that_does_not_depend_on_order():
    requests = [("a", 0, 0), ("a", 1, 0), ("b", 0, 0), ("a", 0, "judge")]
    forward = await _seeds(RoleModel("c", SeededScript("s", ["x"]), GenerateConfig(), concurrency=1), requests)
    backward = await _seeds(RoleModel("c", SeededScript("s", ["x"]), GenerateConfig(), concurrency=1), requests[::-1])
    assert forward == backward
    assert len(set(forward.values())) == len(requests)  # epochs, samples and turns draw apart
    assert all(0 <= seed < 2**31 - 1 for seed in forward.values())
    reseeded = await _seeds(RoleModel("c", SeededScript("s", ["x"]), GenerateConfig(seed=7), concurrency=1), requests)
    assert set(reseeded.values()).isdisjoint(forward.values())  # the run's --seed changes every draw


async def test_other_models_receive_the_configured_seed_unchanged():
    unseeded = ScriptedModel("plain", ["x"])
    await RoleModel("c", unseeded, GenerateConfig(), concurrency=1).generate(MESSAGES, sample_id="a")
    seeded = ScriptedModel("plain", ["x"])
    await RoleModel("c", seeded, GenerateConfig(seed=5), concurrency=1).generate(MESSAGES, sample_id="a")
    assert unseeded.configs[-1].seed is None and seeded.configs[-1].seed == 5

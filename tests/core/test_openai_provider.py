"""The OpenAI-compatible provider against a fake server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time

import pytest

from proseval.models.base import FatalError, GenerateConfig, RetryableError
from proseval.models.openai_compat import make_endpoint, parse_retry_after
from proseval.runtime.executor import RoleModel
from proseval.testing.fake_openai import FakeOpenAIServer, Reply

MESSAGES = [{"role": "user", "content": "Say hi"}]


PROVIDERS = ["openai-compatible", "openai"]  # aiohttp transport, and the official SDK


@pytest.fixture(autouse=True)
def openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def model_for(*servers: FakeOpenAIServer, provider: str = "openai-compatible"):
    return make_endpoint(provider, "fake-model", [s.base_url for s in servers])


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_request_and_response_are_translated(provider):
    async with FakeOpenAIServer(latency=0.05) as server:
        model = model_for(server, provider=provider)
        completion = await model.generate(MESSAGES, GenerateConfig(temperature=0.2, max_tokens=5, seed=3, stop=["x"]))
        await model.aclose()
    assert completion.text == "echo: Say hi"
    assert completion.finish_reason == "stop"
    assert completion.usage.prompt_tokens == 2 and completion.usage.completion_tokens == 3
    assert completion.latency >= 0.05
    sent = server.requests[0]
    assert sent["model"] == "fake-model" and sent["messages"] == MESSAGES
    assert (sent["temperature"], sent["max_tokens"], sent["seed"], sent["stop"]) == (0.2, 5, 3, ["x"])
    assert "top_p" not in sent  # unset parameters are not sent


@pytest.mark.parametrize(
    ("reply", "error", "status"),
    [
        (Reply("status", 429, headers={"Retry-After": "2"}), RetryableError, 429),
        (Reply("status", 500), RetryableError, 500),
        (Reply("status", 503), RetryableError, 503),
        (Reply("status", 400), FatalError, 400),
        (Reply("status", 401), FatalError, 401),
        (Reply("truncated"), RetryableError, None),
        (Reply("malformed"), RetryableError, None),
        (Reply("no_choices"), RetryableError, None),
        (Reply("close"), RetryableError, None),
    ],
)
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_failures_are_classified(reply, error, status, provider):
    async with FakeOpenAIServer(behaviour=lambda i, body: reply) as server:
        model = model_for(server, provider=provider)
        with pytest.raises(error) as caught:
            await model.generate(MESSAGES, GenerateConfig(timeout=5))
        await model.aclose()
    assert caught.value.status == status
    if status == 429:
        assert caught.value.retry_after == 2
    if status in (400, 401):
        assert "fake error" in str(caught.value)  # the server's own message is kept


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_timeouts_are_retryable(provider):
    async with FakeOpenAIServer(behaviour=lambda i, body: Reply("hang")) as server:
        model = model_for(server, provider=provider)
        with pytest.raises(RetryableError, match="timed out"):  # the request's own timeout, not the guard's
            await asyncio.wait_for(model.generate(MESSAGES, GenerateConfig(timeout=0.3)), 60)
        await model.aclose()


async def test_retry_after_from_the_server_is_waited_for():
    behaviour = lambda i, body: Reply("status", 429, headers={"Retry-After": "1"}) if i == 0 else Reply()  # noqa: E731  # a one-line script
    async with FakeOpenAIServer(behaviour=behaviour) as server:
        role = RoleModel(
            "candidate", model_for(server), GenerateConfig(timeout=5), concurrency=1, backoff_initial=0.001
        )
        start = time.perf_counter()
        completion = await role.generate(MESSAGES, sample_id="a")
        elapsed = time.perf_counter() - start
        await role.model.aclose()
    assert completion.text == "echo: Say hi"
    assert elapsed >= 1.0  # the server's Retry-After, not the 1 ms backoff
    assert role.stats.retries == 1


async def test_requests_are_spread_over_replicas():
    async with FakeOpenAIServer(latency=0.05) as a, FakeOpenAIServer(latency=0.05) as b:
        role = RoleModel("candidate", model_for(a, b), GenerateConfig(), concurrency=8)
        await asyncio.gather(*(role.generate(MESSAGES, sample_id=str(i)) for i in range(16)))
        await role.model.aclose()
    assert len(a.requests) + len(b.requests) == 16
    assert min(len(a.requests), len(b.requests)) >= 4


def test_missing_base_url_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("PROSEVAL_BASE_URL", raising=False)
    with pytest.raises(FatalError, match="--base-url"):
        make_endpoint("openai-compatible", "m", [])


def test_openai_needs_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(FatalError, match="OPENAI_API_KEY"):
        make_endpoint("openai", "gpt-4o-mini", [])


def test_retry_after_parsing():
    assert parse_retry_after({"retry-after": "3"}) == 3
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0
    assert parse_retry_after({}) is None

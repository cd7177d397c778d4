"""The `anthropic` provider's transport (one aiohttp POST per message, the key as `x-api-key`, the
API version of the model's rules) over the fake Anthropic API: the headers each request carries,
in real time and in batches, the errors each outcome becomes (and their wording), the replica
choice, `ANTHROPIC_BASE_URL`, and that the key reaches no file."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from proseval.cli.models import request_preview
from proseval.models.anthropic_batch import AnthropicBatchAPI
from proseval.models.anthropic_messages import ANTHROPIC_VERSION, AnthropicModel
from proseval.models.base import FatalError, GenerateConfig, RetryableError
from proseval.models.batch import open_batch_api
from proseval.models.families import RULES_VARIABLE, rules_for
from proseval.models.spec import build_model, parse_model_spec
from proseval.planning import plan
from proseval.runtime.executor import RoleModel
from proseval.runtime.options import RunOptions
from proseval.runtime.roles import RoleRequest
from proseval.runtime.runner import start_run
from proseval.testing.fake_anthropic import FakeAnthropicServer
from proseval.testing.fake_openai import Reply
from support.batching import write_queries
from support.core import OLDER_ANTHROPIC_API

KEY = "sk-ant-transport-DO-NOT-LEAK-9876543210"
MESSAGES = [{"role": "user", "content": "Say hi"}]


class RecordingServer(FakeAnthropicServer):
    """The fake Anthropic API, keeping the headers of every request it reads."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.seen: list[dict[str, str]] = []

    async def _respond(self, request_line: str, raw: bytes, writer: Any, headers: dict[str, str] | None = None) -> bool:
        self.seen.append(dict(headers or {}))
        return await super()._respond(request_line, raw, writer, headers)


@pytest.fixture(autouse=True)
def anthropic_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv(RULES_VARIABLE, raising=False)


def model_at(*urls: str, name: str = "claude-test") -> AnthropicModel:
    return build_model(parse_model_spec(f"anthropic/{name}", list(urls)))  # type: ignore[return-value]  # an anthropic/ spec builds one


def closed_port_url() -> str:
    """A local address nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- headers ----------------------------------------------------------------------------------------


async def test_the_key_goes_as_x_api_key_with_the_rules_api_version():
    async with RecordingServer() as server:
        model = model_at(server.base_url)
        completion = await model.generate(MESSAGES, GenerateConfig(max_tokens=20))
        await model.aclose()
        api = open_batch_api("anthropic", server.base_url, "claude-test")
        await api.probe()
        await api.aclose()
    assert completion.text == "echo: Say hi"
    assert [(h["x-api-key"], h["anthropic-version"], "authorization" in h) for h in server.seen] == [
        (KEY, "2026-10-21", False)
    ] * 2  # a message, then a batch call
    assert rules_for("anthropic", "claude-test").api_version == "2026-10-21" != ANTHROPIC_VERSION  # not the fallback
    preview = request_preview(parse_model_spec("anthropic/claude-test", [server.base_url]), GenerateConfig())
    assert preview[1] == {"anthropic-version": "2026-10-21"}  # describe-model shows what is sent


async def test_a_rules_file_chooses_the_api_version_for_real_time_and_batches(tmp_path, monkeypatch):
    rules = tmp_path / "rules.yaml"
    rules.write_text(OLDER_ANTHROPIC_API, encoding="utf-8")
    monkeypatch.setenv(RULES_VARIABLE, str(rules))
    async with RecordingServer() as server:
        model = model_at(server.base_url)
        await model.generate(MESSAGES, GenerateConfig(temperature=0.3))
        await model.aclose()
        api = open_batch_api("anthropic", server.base_url, "claude-test")
        await api.probe()
        await api.aclose()
    assert [h["anthropic-version"] for h in server.seen] == ["2023-06-01", "2023-06-01"]
    assert server.requests[0]["temperature"] == 0.3  # the older version still takes it


# --- errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "kind", "message"),
    [
        (
            Reply("status", 429, text="slow down", headers={"retry-after-ms": "1500"}),
            RetryableError,
            "HTTP 429 from {url}: rate_limit_error: slow down",
        ),
        (Reply("status", 529, text="busy"), RetryableError, "HTTP 529 from {url}: overloaded_error: busy"),
        (Reply("status", 404, text="no such model"), FatalError, "HTTP 404 from {url}: not_found_error: no such model"),
        (Reply("malformed"), RetryableError, "malformed response body: "),
        (Reply("close"), RetryableError, "connection error ({url}): "),
    ],
)
async def test_each_outcome_is_the_executors_error_with_the_usual_wording(reply, kind, message):
    async with FakeAnthropicServer(behaviour=lambda i, body: reply) as server:
        model = model_at(server.base_url)
        with pytest.raises(kind) as caught:
            await model.generate(MESSAGES, GenerateConfig(timeout=5))
        await model.aclose()
    assert type(caught.value) is kind and str(caught.value).startswith(message.format(url=server.base_url))
    assert server._count == 1  # one request, whatever the outcome: retrying is the executor's
    if reply.status == 429:
        assert caught.value.retry_after == 1.5


async def test_a_time_out_and_a_refused_connection_are_retryable():
    async with FakeAnthropicServer(behaviour=lambda i, body: Reply("hang")) as server:
        model = model_at(server.base_url)
        with pytest.raises(RetryableError) as caught:
            await model.generate(MESSAGES, GenerateConfig(timeout=0.3))
        await model.aclose()
    assert str(caught.value) == f"timed out after 0.3s ({server.base_url})"
    url = closed_port_url()
    model = model_at(url)
    with pytest.raises(RetryableError, match=rf"^connection error \({url}\): ") as refused:
        await model.generate(MESSAGES, GenerateConfig(timeout=5))
    await model.aclose()
    # in words: the host, the port and the system's reason, never the client library's phrasing
    port = url.rsplit(":", 1)[1].split("/")[0]
    assert str(refused.value) == f"connection error ({url}): cannot connect to 127.0.0.1:{port}: connection refused"


async def test_the_executor_retries_a_529_then_gets_the_answer():
    behaviour = lambda i, body: Reply("status", 529) if i < 2 else Reply()  # noqa: E731  # a one-line script
    async with FakeAnthropicServer(behaviour=behaviour) as server:
        role = RoleModel(
            "judge", model_at(server.base_url), GenerateConfig(timeout=5), concurrency=1, backoff_initial=0.001
        )
        completion = await role.generate(MESSAGES, sample_id="a")
        await role.model.aclose()
    assert completion.text == "echo: Say hi" and role.stats.retries == 2 and server._count == 3


# --- replicas and base URLs --------------------------------------------------------------------------


async def test_requests_go_to_the_replica_with_the_fewest_in_flight():
    async with FakeAnthropicServer(latency=0.3) as first, FakeAnthropicServer(latency=0.3) as second:
        model = model_at(first.base_url, second.base_url + "/v1")
        answers = await asyncio.gather(
            *(model.generate([{"role": "user", "content": f"q{i}"}], GenerateConfig()) for i in range(6))
        )
        await model.aclose()
    assert sorted(a.text for a in answers) == [f"echo: q{i}" for i in range(6)]
    assert (first.realtime, second.realtime) == (3, 3)


async def test_a_failing_replica_is_named_in_the_error():
    async with (
        FakeAnthropicServer(latency=0.2) as good,
        FakeAnthropicServer(behaviour=lambda i, body: Reply("status", 500)) as bad,
    ):
        model = model_at(good.base_url, bad.base_url)
        results = await asyncio.gather(
            model.generate(MESSAGES, GenerateConfig()),
            model.generate(MESSAGES, GenerateConfig()),
            return_exceptions=True,
        )
        await model.aclose()
    errors = [r for r in results if isinstance(r, Exception)]
    assert len(errors) == 1 and f"HTTP 500 from {bad.base_url}:" in str(errors[0])


async def test_anthropic_base_url_is_where_requests_go(monkeypatch):
    async with FakeAnthropicServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url + "/v1/")
        model = build_model(parse_model_spec("anthropic/claude-test"))
        await model.generate(MESSAGES, GenerateConfig())
        await model.aclose()
    assert server.realtime == 1 and server.api_keys == [KEY]


# --- Message Batches -------------------------------------------------------------------------------


async def test_batch_calls_send_the_same_headers_and_map_errors_the_same_way():
    async with RecordingServer() as server:
        api = AnthropicBatchAPI(server.base_url, KEY, "2026-10-21")
        await api.probe()
        with pytest.raises(FatalError) as caught:
            await api.retrieve("msgbatch_missing")
        await api.aclose()
    assert [(h["x-api-key"], h["anthropic-version"], "authorization" in h) for h in server.seen] == [
        (KEY, "2026-10-21", False)
    ] * 2
    assert str(caught.value).startswith(
        f"HTTP 404 from polling message batch msgbatch_missing ({server.base_url}): "
        "not_found_error: no such message batch"
    )
    api = AnthropicBatchAPI(closed_port_url(), KEY)
    with pytest.raises(
        RetryableError, match=r"^listing message batches: connection error \(http://127\.0\.0\.1:"
    ) as refused:
        await api.probe()
    assert str(refused.value).endswith(": connection refused") and "ssl:" not in str(refused.value)
    await api.aclose()


# --- secrets ---------------------------------------------------------------------------


async def test_a_server_repeating_the_key_leaves_it_redacted_and_in_no_file(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)
    # A careless server repeating the key at the start of its error message.
    async with FakeAnthropicServer(behaviour=lambda i, body: Reply("status", 400, text=f"bad key {KEY}")) as server:
        planned = plan(
            "writingbench",
            RoleRequest(
                model="scripted/echo",
                roles={"judge": "anthropic/claude-judge"},
                role_base_urls={"judge": [server.base_url]},
            ),
            params={"queries": str(queries)},
        )
        folder, _ = await start_run(
            planned.task,
            planned.bindings,
            RunOptions(out_dir=tmp_path, display="none", cache_path=tmp_path / "c.sqlite"),
            run_dir=tmp_path / "run",
        )
    criteria = next(folder.iter_records()).scores["writingbench"].metadata["criteria"]
    assert criteria and all("bad key [redacted]" in c["error"] for c in criteria.values())
    assert not [f for f in folder.path.rglob("*") if f.is_file() and KEY.encode() in f.read_bytes()]

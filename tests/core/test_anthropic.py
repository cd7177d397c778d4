"""The `anthropic` provider (Messages API) and its batch mode (Message Batches), against the test
double `proseval.testing.fake_anthropic`, driven by proseval's own provider (no `anthropic` SDK).

The same responder answers in real time and in batches, so a run with the judge in batch mode
must give the records of the same run in real time; a run killed while it polls is resumed
without creating a batch again; expired and errored items go into the next batch, then real time.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.errors import UsageError
from proseval.models.anthropic_messages import (
    DEFAULT_MAX_TOKENS,
    AnthropicModel,
    request_body,
)
from proseval.models.base import ContextOverflowError, FatalError, GenerateConfig, RetryableError
from proseval.models.spec import build_model, parse_model_spec
from proseval.planning import plan
from proseval.runtime.batch import BATCH_LOG, AnthropicBatchAPI, BatchExpiredError, anthropic_item_result
from proseval.runtime.executor import RoleModel
from proseval.runtime.options import RunOptions
from proseval.runtime.resume import resume_run
from proseval.runtime.roles import RoleRequest
from proseval.runtime.runlog import RunFolder
from proseval.runtime.runner import start_run
from proseval.testing.fake_anthropic import FakeAnthropicServer
from proseval.testing.fake_openai import Reply
from support.batching import FAST, _digest, kill_while_polling, metrics, records, wb_judge, write_queries

KEY = "sk-ant-test-DO-NOT-LEAK-0123456789"
MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi"}]
cli = CliRunner()


@pytest.fixture(autouse=True)
def anthropic_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def model_at(server: FakeAnthropicServer, name: str = "claude-test") -> AnthropicModel:
    return build_model(parse_model_spec(f"anthropic/{name}", [server.base_url]))  # type: ignore[return-value]  # an anthropic/ spec builds one


# --- the provider ---------------------------------------------------------------------------------


async def test_request_and_response_are_translated():
    async with FakeAnthropicServer(latency=0.05) as server:
        model = model_at(server)
        completion = await model.generate(
            MESSAGES, GenerateConfig(temperature=0.2, top_k=5, max_tokens=50, stop=["x"], seed=3)
        )
        await model.aclose()
    assert completion.text == "echo: Say hi" and completion.finish_reason == "stop"
    assert completion.usage.prompt_tokens == 3 + 2 and completion.usage.completion_tokens == 3
    assert completion.latency >= 0.05
    sent = server.requests[0]
    # no seed (the API has none); no temperature or top_k: API version 2026-10-21 removed them
    assert sent == {
        "model": "claude-test",
        "max_tokens": 50,
        "system": "You are terse.",
        "messages": [{"role": "user", "content": "Say hi"}],
        "stop_sequences": ["x"],
    }
    assert server.api_keys == [KEY]  # sent as x-api-key (the double checks anthropic-version too)


def test_the_body_mapping(monkeypatch, tmp_path):
    turns = [
        {"role": "system", "content": "A"},
        {"role": "system", "content": "B"},
        {"role": "user", "content": "u", "name": "x"},
        {"role": "assistant", "content": "a"},
    ]
    config = GenerateConfig(top_p=0.9, min_p=0.1, presence_penalty=0.5, extra={"metadata": {"user_id": "u1"}})
    base = {
        "model": "m",
        "max_tokens": DEFAULT_MAX_TOKENS,
        "system": "A\n\nB",
        "messages": [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}],
        "metadata": {"user_id": "u1"},
    }
    assert request_body("m", turns, config) == base  # what the model's family refuses is never sent
    (tmp_path / "rules.yaml").write_text(
        "families:\n  - {name: old, provider: anthropic, models: ['*'], api_version: '2023-06-01'}\n", encoding="utf-8"
    )
    monkeypatch.setenv("PROSEVAL_MODEL_RULES", str(tmp_path / "rules.yaml"))
    assert request_body("m", turns, config) == {**base, "top_p": 0.9}  # the older version takes top_p
    assert request_body("claude-sonnet-4-6", turns, GenerateConfig(reasoning_effort="low"))["output_config"] == {
        "effort": "low"
    }
    assert "system" not in request_body("m", [{"role": "user", "content": "u"}], GenerateConfig())
    with pytest.raises(FatalError, match="system message after"):
        request_body("m", [{"role": "user", "content": "u"}, {"role": "system", "content": "s"}], GenerateConfig())


def test_a_benchmark_response_format_is_not_sent_and_a_role_one_is_refused():
    """A benchmark's structured-output request rides on a prompt that asks for the same JSON."""
    structured = GenerateConfig(response_format={"type": "json_object"}, max_tokens=9)
    body = request_body("m", [{"role": "user", "content": "u"}], structured)
    assert "response_format" not in body and body["max_tokens"] == 9
    with pytest.raises(FatalError, match="no setting response_format"):
        AnthropicModel("m", ["http://127.0.0.1:9"]).check_config(structured)


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("tool_use", "tool_calls"),
        ("pause_turn", "pause_turn"),
    ],
)
async def test_finish_reasons(stop_reason, finish):
    async with FakeAnthropicServer(responder=lambda body: ("cut", stop_reason)) as server:
        model = model_at(server)
        completion = await model.generate(MESSAGES, GenerateConfig())
        await model.aclose()
    assert completion.finish_reason == finish
    # a refusal's partial text is its refusal, not an answer (as OpenAI's refusals have no content)
    assert (completion.text, completion.refusal) == (("", "cut") if stop_reason == "refusal" else ("cut", None))


@pytest.mark.parametrize(
    ("reply", "error", "status"),
    [
        (Reply("status", 429, headers={"retry-after": "2"}), RetryableError, 429),
        (Reply("status", 500), RetryableError, 500),
        (Reply("status", 529), RetryableError, 529),
        (Reply("status", 400), FatalError, 400),
        (Reply("status", 401), FatalError, 401),
        (Reply("status", 400, text="prompt is too long: 250000 tokens > 200000 maximum"), ContextOverflowError, 400),
        (Reply("malformed"), RetryableError, None),
        (Reply("close"), RetryableError, None),
    ],
)
async def test_failures_are_classified(reply, error, status):
    async with FakeAnthropicServer(behaviour=lambda i, body: reply) as server:
        model = model_at(server)
        with pytest.raises(error) as caught:
            await model.generate(MESSAGES, GenerateConfig(timeout=5))
        await model.aclose()
    assert type(caught.value) is error and caught.value.status == status
    if status == 429:
        assert caught.value.retry_after == 2
    if status == 400 and error is FatalError:
        assert "invalid_request_error" in str(caught.value)  # the server's own error type and message are kept


async def test_a_429_is_retried_after_retry_after_and_a_400_is_not():
    behaviour = lambda i, body: Reply("status", 429, headers={"retry-after": "1"}) if i == 0 else Reply()  # noqa: E731  # a one-line script
    async with FakeAnthropicServer(behaviour=behaviour) as server:
        role = RoleModel("judge", model_at(server), GenerateConfig(timeout=5), concurrency=1, backoff_initial=0.001)
        start = time.perf_counter()
        completion = await role.generate(MESSAGES, sample_id="a")
        elapsed = time.perf_counter() - start
        await role.model.aclose()
    assert completion.text == "echo: Say hi" and role.stats.retries == 1
    assert elapsed >= 1.0  # the server's Retry-After, not the 1 ms backoff

    async with FakeAnthropicServer(behaviour=lambda i, body: Reply("status", 400)) as server:
        role = RoleModel("judge", model_at(server), GenerateConfig(timeout=5), concurrency=1, backoff_initial=0.001)
        with pytest.raises(FatalError, match="HTTP 400"):
            await role.generate(MESSAGES, sample_id="a")
        await role.model.aclose()
    assert server._count == 1 and role.stats.retries == 0


async def test_timeouts_are_retryable():
    async with FakeAnthropicServer(behaviour=lambda i, body: Reply("hang")) as server:
        model = model_at(server)
        with pytest.raises(RetryableError, match="timed out"):
            await model.generate(MESSAGES, GenerateConfig(timeout=0.3))
        await model.aclose()


async def test_a_setting_the_family_refuses_is_never_sent():
    async with FakeAnthropicServer() as server:
        model = model_at(server)
        await model.generate(MESSAGES, GenerateConfig(frequency_penalty=0.3, temperature=0.5, max_tokens=20))
        await model.aclose()
    assert "frequency_penalty" not in server.requests[0] and "temperature" not in server.requests[0]


def test_keys_base_urls_and_the_spec(monkeypatch):
    spec = parse_model_spec("anthropic/claude-sonnet-4-5", ["http://proxy:9000/v1/"])
    assert spec.base_urls == ("http://proxy:9000/v1/",)
    model = build_model(spec)
    assert model.base_urls == ["http://proxy:9000"]  # /v1 belongs to the paths, not the root
    assert model.cache_identity() == {
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "base_url": ["http://proxy:9000"],
    }
    assert KEY not in json.dumps(model.cache_identity())
    assert build_model(parse_model_spec("anthropic/c")).base_urls == ["https://api.anthropic.com"]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://other:1")
    assert build_model(parse_model_spec("anthropic/c")).base_urls == ["http://other:1"]
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(FatalError, match="ANTHROPIC_API_KEY is not set"):
        build_model(parse_model_spec("anthropic/c"))


def test_the_shared_base_url_is_not_an_anthropic_roles():
    """`--base-url` is for OpenAI-compatible servers: the Anthropic key must not go there."""
    from proseval.runtime.roles import resolve_roles

    request = RoleRequest(
        model="openai-compatible/qwen", roles={"judge": "anthropic/claude-judge"}, base_urls=["http://gpu1:8000/v1"]
    )
    bindings, _, _ = resolve_roles(request, ("candidate", "judge"), {})
    assert bindings["candidate"].base_urls == ["http://gpu1:8000/v1"] and bindings["judge"].base_urls == []
    request = replace(request, role_base_urls={"judge": ["http://proxy:9000"]})
    assert resolve_roles(request, ("candidate", "judge"), {})[0]["judge"].base_urls == ["http://proxy:9000"]


# --- runs -------------------------------------------------------------------------------------------


def wb_plan(queries: Path, url: str):
    request = RoleRequest(
        model="scripted/echo", roles={"judge": "anthropic/claude-judge"}, role_base_urls={"judge": [url]}
    )
    return plan("writingbench", request, params={"queries": str(queries)})


def options(tmp_path: Path, name: str, **kwargs) -> RunOptions:
    kwargs.setdefault("batch_settings", FAST)
    return RunOptions(
        out_dir=tmp_path, display="none", backoff_initial=0.01, cache_path=tmp_path / f"{name}.sqlite", **kwargs
    )


def log_of(folder: RunFolder) -> list[dict]:
    return [json.loads(line) for line in (folder.path / BATCH_LOG).read_text().splitlines()]


def assert_no_key_in(*folders: Path) -> None:
    for folder in folders:
        for file in folder.rglob("*"):
            if file.is_file():
                assert KEY.encode() not in file.read_bytes(), file


def test_writingbench_judge_in_batch_mode_gives_the_real_time_results(tmp_path, isolated_cache):
    queries = write_queries(tmp_path / "q.jsonl")

    async def both():
        async with FakeAnthropicServer(responder=wb_judge, polls_to_complete=2) as server:
            planned = wb_plan(queries, server.base_url)
            live, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "live"), run_dir=tmp_path / "live"
            )
            realtime = server.realtime
            batched, _ = await start_run(
                planned.task,
                planned.bindings,
                options(tmp_path, "batch", batch_roles=("judge",)),
                run_dir=tmp_path / "batch",
            )
            return server, live, batched, realtime

    server, live, batched, realtime = asyncio.run(both())
    assert realtime == 4 * 5 and server.realtime == 20  # one judge call per criterion; none more in real time
    assert len(server.requests) == 2 * 20  # the same 20 again, inside the batch
    assert server.creates == 1 and server.lists == 1  # one batch for the phase; the probe's list
    assert set(server.submitted.values()) == {1} and len(server.submitted) == 20
    assert server.requests[:20] == server.requests[20:] or sorted(map(json.dumps, server.requests[:20])) == sorted(
        map(json.dumps, server.requests[20:])
    )  # the same Messages bodies in both modes
    assert server.requests[0]["system"] and server.requests[0]["max_tokens"] == 2048
    assert records(batched) == records(live)
    assert metrics(batched) == metrics(live)
    assert metrics(batched)["counts"]["ok"] == 4
    usage = next(iter(records(batched).values()))["usage"]["judge"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    log = log_of(batched)
    assert [e["event"] for e in log] == ["submitting", "created", "ended"]
    assert log[1]["batch_id"] == "msgbatch_0001" and log[1]["submission"] == log[0]["submission"]
    assert log[2]["status"] == "ended" and log[2]["answered"] == 20
    assert batched.read_header().batch == ["judge"]
    assert batched.read_header().config_hash == live.read_header().config_hash
    assert set(server.api_keys) == {KEY}
    assert_no_key_in(tmp_path, isolated_cache)  # run folders, cache, queries: never the key


def test_batches_are_cut_at_the_limits(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=3)

    async def go():
        async with FakeAnthropicServer(responder=wb_judge) as server:
            planned = wb_plan(queries, server.base_url)
            opts = options(tmp_path, "c", batch_roles=("judge",), batch_settings=replace(FAST, max_requests=4))
            _, results = await start_run(planned.task, planned.bindings, opts, run_dir=tmp_path / "run")
            return server, results

    server, results = asyncio.run(go())
    assert server.creates == 4 and results.counts.ok == 3  # 15 requests, at most 4 a batch
    assert max(len(b.requests) for b in server.batches.values()) == 4
    api = AnthropicBatchAPI("http://x", KEY)
    assert (api.max_requests, api.max_bytes) == (100_000, 256 * 1024 * 1024 - 64 * 1024)


def test_expired_and_errored_items_go_into_the_next_batch_then_real_time(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=2)

    def fault(params, seen):
        prompt = params["messages"][-1]["content"]
        if "criterion 3" in prompt:
            return "errored"  # an api_error every time: two batches, then real time
        return "expired" if seen == 0 and _digest(prompt) % 3 == 0 else None

    async def go():
        async with FakeAnthropicServer(responder=wb_judge, item_fault=fault) as server:
            planned = wb_plan(queries, server.base_url)
            live, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "live"), run_dir=tmp_path / "live"
            )
            server.requests.clear()
            server.realtime = 0
            batched, _ = await start_run(
                planned.task,
                planned.bindings,
                options(tmp_path, "batch", batch_roles=("judge",)),
                run_dir=tmp_path / "batch",
            )
            return server, live, batched

    server, live, batched = asyncio.run(go())
    twice = {cid for cid, n in server.submitted.items() if n == 2}
    assert len(twice) > 2 and server.creates == 2  # the expired and the errored ones, in one more batch
    assert server.realtime == 2  # the errored ones (criterion 3 of each query), failing again: real time
    assert len(server.requests) == 10
    assert records(batched) == records(live)


def test_an_invalid_request_fails_at_once(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)

    def fault(params, seen):
        return "invalid_request" if "criterion 2" in params["messages"][-1]["content"] else None

    async def go():
        async with FakeAnthropicServer(responder=wb_judge, item_fault=fault) as server:
            planned = wb_plan(queries, server.base_url)
            folder, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "b", batch_roles=("judge",)), run_dir=tmp_path / "run"
            )
            return server, folder

    server, folder = asyncio.run(go())
    assert server.creates == 1 and server.realtime == 0 and len(server.requests) == 4
    criteria = next(folder.iter_records()).scores["writingbench"].metadata["criteria"]
    assert criteria["C2"]["score"] is None and "invalid_request_error" in criteria["C2"]["error"]
    assert criteria["C1"]["score"] is not None


def test_item_results_are_classified():
    ok = anthropic_item_result(
        {
            "custom_id": "a",
            "result": {
                "type": "succeeded",
                "message": {
                    "content": [{"type": "text", "text": "hi"}],
                    "stop_reason": "max_tokens",
                    "usage": {"input_tokens": 3, "output_tokens": 1},
                },
            },
        },
        2.0,
    )
    assert (ok.text, ok.finish_reason, ok.usage.prompt_tokens, ok.latency, ok.raw) == ("hi", "length", 3, 2.0, None)

    def errored(kind, message="m"):
        return anthropic_item_result(
            {
                "custom_id": "a",
                "result": {"type": "errored", "error": {"type": "error", "error": {"type": kind, "message": message}}},
            },
            0,
        )

    assert type(errored("invalid_request_error")) is FatalError
    assert type(errored("invalid_request_error", "prompt is too long: 300000 tokens")) is ContextOverflowError
    assert type(errored("not_found_error")) is FatalError
    for kind in ("api_error", "overloaded_error", "rate_limit_error", "something_new"):
        assert type(errored(kind)) is RetryableError
    assert type(anthropic_item_result({"custom_id": "a", "result": {"type": "expired"}}, 0)) is BatchExpiredError
    assert type(anthropic_item_result({"custom_id": "a", "result": {"type": "canceled"}}, 0)) is RetryableError


async def test_the_batch_api_against_the_double():
    from proseval.models.anthropic_messages import request_body as body_of

    async with FakeAnthropicServer(polls_to_complete=0) as server:
        api = AnthropicBatchAPI(server.base_url + "/v1", KEY)
        await api.probe()
        lines = b"".join(
            api.line(f"pe-{i}", body_of("m", [{"role": "user", "content": f"q{i}"}], GenerateConfig()))
            for i in range(3)
        )
        submission = await api.stage(lines, "x.jsonl")
        server.hold = True  # the batch stays in progress until the server lets it end
        batch = await api.create(submission, "24h")
        assert (batch.status, batch.total, batch.results_url) == ("in_progress", 3, None)
        assert (await api.retrieve(batch.id)).status == "in_progress"
        server.hold = False
        ended = await api.retrieve(batch.id)
        assert ended.status == "ended" and ended.results_url.startswith(server.base_url)

        async def read(call, what):
            return await call()

        results = await api.results(ended, 1.0, read, "batch")
        assert sorted(results) == ["pe-0", "pe-1", "pe-2"] and results["pe-2"].text == "echo: q2"
        assert await api.find("other", time.time(), 3) is None  # created here: never adopted
        second = await api.create(await api.stage(lines, "y.jsonl"), "24h")
        assert (await api.cancel(second.id)).status == "canceling"
        canceled = await api.retrieve(second.id)
        results = await api.results(canceled, 1.0, read, "batch")
        assert canceled.status == "ended" and all("canceled" in str(r) for r in results.values())
        await api.aclose()
    assert server.creates == 2 and server.cancels == 1 and set(server.api_keys) == {KEY}


def test_a_lost_answer_to_a_create_is_looked_up_not_created_again(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)

    async def go():
        async with FakeAnthropicServer(responder=wb_judge) as server:
            server.lose_create_answers = 1
            planned = wb_plan(queries, server.base_url)
            folder, results = await start_run(
                planned.task, planned.bindings, options(tmp_path, "b", batch_roles=("judge",)), run_dir=tmp_path / "run"
            )
            return server, folder, results

    server, folder, results = asyncio.run(go())
    assert server.creates == 1 and server.lists >= 2  # the probe, then the look-up that found it
    assert results.counts.ok == 1 and results.extra["criteria_unscored"] == 0
    assert [e["event"] for e in log_of(folder)] == ["submitting", "created", "ended"]


def test_a_submission_without_a_recorded_batch_is_found_at_the_provider(tmp_path):
    """Killed after the create but before its answer was recorded: the resume finds the batch."""
    queries = write_queries(tmp_path / "q.jsonl", n=2)

    async def go():
        async with FakeAnthropicServer(responder=wb_judge) as server:
            planned = wb_plan(queries, server.base_url)
            folder, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "c", batch_roles=("judge",)), run_dir=tmp_path / "run"
            )
            log = folder.path / BATCH_LOG
            log.write_text(log.read_text().splitlines()[0] + "\n")  # only `submitting`
            folder.samples_path.write_text("")
            (folder.path / "results.json").unlink()
            results = await resume_run(folder, planned.task, options(tmp_path, "other-cache"))
            return server, folder, results

    server, folder, results = asyncio.run(go())
    assert server.creates == 1 and results.counts.ok == 2
    events = log_of(folder)
    assert [e["event"] for e in events] == ["submitting", "created", "ended"] and events[1]["adopted"] is True


def test_a_run_killed_while_polling_resumes_the_same_batches(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl")
    server = FakeAnthropicServer(responder=wb_judge).start_in_thread()
    run_dir = tmp_path / "run"
    try:
        kill_while_polling(server, queries, run_dir, "anthropic/claude-judge")
        planned = wb_plan(queries, server.base_url)
        resumed_options = RunOptions(display="none", out_dir=tmp_path, backoff_initial=0.01, batch_settings=FAST)
        results = asyncio.run(resume_run(RunFolder(run_dir), planned.task, resumed_options))
    finally:
        server.stop_thread()
    assert server.creates == 3  # polled again, none created again
    assert set(server.submitted.values()) == {1} and len(server.submitted) == 20
    assert results.complete and results.counts.ok == 4
    assert len(server.requests) == 20 and server.realtime == 0  # each judge call answered once, in its batch
    assert server.results_reads == 3
    assert RunFolder(run_dir).read_header().batch == ["judge"]
    assert_no_key_in(run_dir)


# --- refusals and secrets -------------------------------------------------------------------------


async def test_a_server_echoing_the_key_leaves_it_in_no_file(tmp_path):
    async with FakeAnthropicServer(behaviour=lambda i, body: Reply("echo_headers", 400)) as server:
        queries = write_queries(tmp_path / "q.jsonl", n=1)
        planned = wb_plan(queries, server.base_url)
        folder, _ = await start_run(planned.task, planned.bindings, options(tmp_path, "e"), run_dir=tmp_path / "run")
    criteria = next(folder.iter_records()).scores["writingbench"].metadata["criteria"]
    assert all("headers were" in c["error"] and "[redacted]" in c["error"] for c in criteria.values())
    assert_no_key_in(folder.path)


def test_a_role_setting_the_api_cannot_take_is_a_usage_error_before_the_run(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)
    request = RoleRequest(
        model="scripted/echo",
        roles={"judge": "anthropic/claude-judge"},
        generation={"judge": {"presence_penalty": 0.5}},
    )
    with pytest.raises(
        UsageError,
        match="--role judge anthropic/claude-judge: presence_penalty=0.5 cannot be sent: "
        "the model takes no presence_penalty .* -g judge.presence_penalty=null",
    ):
        plan("writingbench", request, params={"queries": str(queries)})


def test_the_command_line_runs_the_anthropic_judge_in_batch_mode(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=2)
    server = FakeAnthropicServer(responder=wb_judge, polls_to_complete=0).start_in_thread()
    try:
        result = cli.invoke(
            app,
            [
                "run",
                "writingbench",
                "--queries",
                str(queries),
                "-m",
                "scripted/echo",
                "-r",
                "judge=anthropic/claude-judge",
                "--role-base-url",
                f"judge={server.base_url}",
                "--batch",
                "judge",
                "--out",
                str(tmp_path / "runs"),
                "--display",
                "plain",
            ],
        )
    finally:
        server.stop_thread()
    assert result.exit_code == 0, result.output
    assert server.creates == 1 and len(server.submitted) == 10 and server.realtime == 1  # the probe alone
    assert "batch msgbatch_0001 submitted (10 requests)" in result.output
    assert KEY not in result.output


def test_batch_is_refused_for_an_endpoint_without_message_batches(tmp_path):
    from proseval.testing.fake_openai import FakeOpenAIServer

    queries = write_queries(tmp_path / "q.jsonl", n=1)
    server = FakeOpenAIServer().start_in_thread()  # no /v1/messages/batches: 404
    try:
        result = cli.invoke(
            app,
            [
                "run",
                "writingbench",
                "--queries",
                str(queries),
                "-m",
                "scripted/echo",
                "-r",
                "judge=anthropic/j",
                "--role-base-url",
                f"judge={server.base_url}",
                "--batch",
                "judge",
                "--out",
                str(tmp_path / "runs"),
                "--display",
                "none",
            ],
        )
    finally:
        server.stop_thread()
    assert result.exit_code == 1 and "offers no batch API" in result.output
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())

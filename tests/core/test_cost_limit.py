"""`--max-cost` spends up to its limit: requests reserve their role's mean output (not `max_tokens`)
and wait for room rather than stop the run, a batch phase the limit would cut goes out in chunks,
a stopped run's suggested limit finishes it in one resume, and a batch role's request sent in real
time pays the full price. Against the fake OpenAI-compatible server (and its batch API) reporting
usage in cl100k tokens, with answers far below `max_tokens` (`proseval.testing.replies`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.core.prices import Prices
from proseval.models.base import Completion, Usage
from proseval.planning import plan
from proseval.runtime.cost import CostMeter, RunSpend, message_tokens, observed_outputs
from proseval.runtime.options import RunOptions
from proseval.runtime.roles import RoleRequest
from proseval.runtime.runner import start_run
from proseval.testing.fake_batch import FakeBatchServer
from proseval.testing.fake_openai import FakeOpenAIServer
from proseval.testing.replies import ANSWER_TOKENS, REASON_TOKENS, verdict, writing_reply
from proseval.tokens import count_tokens
from support.batching import FAST, write_queries

PRICES = {
    "currency": "USD",
    "models": {
        "openai-compatible/cand": {"input": 2.0, "output": 8.0},
        "openai-compatible/judge": {"input": 2.5, "output": 10.0, "batch_discount": 0.5},
        "scripted/echo": {"input": 0, "output": 0},
    },
}
CONCURRENCY = 4


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(json.dumps(PRICES), encoding="utf-8")  # JSON is YAML
    return path


def invoke(*args: str):
    from proseval.cli import app

    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def spent(run: Path) -> float:
    return sum(stats["cost"] for stats in json.loads((run / "results.json").read_text())["roles"].values())


def test_a_limit_is_spent_to_four_fifths_and_one_resume_with_the_suggestion_finishes(tmp_path, prices):
    queries = write_queries(tmp_path / "q.jsonl", n=20)  # 20 samples: 1 answer and 5 judge calls each
    server = FakeOpenAIServer(responder=writing_reply, usage="tokens").start_in_thread()
    try:

        def run(*args: str):
            return invoke(
                "run",
                "writingbench",
                "--queries",
                str(queries),
                "-m",
                "openai-compatible/cand",
                "-r",
                "judge=openai-compatible/judge",
                "--base-url",
                server.base_url,
                "--prices",
                str(prices),
                "-c",
                str(CONCURRENCY),
                "--display",
                "none",
                "--no-probe",
                *args,
            )

        reference = run("--no-cache", "--run-dir", str(tmp_path / "reference"))
        assert reference.exit_code == 0, reference.output
        full = spent(tmp_path / "reference")
        limit = round(full / 2, 4)
        stopped = run("--max-cost", str(limit), "--run-dir", str(tmp_path / "limited"))
        at_stop = spent(tmp_path / "limited")
        suggested = float(stopped.output.split("--max-cost ")[-1].split()[0])
        resumed = invoke(
            "resume",
            str(tmp_path / "limited"),
            "--prices",
            str(prices),
            "--max-cost",
            str(suggested),
            "--display",
            "none",
            "--no-probe",
        )
    finally:
        server.stop_thread()

    assert stopped.exit_code == 3, stopped.output
    # A candidate request reserves 16,000 output tokens (0.128 USD) until the first answer, then the
    # mean (~600): the limit is spent to within the last requests, not cut at the worst cases.
    assert at_stop >= 0.8 * limit
    # The documented bound: past the limit by at most, per role, its concurrency × the most a reply
    # can pass its reservation (here the longest reply less the shortest, which no mean is below).
    judge_span = count_tokens(verdict(10, REASON_TOKENS[-1])) - count_tokens(verdict(1, REASON_TOKENS[0]))
    bound = CONCURRENCY * ((ANSWER_TOKENS[-1] - ANSWER_TOKENS[0]) * 8.0 + judge_span * 10.0) / 1e6
    assert at_stop <= limit + bound

    assert resumed.exit_code == 0, resumed.output  # one resume with the printed limit finishes
    records = [json.loads(line) for line in (tmp_path / "limited" / "samples.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in records) == sorted(f"queries/q{k}" for k in range(20))
    assert all(r["status"] == "ok" for r in records)
    assert spent(tmp_path / "limited") == pytest.approx(full)  # abandoned samples' answers came from the cache
    assert suggested < 1.6 * full


def test_a_request_waits_for_room_and_then_reserves_its_roles_mean():
    prices = Prices.model_validate({"models": {"m/x": {"input": 0, "output": 1_000_000}}})  # 1 per output token
    meter = CostMeter(prices, limit=50.0)
    spend = RunSpend(meter, {"candidate": "m/x"})
    messages = [{"role": "user", "content": "word"}]

    async def go() -> tuple[float, float, bool]:
        first = await spend.before("candidate", messages, {"max_tokens": 40})  # no answer yet: max_tokens
        second = asyncio.ensure_future(spend.before("candidate", messages, {"max_tokens": 40}))
        await asyncio.sleep(0.01)
        waited = not second.done()  # 40 reserved + 40 > 50, but 0 spent + 40 fits: it waits
        spend.after("candidate", first, Completion(text="ok", usage=Usage(prompt_tokens=1, completion_tokens=6)))
        return first, await second, waited

    first, second, waited = asyncio.run(go())
    assert (first, second, waited) == (40.0, 6.0, True)  # the second reserved the mean of the answers: 6
    assert (meter.spent, meter.reserved, meter.stopped) == (6.0, 6.0, False)

    # earlier sessions' answers count (requests less errors, cache hits included), from usage.jsonl
    sessions = [
        {"roles": {"candidate": {"requests": 4, "errors": 1, "completion_tokens": 30}}},
        {"roles": {"candidate": {"requests": 2, "errors": 0, "completion_tokens": 18}}},
    ]
    resumed = RunSpend(CostMeter(prices), {"candidate": "m/x"}, outputs=observed_outputs(sessions))
    assert resumed.outputs == {"candidate": (5, 48)}
    assert resumed.expected("candidate", messages, {"max_tokens": 40})() == 10.0  # ceil(48 / 5)
    assert resumed.expected("candidate", messages, {"max_tokens": 8})() == 8.0  # never past max_tokens


def wb_plan(queries: Path, url: str):
    request = RoleRequest(
        model="scripted/echo", roles={"judge": "openai-compatible/judge"}, role_base_urls={"judge": [url]}
    )
    return plan("writingbench", request, params={"queries": str(queries)})


def test_a_batch_phase_the_limit_would_cut_goes_out_in_chunks(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=4)  # one phase of 4 × 5 judge requests
    prices = Prices.model_validate(PRICES)
    limit = 0.05
    meter = CostMeter(prices, limit=limit)

    async def go():
        async with FakeBatchServer(responder=writing_reply, usage="tokens") as server:
            planned = wb_plan(queries, server.base_url)
            options = RunOptions(
                display="none",
                backoff_initial=0.01,
                batch_roles=("judge",),
                cost=meter,
                batch_settings=FAST,
                cache_path=tmp_path / "cache.sqlite",
            )
            _, results = await start_run(planned.task, planned.bindings, options, run_dir=tmp_path / "run")
            return server, results

    server, results = asyncio.run(go())
    judge = prices.of("openai-compatible/judge")
    bodies = [
        json.loads(line)["body"]
        for f in server.files.values()
        if f.purpose == "batch"
        for line in f.data.decode().splitlines()
    ]
    cheapest = min(judge.cost(message_tokens(body["messages"]), 2048, batch=True) for body in bodies)
    assert 20 * cheapest > limit  # the phase at max_tokens does not fit the limit (it was refused past it)
    sizes = [batch.counts["total"] for batch in server.batches.values()]  # in the order they were created
    assert len(sizes) >= 2 and sum(sizes) == 20 and sizes[0] * cheapest <= limit  # what fitted, then the rest
    assert set(server.submitted.values()) == {1}  # every request in one batch only
    assert results.complete and results.counts.ok == 4
    assert meter.spent <= limit and not meter.stopped


def test_requests_sent_in_real_time_after_failing_in_batches_pay_the_full_price(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)
    prices = Prices.model_validate(PRICES)
    judge = prices.of("openai-compatible/judge")

    async def go(name: str, fault):
        async with FakeBatchServer(responder=writing_reply, usage="tokens", item_fault=fault) as server:
            planned = wb_plan(queries, server.base_url)
            options = RunOptions(
                display="none",
                backoff_initial=0.01,
                batch_roles=("judge",),
                cost=CostMeter(prices),
                batch_settings=FAST,
                cache_path=tmp_path / f"{name}.sqlite",
            )
            _, results = await start_run(planned.task, planned.bindings, options, run_dir=tmp_path / name)
            return results.roles["judge"]

    expired = asyncio.run(go("expired", lambda body, seen: "expired"))
    assert expired["realtime_fallbacks"] == 5  # each of the 5 lines expired in two batches, then went in real time
    by_hand = (expired["prompt_tokens"] * 2.5 + expired["completion_tokens"] * 10.0) / 1e6
    assert expired["cost"] == pytest.approx(by_hand, rel=1e-9)

    batched = asyncio.run(go("batched", None))
    assert batched["batch_lines"] == 5 and batched["realtime_fallbacks"] == 0
    assert batched["cost"] == pytest.approx(
        judge.cost(batched["prompt_tokens"], batched["completion_tokens"], batch=True), rel=1e-9
    )
    assert batched["cost"] == pytest.approx(by_hand / 2, rel=1e-3)  # the same requests, the same answers

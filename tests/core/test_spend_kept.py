"""A session's usage and spend survive every kind of stop. A process killed (SIGKILL) while a batch is
polled keeps the spend of the answers it had received (the session's usage is on disk from its first
answer on, not from its first record), and the requests it sent in the batch are counted once; a
batch's answers are paid, and their spend on disk, the moment the batch's results are read, before
the samples waiting on them go on; an interrupted session (SIGINT, SIGTERM) counts only the requests
it sent, never those still waiting for a slot. Against the fake OpenAI-compatible server and its
batch API."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proseval.core import Sample, State, Task
from proseval.core.prices import Prices
from proseval.runtime.context import SampleContext
from proseval.runtime.cost import CostMeter
from proseval.runtime.options import RunOptions
from proseval.runtime.runlog import SESSION_USAGE, RunFolder
from proseval.runtime.runner import start_run
from proseval.testing.fake_batch import FakeBatchServer
from proseval.testing.fake_openai import FakeOpenAIServer
from proseval.testing.replies import writing_reply
from support.batching import FAST, write_queries
from support.children import wait_for
from support.core import binding

ROOT = Path(__file__).resolve().parents[2]
PRICES = {
    "currency": "USD",
    "models": {
        "openai-compatible/cand": {"input": 2.0, "output": 8.0},
        "openai-compatible/judge": {"input": 2.5, "output": 10.0, "batch_discount": 0.5},
    },
}
PRICED = Prices.model_validate(PRICES)
SPECS = {"candidate": "openai-compatible/cand", "judge": "openai-compatible/judge"}
pytestmark = pytest.mark.usefixtures("signals_reach_children")  # tests/core/conftest.py


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(json.dumps(PRICES), encoding="utf-8")
    return path


def proseval_child(*args: object) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, "-m", "proseval", *map(str, args)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop_answering(server: FakeOpenAIServer) -> None:
    """Stop the fake with the answers it still holds (its long latency) given up, not left pending."""

    async def give_up() -> None:
        held = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in held:
            task.cancel()
        await asyncio.gather(*held, return_exceptions=True)

    asyncio.run_coroutine_threadsafe(give_up(), server._loop).result(10)  # type: ignore[arg-type]  # set once the server runs
    server.stop_thread()


def snapshot(run: Path) -> dict[str, Any]:
    """The running session's usage on disk (`usage.session.json`), {} while there is none."""
    try:
        return json.loads((run / SESSION_USAGE).read_text(encoding="utf-8") or "{}")
    except (FileNotFoundError, ValueError):
        return {}


def cost_of(records: list[Any], role: str) -> float:
    """What the answers these records hold cost the role (the judge in batch mode: at the batch price)."""
    price = PRICED.of(SPECS[role])
    assert price is not None
    usage = [r.usage[role] for r in records if role in r.usage]
    return sum(price.cost(u.prompt_tokens, u.completion_tokens, batch=role == "judge") for u in usage)


def test_a_kill_9_while_a_batch_is_polled_keeps_the_spend_of_the_answers_received(tmp_path, prices):
    queries = write_queries(tmp_path / "q.jsonl", n=3)  # 3 candidate answers in real time, 15 judge calls in a batch
    run = tmp_path / "run"
    server = FakeBatchServer(responder=writing_reply, usage="tokens").start_in_thread()
    server.hold = True  # the batch is polled and never ends while the child lives
    try:
        child = proseval_child(
            "run",
            "writingbench",
            "--queries",
            queries,
            "-m",
            "openai-compatible/cand",
            "-r",
            "judge=openai-compatible/judge",
            "--base-url",
            server.base_url,
            "--prices",
            prices,
            "--batch",
            "judge",
            "--display",
            "none",
            "--no-probe",
            "--run-dir",
            run,
        )
        try:
            # No sample can finish (no record is written); the session's usage is on disk all the same, its
            # candidate answers (paid) and the judge's requests (sent in the batch) included.
            wait_for(lambda: server.creates == 1 and server.polls >= 1, child, "the judge's batch was polled")
            wait_for(
                lambda: snapshot(run).get("roles", {}).get("judge", {}).get("requests") == 15,
                child,
                "the session's usage was on disk",
            )
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
        finally:
            child.kill()
        assert not (run / "samples.jsonl").read_text(encoding="utf-8").strip()
        killed = snapshot(run)["roles"]
        assert killed["candidate"]["requests"] == 3 and killed["candidate"]["cost"] > 0

        server.hold = False
        from proseval.cli import app

        resumed = CliRunner().invoke(
            app, ["resume", str(run), "--prices", str(prices), "--display", "none", "--no-probe"]
        )
        assert resumed.exit_code == 0, resumed.output
    finally:
        server.stop_thread()
    folder = RunFolder(run)
    roles = folder.read_results().roles
    records = list(folder.iter_records())
    # the killed session's candidate answers came back from the cache: their cost is the killed session's
    assert roles["candidate"]["cost"] == pytest.approx(cost_of(records, "candidate"), rel=1e-9)
    assert killed["candidate"]["cost"] == pytest.approx(cost_of(records, "candidate"), rel=1e-9)
    assert roles["judge"]["cost"] == pytest.approx(cost_of(records, "judge"), rel=1e-9)
    # each request counted once, by the session that sent it: the resume followed the batch recorded
    assert roles["judge"]["requests"] == server.model_requests["judge"] == 15
    assert roles["candidate"]["requests"] - roles["candidate"]["cache_hits"] == server.model_requests["cand"] == 3


def test_a_batchs_answers_are_paid_and_on_disk_before_the_samples_waiting_on_them_go_on(tmp_path):
    run = tmp_path / "run"
    seen: list[dict[str, Any]] = []

    async def protocol(sample: Sample, ctx: SampleContext) -> State:
        completion = await ctx.generate("candidate", [{"role": "user", "content": sample.input}])
        seen.append(snapshot(run))  # the moment the batch's answer comes back to the sample
        return State(output=completion.text, finish_reason=completion.finish_reason)

    task = Task(
        name="unit",
        version="1",
        protocol=protocol,
        scorers=[],
        roles_required=("candidate",),
        dataset=lambda: [Sample(id=f"s{i}", input=f"Write note {i}.") for i in range(3)],
    )

    async def go():
        async with FakeBatchServer(responder=writing_reply, usage="tokens") as server:
            bindings = {"candidate": binding("openai-compatible/cand", base_urls=[server.base_url])}
            options = RunOptions(
                display="none",
                batch_roles=("candidate",),
                batch_settings=FAST,
                backoff_initial=0.01,
                cost=CostMeter(PRICED),
                probe=False,
            )
            return await start_run(task, bindings, options, run_dir=run)

    _, results = asyncio.run(go())
    assert results.complete and len(seen) == 3
    paid = results.roles["candidate"]["cost"]  # the three answers of the one batch, at the batch price
    assert paid > 0
    assert [state.get("roles", {}).get("candidate", {}).get("cost") for state in seen] == [paid] * 3


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_session_counts_only_the_requests_it_sent(tmp_path, prices, signum):
    run = tmp_path / "run"
    # Four candidate requests at the server, which answers none (it holds them for an hour): the fifth
    # sample (five in flight for four slots) waits for a slot and is never sent.
    server = FakeOpenAIServer(latency=3600, usage="tokens").start_in_thread()
    try:
        child = proseval_child(
            "run",
            "demo",
            "--model",
            "openai-compatible/cand",
            "--role",
            "judge=openai-compatible/judge",
            "--base-url",
            server.base_url,
            "-c",
            "4",
            "--epochs",
            "10",
            "--prices",
            prices,
            "--no-cache",
            "--no-probe",
            "--display",
            "none",
            "--run-dir",
            run,
        )
        try:
            wait_for(lambda: sum(server.model_requests.values()) == 4, child, "four requests were sent")
            child.send_signal(signum)
            assert child.wait(60) == {signal.SIGINT: 130, signal.SIGTERM: 143}[signum]
        finally:
            child.kill()
    finally:
        stop_answering(server)
    [session] = [json.loads(line) for line in (run / "usage.jsonl").read_text(encoding="utf-8").splitlines()]
    counted = {role: stats["requests"] for role, stats in session["roles"].items()}
    assert (
        counted
        == {"candidate": 4, "judge": 0}
        == {"candidate": server.model_requests["cand"], "judge": server.model_requests["judge"]}
    )

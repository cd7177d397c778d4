"""Provider batch mode (`--batch ROLE`) against the batch API test double, driven by the `openai` client.

The same responders answer in real time and in batches, so a run in batch mode must give the
records of the same run in real time; a run killed while it polls is resumed without creating
any batch again; failed and expired items are retried in the next batch, then in real time.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.planning import plan
from proseval.runtime.batch import BATCH_LOG, custom_id
from proseval.runtime.options import RunOptions
from proseval.runtime.resume import resume_run
from proseval.runtime.roles import RoleRequest
from proseval.runtime.runlog import RunFolder
from proseval.runtime.runner import start_run
from proseval.testing.fake_batch import FakeBatchServer
from support.batching import FAST, ROOT, _digest, kill_while_polling, metrics, records, wb_judge, write_queries

pytestmark = pytest.mark.slow

cli = CliRunner()


def wb_plan(queries: Path, url: str):
    request = RoleRequest(
        model="scripted/echo", roles={"judge": "openai-compatible/judge"}, role_base_urls={"judge": [url]}
    )
    return plan("writingbench", request, params={"queries": str(queries)})


def options(tmp_path: Path, name: str, **kwargs) -> RunOptions:
    kwargs.setdefault("batch_settings", FAST)
    return RunOptions(
        out_dir=tmp_path, display="none", backoff_initial=0.01, cache_path=tmp_path / f"{name}.sqlite", **kwargs
    )


# --- WritingBench: the judge in batch mode -------------------------------------------------------


def test_writingbench_judge_in_batch_mode_gives_the_real_time_results(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl")

    async def both():
        async with FakeBatchServer(responder=wb_judge, polls_to_complete=2) as server:
            planned = wb_plan(queries, server.base_url)
            live, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "live"), run_dir=tmp_path / "live"
            )
            live_requests = len(server.requests)
            batched, _ = await start_run(
                planned.task,
                planned.bindings,
                options(tmp_path, "batch", batch_roles=("judge",)),
                run_dir=tmp_path / "batch",
            )
            return server, live, batched, live_requests

    server, live, batched, live_requests = asyncio.run(both())
    assert live_requests == 4 * 5  # one judge call per criterion, in real time
    assert len(server.requests) == 2 * 20  # the same 20 again, inside the batch
    assert server.creates == 1 and server.uploads == 1  # all judge calls of the phase in one batch
    assert set(server.submitted.values()) == {1} and len(server.submitted) == 20
    assert records(batched) == records(live)
    assert metrics(batched) == metrics(live)
    assert metrics(batched)["counts"]["ok"] == 4
    log = [json.loads(line) for line in (batched.path / BATCH_LOG).read_text().splitlines()]
    assert [e["event"] for e in log] == ["uploaded", "created", "ended"]
    assert log[2]["status"] == "completed" and log[2]["answered"] == 20
    assert batched.read_header().batch == ["judge"] and live.read_header().batch == []
    assert batched.read_header().config_hash == live.read_header().config_hash  # the same experiment


def test_cached_answers_never_go_into_a_batch_and_limits_cut_batches(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=3)

    async def go():
        async with FakeBatchServer(responder=wb_judge) as server:
            planned = wb_plan(queries, server.base_url)
            small = replace(FAST, max_requests=4)
            opts = options(tmp_path, "cache", batch_roles=("judge",), batch_settings=small)
            first, _ = await start_run(planned.task, planned.bindings, opts, run_dir=tmp_path / "one")
            creates = server.creates
            second, _ = await start_run(planned.task, planned.bindings, opts, run_dir=tmp_path / "two")
            return server, creates, first, second

    server, creates, first, second = asyncio.run(go())
    assert creates == 4  # 15 requests, at most 4 a batch
    assert server.creates == 4  # the second run took every answer from the cache: no batch
    assert records(first) == records(second)


# --- Meeseeks: two rounds, candidate and judge in batch mode ------------------------------------

MEESEEKS_DATA = ROOT / "tests" / "meeseeks" / "fixtures" / "task"


def ms_responder(body: dict) -> str:
    """Candidate and judge of the Meeseeks fixture, by model name; the re-ask gets better answers."""
    prompt = body["messages"][-1]["content"]
    if body["model"] == "judge":
        return "分析：scripted\n判断：是" if _digest(prompt) % 3 else "分析：scripted\n判断：否"
    second = "not satisfied" in prompt
    if "slogans" in prompt:
        return "1. Tea time\n2. Calm cup" if second else "Here are my slogans:\n1. Tea time\nHope you like them!"
    if "poem" in prompt:
        return "Drizzle and an umbrella" if second else "Rain falls soft\non the quiet town"
    if "colours" in prompt:
        return "1. red\n2. green\n3. blue"
    return "I do not know."


def ms_extractor(messages):
    prompt = messages[-1]["content"]
    if "extract_info_list" in prompt:
        return (
            "```python\ndef extract_info_list(model_response):\n"
            "    return re.findall(r'^\\d+\\. .*$', model_response, re.M)\n```"
        )
    return "ALL"


def test_meeseeks_two_rounds_in_batch_mode_give_the_real_time_results(tmp_path, scripts):
    from proseval.benchmarks.meeseeks.params import MeeseeksParams
    from proseval.benchmarks.meeseeks.task import make_task
    from proseval.runtime.records import RoleBinding

    extractor = scripts("ms-batch-extractor", ms_extractor)
    task = make_task(MeeseeksParams(data_dir=str(MEESEEKS_DATA), language="en", rounds=2))

    async def both():
        async with FakeBatchServer(responder=ms_responder) as server:
            bindings = {
                "candidate": RoleBinding(spec="openai-compatible/candidate", base_urls=[server.base_url]),
                "judge": RoleBinding(spec="openai-compatible/judge", base_urls=[server.base_url]),
                "extractor": RoleBinding(spec=extractor),
            }
            live, _ = await start_run(task, bindings, options(tmp_path, "live"), run_dir=tmp_path / "live")
            live_requests = len(server.requests)
            batched, _ = await start_run(
                task,
                bindings,
                options(tmp_path, "batch", batch_roles=("candidate", "judge")),
                run_dir=tmp_path / "batch",
            )
            return server, live, batched, live_requests

    server, live, batched, live_requests = asyncio.run(both())
    assert records(batched) == records(live)
    assert metrics(batched) == metrics(live)
    assert len(server.requests) == 2 * live_requests  # each request once more, inside batches
    rounds = {r.id: len(r.state.turns) for r in batched.iter_records() if r.state is not None}
    assert max(rounds.values()) == 2  # some items were asked again
    # batches follow the phases: round 1 candidate, its judge calls, round 2 candidate, its judge calls
    log = [json.loads(line) for line in (batched.path / BATCH_LOG).read_text().splitlines()]
    roles = [e["role"] for e in log if e["event"] == "created"]
    assert roles == ["candidate", "judge", "candidate", "judge"]
    assert set(server.submitted.values()) == {1}


# --- kill while polling, then resume ------------------------------------------------------------


def test_a_run_killed_while_polling_resumes_the_same_batches(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl")
    server = FakeBatchServer(responder=wb_judge).start_in_thread()
    run_dir = tmp_path / "run"
    try:
        kill_while_polling(server, queries, run_dir, "openai-compatible/judge")
        planned = wb_plan(queries, server.base_url)
        resumed_options = RunOptions(display="none", out_dir=tmp_path, backoff_initial=0.01, batch_settings=FAST)
        results = asyncio.run(resume_run(RunFolder(run_dir), planned.task, resumed_options))
    finally:
        server.stop_thread()
    assert server.creates == 3 and server.uploads == 3  # polled again, none created again
    assert set(server.submitted.values()) == {1} and len(server.submitted) == 20
    assert results.complete and results.counts.ok == 4
    assert len(server.requests) == 20  # each judge call answered once, in its batch
    assert RunFolder(run_dir).read_header().batch == ["judge"]  # the resume kept batch mode from the header


def test_an_upload_without_a_recorded_batch_is_found_at_the_provider(tmp_path):
    """Killed after the batch was created but before its id was written: the resume finds it by its file."""
    queries = write_queries(tmp_path / "q.jsonl", n=2)

    async def go():
        async with FakeBatchServer(responder=wb_judge) as server:
            planned = wb_plan(queries, server.base_url)
            folder, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "c", batch_roles=("judge",)), run_dir=tmp_path / "run"
            )
            # as if killed between `batches.create` and the record of its answer, before any sample was written
            log = folder.path / BATCH_LOG
            log.write_text(log.read_text().splitlines()[0] + "\n")
            folder.samples_path.write_text("")
            (folder.path / "results.json").unlink()
            resumed = options(tmp_path, "other-cache")  # a fresh cache: the answers must come from the batch
            results = await resume_run(folder, planned.task, resumed)
            return server, folder, results

    server, folder, results = asyncio.run(go())
    assert server.creates == 1 and results.counts.ok == 2
    events = [json.loads(line) for line in (folder.path / BATCH_LOG).read_text().splitlines()]
    assert [e["event"] for e in events] == ["uploaded", "created", "ended"] and events[1]["adopted"] is True


# --- failures: the next batch, then real time, then unscored ------------------------------------


def test_expired_items_go_into_the_next_batch(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=2)

    def fault(body, seen):  # every third request expires in its first batch
        return "expired" if seen == 0 and _digest(body["messages"][-1]["content"]) % 3 == 0 else None

    async def go():
        async with FakeBatchServer(responder=wb_judge, item_fault=fault) as server:
            planned = wb_plan(queries, server.base_url)
            live, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "live"), run_dir=tmp_path / "live"
            )
            server.requests.clear()
            batched, _ = await start_run(
                planned.task,
                planned.bindings,
                options(tmp_path, "batch", batch_roles=("judge",)),
                run_dir=tmp_path / "batch",
            )
            return server, live, batched

    server, live, batched = asyncio.run(go())
    expired = [cid for cid, n in server.submitted.items() if n == 2]
    assert expired and server.creates == 2  # the expired ones, again, in one more batch
    assert [b.status for b in server.batches.values()] == ["expired", "completed"]
    assert len(server.requests) == 10  # none in real time
    assert records(batched) == records(live)


def test_an_item_failing_everywhere_ends_unscored_never_zero(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)
    doomed = {"C3"}

    def fault(body, seen):
        return "server_error" if "criterion 3" in body["messages"][-1]["content"] else None

    def realtime(index, body):
        from proseval.testing.fake_openai import Reply

        return Reply(kind="status", status=500) if "criterion 3" in body["messages"][-1]["content"] else Reply()

    async def go():
        async with FakeBatchServer(responder=wb_judge, item_fault=fault, behaviour=realtime) as server:
            planned = wb_plan(queries, server.base_url)
            folder, results = await start_run(
                planned.task,
                planned.bindings,
                options(tmp_path, "b", batch_roles=("judge",), max_attempts=2),
                run_dir=tmp_path / "run",
            )
            return server, folder, results

    server, folder, results = asyncio.run(go())
    assert server.creates == 2  # the failed item went into a second batch, failed again...
    cid = [c for c, n in server.submitted.items() if n == 2]
    assert len(cid) == 1
    record = next(folder.iter_records())
    criteria = record.scores["writingbench"].metadata["criteria"]
    assert {name for name, c in criteria.items() if c["score"] is None} == doomed  # ...and in real time: unscored
    assert criteria["C3"]["status"] == "error" and "500" in criteria["C3"]["error"]
    assert record.scores["writingbench"].value is not None  # the mean of the other four, not a 0 among them
    assert results.extra["criteria_unscored"] == 1


# --- refusals and the command line --------------------------------------------------------------


def test_batch_is_refused_for_providers_without_a_batch_api(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)
    base = [
        "run",
        "writingbench",
        "--queries",
        str(queries),
        "-m",
        "scripted/echo",
        "--out",
        str(tmp_path / "runs"),
        "--display",
        "none",
    ]
    refused = cli.invoke(app, [*base, "-r", "judge=scripted/echo", "--batch", "judge"])
    assert refused.exit_code == 2 and "scripted/echo has no batch API" in refused.output
    unknown = cli.invoke(app, [*base, "-r", "judge=scripted/echo", "--batch", "critic"])
    assert unknown.exit_code == 2 and "this task has no role critic" in unknown.output
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_batch_is_refused_for_an_endpoint_without_a_batch_api(tmp_path):
    from proseval.testing.fake_openai import FakeOpenAIServer

    queries = write_queries(tmp_path / "q.jsonl", n=1)
    server = FakeOpenAIServer().start_in_thread()  # chat completions only: /batches answers 404
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
                "judge=openai-compatible/j",
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
    assert not server.requests
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_the_command_line_runs_a_role_in_batch_mode(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=2)
    server = FakeBatchServer(responder=wb_judge, polls_to_complete=0).start_in_thread()
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
                "judge=openai-compatible/j",
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
    assert server.creates == 1 and len(server.submitted) == 10
    assert "batch batch-2 submitted (10 requests)" in result.output
    assert "batches 1 submitted, 0 in progress, 1 done" in result.output
    run = next((tmp_path / "runs").iterdir())
    assert json.loads((run / "header.json").read_text())["batch"] == ["judge"]


def test_custom_ids_are_stable_hashes_of_the_cache_key():
    key = hashlib.sha256(b"x").hexdigest()
    assert custom_id(key) == custom_id(key) == "pe-" + key[:40]


def test_a_set_file_puts_a_role_in_batch_mode(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=2)
    server = FakeBatchServer(responder=wb_judge, polls_to_complete=0).start_in_thread()
    try:
        text = textwrap.dedent(f"""
            models: [scripted/echo, {{spec: scripted/empty, name: quiet}}]
            tasks:
              - task: writingbench
                params: {{queries: {queries}}}
            roles: {{judge: openai-compatible/j}}
            role_base_url: {{judge: {server.base_url}}}
            batch: [judge]
            report: false
        """)
        (tmp_path / "set.yaml").write_text(text)
        result = cli.invoke(app, ["run-set", str(tmp_path / "set.yaml"), "--display", "none"])
        bad = tmp_path / "bad.yaml"
        bad.write_text(text.replace("batch: [judge]", "batch: [candidate]"))
        refused = cli.invoke(app, ["run-set", str(bad), "--display", "none"])
    finally:
        server.stop_thread()
    assert result.exit_code == 0, result.output
    assert server.creates == 2  # one batch per run: each run batches its own judge calls
    assert set(server.submitted.values()) == {1}
    for member in ("writingbench--scripted-echo", "writingbench--quiet"):
        assert json.loads((tmp_path / "set" / member / "header.json").read_text())["batch"] == ["judge"]
    assert refused.exit_code == 2 and "batch: candidate: scripted/echo has no batch API" in refused.output


def test_a_lost_answer_to_a_create_is_looked_up_not_created_again(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)

    async def go():
        async with FakeBatchServer(responder=wb_judge) as server:
            server.lose_create_answers = 1
            planned = wb_plan(queries, server.base_url)
            _, results = await start_run(
                planned.task, planned.bindings, options(tmp_path, "b", batch_roles=("judge",)), run_dir=tmp_path / "run"
            )
            return server, results

    server, results = asyncio.run(go())
    assert server.creates == 1 and server.lists >= 2  # the probe, then the look-up that found it
    assert results.counts.ok == 1 and results.extra["criteria_unscored"] == 0


def test_failed_batches_are_retried_once_then_sent_in_real_time(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=2)

    async def go():
        async with FakeBatchServer(responder=wb_judge) as server:
            planned = wb_plan(queries, server.base_url)
            live, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "live"), run_dir=tmp_path / "live"
            )
            server.requests.clear()
            server.fail_batches = True
            batched, _ = await start_run(
                planned.task,
                planned.bindings,
                options(tmp_path, "batch", batch_roles=("judge",)),
                run_dir=tmp_path / "batch",
            )
            return server, live, batched

    server, live, batched = asyncio.run(go())
    assert server.creates == 2 and [b.status for b in server.batches.values()] == ["failed", "failed"]
    assert len(server.requests) == 10  # then each in real time
    assert records(batched) == records(live)


def test_an_item_refused_for_good_is_not_retried(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)

    def fault(body, seen):
        return "bad_request" if "criterion 2" in body["messages"][-1]["content"] else None

    async def go():
        async with FakeBatchServer(responder=wb_judge, item_fault=fault) as server:
            planned = wb_plan(queries, server.base_url)
            folder, _ = await start_run(
                planned.task, planned.bindings, options(tmp_path, "b", batch_roles=("judge",)), run_dir=tmp_path / "run"
            )
            return server, folder

    server, folder = asyncio.run(go())
    assert server.creates == 1 and len(server.requests) == 4  # as a real-time 400: no retry anywhere
    criteria = next(folder.iter_records()).scores["writingbench"].metadata["criteria"]
    assert criteria["C2"]["score"] is None and "HTTP 400" in criteria["C2"]["error"]

"""What happened to a batch role's lines is counted (`usage.jsonl`, `results.json` `roles`, the usage
table), and a batch role whose endpoint is unreachable ends as failed samples that `resume
--retry-failed` runs again.
"""

from __future__ import annotations

import asyncio
import json
import socket
from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from proseval.cli import app
from proseval.commandline.results import usage_table
from proseval.planning import plan
from proseval.runtime.batch import BATCH_COUNTS
from proseval.runtime.options import RunOptions
from proseval.runtime.records import Counts, Results
from proseval.runtime.resume import resume_run
from proseval.runtime.roles import RoleRequest
from proseval.runtime.runlog import RunFolder
from proseval.runtime.runner import start_run
from proseval.testing.fake_batch import FakeBatchServer
from support.batching import FAST, wb_judge, write_queries

cli = CliRunner()
KEY = "sk-batch-outcomes-secret-0123456789"


def wb_plan(queries: Path, url: str):
    request = RoleRequest(
        model="scripted/echo", roles={"judge": "openai-compatible/judge"}, role_base_urls={"judge": [url]}
    )
    return plan("writingbench", request, params={"queries": str(queries)})


def batch_options(tmp_path: Path, **kwargs) -> RunOptions:
    return RunOptions(
        out_dir=tmp_path,
        display="none",
        backoff_initial=0.01,
        batch_settings=FAST,
        batch_roles=("judge",),
        cache_path=tmp_path / "cache.sqlite",
        **kwargs,
    )


def unused_port() -> int:
    """A loopback port with nothing listening on it (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def judge_counts(folder: RunFolder) -> dict[str, int]:
    roles = json.loads((folder.path / "results.json").read_text())["roles"]
    return {key: roles["judge"][key] for key in BATCH_COUNTS}


def usage_rows(results: Results) -> dict[str, dict[str, str]]:
    """The usage table's cells by role and column header."""
    table = usage_table(results)
    headers = [str(column.header) for column in table.columns]
    cells = [list(column.cells) for column in table.columns]
    return {row[0]: dict(zip(headers[1:], row[1:])) for row in zip(*cells)}


def test_lines_expired_everywhere_are_counted_and_sent_in_real_time(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=2)

    async def go():
        async with FakeBatchServer(responder=wb_judge, item_fault=lambda body, seen: "expired") as server:
            planned = wb_plan(queries, server.base_url)
            folder, results = await start_run(
                planned.task, planned.bindings, batch_options(tmp_path), run_dir=tmp_path / "run"
            )
            return server, folder, results

    server, folder, results = asyncio.run(go())
    assert [b.status for b in server.batches.values()] == ["expired", "expired"]  # each line in two batches...
    assert len(server.requests) == 10  # ...then in real time
    assert results.counts.ok == 2 and results.extra["criteria_unscored"] == 0
    assert judge_counts(folder) == {
        "batch_lines": 20,
        "batch_failed": 0,
        "batch_expired": 20,
        "rebatched": 10,
        "realtime_fallbacks": 10,
    }
    session = json.loads((folder.path / "usage.jsonl").read_text().splitlines()[-1])["roles"]
    assert session["judge"]["batch_expired"] == 20 and "batch_lines" not in session["candidate"]
    rows = usage_rows(results)
    assert {
        k: rows["judge"][k]
        for k in ("batch lines", "batch failed", "batch expired", "rebatched", "real-time fallbacks")
    } == {
        "batch lines": "20",
        "batch failed": "0",
        "batch expired": "20",
        "rebatched": "10",
        "real-time fallbacks": "10",
    }
    assert rows["candidate"]["batch lines"] == "—"  # a role in real time has no batch counts
    shown = cli.invoke(app, ["show", str(folder.path)], env={"COLUMNS": "250"})
    assert shown.exit_code == 0, shown.output
    judge_row = next(line for line in shown.output.splitlines() if line.startswith("│ judge "))
    assert [cell.strip() for cell in judge_row.strip(" │").split("│")][-5:] == ["20", "0", "20", "10", "10"]
    assert "real-time" in shown.output and "expired" in shown.output


def test_some_failed_lines_are_counted(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)

    def fault(body, seen):  # criterion 2 refused for good; criterion 3 fails in its first batch only
        prompt = body["messages"][-1]["content"]
        if "criterion 2" in prompt:
            return "bad_request"
        return "server_error" if "criterion 3" in prompt and seen == 0 else None

    async def go():
        async with FakeBatchServer(responder=wb_judge, item_fault=fault) as server:
            planned = wb_plan(queries, server.base_url)
            folder, _ = await start_run(
                planned.task, planned.bindings, batch_options(tmp_path), run_dir=tmp_path / "run"
            )
            return server, folder

    server, folder = asyncio.run(go())
    assert server.creates == 2 and len(server.requests) == 4  # 3 answered, then 1 in the next batch; none real-time
    assert judge_counts(folder) == {
        "batch_lines": 6,
        "batch_failed": 2,
        "batch_expired": 0,
        "rebatched": 1,
        "realtime_fallbacks": 0,
    }


def test_a_batch_seen_to_end_is_counted_once_across_sessions(tmp_path):
    queries = write_queries(tmp_path / "q.jsonl", n=1)

    async def go():
        async with FakeBatchServer(responder=wb_judge) as server:
            planned = wb_plan(queries, server.base_url)
            folder, _ = await start_run(
                planned.task, planned.bindings, batch_options(tmp_path), run_dir=tmp_path / "run"
            )
            folder.samples_path.write_text("")  # as if its records were lost: the resume asks again
            (folder.path / "results.json").unlink()
            resumed = replace(batch_options(tmp_path), cache_path=tmp_path / "fresh.sqlite")
            return server, folder, await resume_run(folder, planned.task, resumed)

    server, folder, results = asyncio.run(go())
    assert server.creates == 1 and results.counts.ok == 1  # the answers read again from the recorded batch
    assert results.roles["judge"]["batch_lines"] == 5 and results.roles["judge"]["sessions"] == 2


def test_an_unreachable_batch_endpoint_fails_samples_that_retry_failed_runs_again(tmp_path, monkeypatch):
    monkeypatch.setenv("PROSEVAL_API_KEY", KEY)
    queries = write_queries(tmp_path / "q.jsonl", n=3)
    port = unused_port()
    url = f"http://127.0.0.1:{port}/v1"
    planned = wb_plan(queries, url)
    run_dir = tmp_path / "run"

    async def first_and_down():
        async with FakeBatchServer(responder=wb_judge, port=port):  # up for the first sample
            await start_run(planned.task, planned.bindings, batch_options(tmp_path, limit=1), run_dir=run_dir)
        # down: nothing listens on the port any more
        return await resume_run(RunFolder(run_dir), planned.task, batch_options(tmp_path, limit=3, max_attempts=2))

    down = asyncio.run(first_and_down())
    folder = RunFolder(run_dir)
    assert down.complete and down.counts.ok == 1 and down.counts.failed == 2  # failed, not unscored
    failed = {r.id: r.error for r in folder.iter_records() if r.status == "error"}
    assert set(failed) == {"queries/q1", "queries/q2"}
    for error in failed.values():  # the endpoint, the step and why
        assert error.startswith(
            f"the request failed after its retries: batch for judge failed at {url}: "
            "uploading a batch file of 10 judge requests: "
        )
        assert "Error:" not in error  # the project's words, no exception class
    assert down.roles["judge"]["errors"] == 10
    assert KEY not in (run_dir / "samples.jsonl").read_text() and KEY not in json.dumps(down.model_dump())
    kept = next(line for line in (run_dir / "samples.jsonl").read_text().splitlines() if '"queries/q0"' in line)

    server = FakeBatchServer(responder=wb_judge, port=port, polls_to_complete=0).start_in_thread()
    try:  # the endpoint is back
        result = cli.invoke(app, ["resume", str(run_dir), "--retry-failed", "-n", "3", "--display", "none"])
    finally:
        server.stop_thread()
    assert result.exit_code == 0, result.output
    assert server.creates == 1 and len(server.submitted) == 10  # the 5 judge calls of q1 and q2, nothing of q0
    assert KEY not in result.output
    after = folder.read_results()
    assert after.complete and after.counts.ok == 3 and after.counts.failed == 0
    assert kept in (run_dir / "samples.jsonl").read_text().splitlines()  # q0's record untouched
    assert after.roles["judge"]["batch_lines"] == 15 and after.roles["judge"]["sessions"] == 3  # 5 + 0 + 10


def test_a_run_without_batch_roles_keeps_its_usage_columns():
    counts = Counts(total=1, finished=1, ok=1, failed=0, unscored=0)
    results = Results(
        run_id="r",
        task="t",
        finished_at="now",
        complete=True,
        counts=counts,
        metrics={},
        roles={"candidate": {"requests": 1, "cache_hits": 0, "retries": 0, "errors": 0}},
    )
    headers = [str(column.header) for column in usage_table(results).columns]
    assert headers == ["role", "calls", "cached", "retries", "errors", "tok in", "tok out", "latency s"]
    batched = results.model_copy(update={"roles": {"judge": {"requests": 1, **{key: 0 for key in BATCH_COUNTS}}}})
    assert len(usage_table(batched).columns) == len(headers) + len(BATCH_COUNTS)

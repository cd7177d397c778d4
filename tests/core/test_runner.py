"""Runs end to end: nothing lost, failures recorded, resume, config checks, re-scoring, secrets."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from proseval.models.base import RetryableError
from proseval.models.scripted import register_script, unregister_script
from proseval.runtime.options import RunOptions
from proseval.runtime.rescore import replay_task, rescore_run
from proseval.runtime.resume import ConfigMismatchError, resume_run
from proseval.runtime.runlog import RunFolder
from proseval.runtime.runner import start_run
from proseval.testing.fake_openai import FakeOpenAIServer, Reply
from support.core import binding, make_task


def ids(folder: RunFolder) -> Counter:
    return Counter((r.id, r.epoch) for r in folder.iter_scored())


def options(tmp_path: Path, **kw) -> RunOptions:
    return RunOptions(out_dir=tmp_path, display="none", backoff_initial=0.01, **kw)


async def test_every_sample_finishes_or_is_recorded_as_failed(tmp_path):
    """A server that throttles, errors, hangs and sends broken bodies loses no sample."""

    failures = [
        Reply("status", 429, headers={"Retry-After": "0.05"}),
        Reply("status", 500),
        Reply("truncated"),
        Reply("malformed"),
        Reply("hang"),
        Reply("no_choices"),
        Reply("close"),
    ]
    attempts: Counter = Counter()

    def chaos(i: int, body: dict) -> Reply:
        topic = int(body["messages"][0]["content"].split()[-1].rstrip("."))
        if topic % 10 == 9:  # these samples always fail
            return Reply("status", 500)
        attempt = attempts[topic]
        attempts[topic] += 1
        # sample k first meets k % 8 failures of different kinds, then succeeds
        return failures[(topic + attempt) % len(failures)] if attempt < topic % 8 else Reply()

    async with FakeOpenAIServer(behaviour=chaos, latency=0.01) as server:
        task = make_task(40)
        bindings = {
            "candidate": binding("openai-compatible/fake", base_urls=[server.base_url], concurrency=8, timeout=0.5)
        }
        folder, results = await start_run(task, bindings, options(tmp_path, max_attempts=8))
    counted = ids(folder)
    assert len(counted) == 40 and set(counted.values()) == {1}
    records = {r.id: r for r in folder.iter_records()}
    failed = {i for i, r in records.items() if r.status == "error"}
    assert failed == {f"s{i:05d}" for i in range(9, 40, 10)}
    assert all("HTTP 500" in records[i].error for i in failed)
    assert results.counts.failed == 4 and results.counts.ok == 36 and results.complete
    assert results.metrics["words"].n_scored == 36 and results.metrics["words"].n_failed == 4
    assert results.roles["candidate"]["retries"] > 0


async def test_unscored_judgements_are_counted_not_zeroed(tmp_path):
    register_script("judge-mixed", ['{"score": 8}', "no idea", '{"score": 42}', '{"score": "7"}'])
    try:
        task = make_task(8, judge=True)
        bindings = {
            "candidate": binding("scripted/echo", concurrency=1),
            "judge": binding("scripted/judge-mixed", concurrency=1),
        }
        folder, results = await start_run(task, bindings, options(tmp_path))
    finally:
        unregister_script("judge-mixed")
    judge = results.metrics["judge"]
    assert (judge.n_scored, judge.n_unscored) == (4, 4)
    assert judge.mean == pytest.approx((8 + 7 + 8 + 7) / 4)
    statuses = Counter(r.scores["judge"].parse_status for r in folder.iter_records())
    assert statuses == {"ok": 4, "unparsable": 2, "out_of_range": 2}
    assert results.counts.unscored == 4
    assert set(results.slices["group"]) == {"even", "odd"}
    # Every judge reply is in its record, so an unscored judgement can be traced to its text.
    replies = {r.scores["judge"].parse_status: r.calls for r in folder.iter_records()}
    (unparsable,) = replies["unparsable"]
    assert (unparsable.role, unparsable.text, unparsable.error) == ("judge", "no idea", None)
    assert [c.text for c in replies["out_of_range"]] == ['{"score": 42}']


async def test_a_failed_judge_request_is_in_the_record_with_its_error(tmp_path):
    register_script("judge-down", [RetryableError("HTTP 503 upstream")])
    try:
        bindings = {"candidate": binding("scripted/echo"), "judge": binding("scripted/judge-down")}
        folder, _ = await start_run(make_task(1, judge=True), bindings, options(tmp_path, max_attempts=1))
    finally:
        unregister_script("judge-down")
    (record,) = folder.iter_records()
    (call,) = record.calls
    assert call.role == "judge" and call.text is None and "HTTP 503" in call.error
    assert all(c.role != "candidate" for c in record.calls)  # the candidate's answers are the state


async def test_resume_runs_only_missing_samples(tmp_path):
    task = make_task(12)
    bindings = {"candidate": binding("scripted/echo")}
    folder, first = await start_run(task, bindings, options(tmp_path, limit=5))
    assert first.counts.finished == 5
    # simulate a crash in the middle of writing the sixth record
    with folder.samples_path.open("a") as handle:
        handle.write('{"id": "s00005", "epoch": 0, "status": "o')
    results = await resume_run(folder, task, options(tmp_path, limit=12))
    counted = ids(folder)
    assert len(counted) == 12 and set(counted.values()) == {1}
    assert results.complete and results.counts.finished == 12
    assert folder.read_header().resumes[0].forced is False


async def test_config_change_is_refused_unless_forced(tmp_path):
    bindings = {"candidate": binding("scripted/echo")}
    folder, _ = await start_run(make_task(4), bindings, options(tmp_path, limit=2))
    changed = make_task(4, params={"variant": "b"})
    with pytest.raises(ConfigMismatchError, match="--force"):
        await resume_run(folder, changed, options(tmp_path))
    results = await resume_run(folder, changed, options(tmp_path, force=True, limit=4))
    assert results.counts.finished == 4
    assert folder.read_header().resumes[-1].forced is True


async def test_retry_failed_replaces_failed_records(tmp_path):
    register_script("fails-then-works", [])
    calls = {"n": 0}

    def flaky(messages):
        calls["n"] += 1
        from proseval.models.base import FatalError

        if calls["n"] <= 2:
            raise FatalError("bad request")
        return "fine now"

    register_script("fails-then-works", flaky)
    try:
        bindings = {"candidate": binding("scripted/fails-then-works", concurrency=1)}
        folder, first = await start_run(make_task(4), bindings, options(tmp_path))
        assert first.counts.failed == 2
        again = await resume_run(folder, make_task(4), options(tmp_path))
        assert again.counts.failed == 2  # plain resume keeps failed records
        fixed = await resume_run(folder, make_task(4), options(tmp_path, retry_failed=True))
    finally:
        unregister_script("fails-then-works")
    assert fixed.counts.failed == 0 and fixed.counts.finished == 4
    assert set(ids(folder).values()) == {1}


async def test_rescore_reuses_outputs_without_calling_the_candidate(tmp_path):
    register_script("judge-low", ['{"score": 2}'])
    register_script("judge-high", ['{"score": 9}'])
    calls = {"n": 0}

    def candidate(messages):
        calls["n"] += 1
        return "some text"

    register_script("counted-candidate", candidate)
    try:
        task = make_task(6, judge=True)
        bindings = {"candidate": binding("scripted/counted-candidate"), "judge": binding("scripted/judge-low")}
        source, before = await start_run(task, bindings, options(tmp_path))
        assert calls["n"] == 6 and before.metrics["judge"].mean == 2
        rescored, after = await rescore_run(source, task, {"judge": binding("scripted/judge-high")}, options(tmp_path))
    finally:
        for name in ("judge-low", "judge-high", "counted-candidate"):
            unregister_script(name)
    assert calls["n"] == 6
    assert after.metrics["judge"].mean == 9 and after.counts.finished == 6
    header = rescored.read_header()
    assert header.rescored_from == str(source.path) and header.roles["judge"].spec == "scripted/judge-high"
    assert [r.state.output for r in rescored.iter_records()] == ["some text"] * 6
    assert replay_task(task, source).roles_required == ("judge",)


async def test_secrets_never_reach_the_run_folder(tmp_path, monkeypatch):
    secret = "sk-test-DO-NOT-LEAK-1234567890"
    monkeypatch.setenv("PROSEVAL_API_KEY", secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    async with FakeOpenAIServer() as server:
        bindings = {"candidate": binding("openai-compatible/fake", base_urls=[server.base_url])}
        folder, _ = await start_run(make_task(3), bindings, options(tmp_path))
    for file in folder.path.iterdir():
        assert secret not in file.read_text(), file
    cache_files = list(Path(__import__("os").environ["PROSEVAL_CACHE_DIR"]).glob("*"))
    assert cache_files and all(secret.encode() not in f.read_bytes() for f in cache_files)


async def test_records_and_results_are_valid_json(tmp_path):
    folder, _ = await start_run(make_task(3), {"candidate": binding("scripted/echo")}, options(tmp_path, seed=7))
    header = json.loads((folder.path / "header.json").read_text())
    assert header["seed"] == 7 and header["roles"]["candidate"]["config"]["seed"] == 7
    lines = folder.samples_path.read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["status"] == "ok" for line in lines)
    assert json.loads((folder.path / "results.json").read_text())["counts"]["finished"] == 3


async def test_a_second_run_is_served_from_the_cache(tmp_path):
    async with FakeOpenAIServer() as server:
        bindings = {"candidate": binding("openai-compatible/fake", base_urls=[server.base_url])}
        await start_run(make_task(5), bindings, options(tmp_path))
        _, second = await start_run(make_task(5), bindings, options(tmp_path))
        assert len(server.requests) == 5
    assert second.roles["candidate"]["cache_hits"] == 5


async def test_epochs_repeat_samples_with_distinct_cache_keys(tmp_path):
    folder, results = await start_run(
        make_task(3), {"candidate": binding("scripted/echo")}, options(tmp_path, epochs=2)
    )
    assert sorted(ids(folder)) == sorted((f"s{i:05d}", e) for i in range(3) for e in range(2))
    assert results.counts.total == 6 and results.roles["candidate"]["cache_hits"] == 0

"""Run folders survive misuse: one writer, duplicates, epochs, changed configurations, usage, secrets."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.core import Score
from proseval.models.base import Completion, Usage
from proseval.models.scripted import register_script, unregister_script
from proseval.runtime.options import RunOptions
from proseval.runtime.results import aggregate_run
from proseval.runtime.resume import ConfigMismatchError, resume_run
from proseval.runtime.runlog import RunFolder, RunLockedError
from proseval.runtime.runner import start_run
from proseval.runtime.secrets import scrub, scrub_url
from proseval.testing.fake_openai import FakeOpenAIServer, Reply
from support.core import binding, make_task

cli = CliRunner()


def options(tmp_path: Path, **kw) -> RunOptions:
    return RunOptions(out_dir=tmp_path, display="none", backoff_initial=0.01, max_attempts=2, **kw)


@pytest.fixture
def slow_model():
    async def slow(messages):
        await asyncio.sleep(0.05)
        return Completion(text="a b c", usage=Usage(prompt_tokens=7, completion_tokens=3))

    register_script("slow-usage", slow)
    yield "scripted/slow-usage"
    unregister_script("slow-usage")


@pytest.fixture
def held_model():
    """A model whose answers wait until `released` is set; `asked` is set at its first request
    (the run then holds its folder's lock)."""
    asked, released = asyncio.Event(), asyncio.Event()

    async def held(messages):
        asked.set()
        await released.wait()
        return Completion(text="a b c", usage=Usage(prompt_tokens=7, completion_tokens=3))

    register_script("held-usage", held)
    yield "scripted/held-usage", asked, released
    unregister_script("held-usage")


async def test_a_second_writer_is_refused_and_records_stay_unique(tmp_path, held_model):
    spec, asked, released = held_model
    task = make_task(20)
    bindings = {"candidate": binding(spec, concurrency=2)}
    first = asyncio.create_task(start_run(task, bindings, options(tmp_path), run_dir=tmp_path / "r"))
    await asyncio.wait_for(asked.wait(), 60)  # 60 s: a hang guard
    with pytest.raises(RunLockedError, match="being written by another proseval process"):
        await resume_run(RunFolder(tmp_path / "r"), task, options(tmp_path))
    released.set()
    folder, results = await first
    assert results.counts.finished == 20 and results.counts.duplicates == 0
    assert max(Counter((r.id, r.epoch) for r in folder.iter_scored()).values()) == 1


async def test_a_lock_left_by_a_killed_writer_is_reported_and_taken_over(tmp_path, capsys):
    task = make_task(4)
    folder, _ = await start_run(task, {"candidate": binding("scripted/echo")}, options(tmp_path, limit=2))
    (folder.path / ".lock").write_text("pid 999999 on elsewhere, since 2026-01-01T00:00:00+00:00")
    results = await resume_run(folder, task, options(tmp_path, limit=4))
    assert results.counts.finished == 4
    assert "stopped without finishing" in capsys.readouterr().err
    assert (folder.path / ".lock").read_text() == ""


async def test_duplicate_records_are_set_aside_and_counted(tmp_path):
    task = make_task(3)
    folder, before = await start_run(task, {"candidate": binding("scripted/echo")}, options(tmp_path))
    lines = folder.samples_path.read_text().splitlines(keepends=True)
    folder.samples_path.write_text("".join(lines + lines[:2]))
    results = aggregate_run(task, folder, 3, "r")
    assert results.counts.duplicates == 2 and results.counts.finished == 3
    assert results.metrics["words"].mean == before.metrics["words"].mean
    resumed = await resume_run(folder, task, options(tmp_path))
    assert resumed.counts.finished == 3 and resumed.complete


async def test_epochs_give_per_epoch_and_mean_figures(tmp_path):
    calls = Counter()

    def varying(messages):
        calls[messages[-1]["content"]] += 1
        return " ".join(["w"] * calls[messages[-1]["content"]])  # 1, 2, 3 words in epochs 0, 1, 2

    register_script("varying", varying)
    try:
        task = make_task(4)
        task.aggregate = lambda samples: {"n": len(samples), "words": sum(s.scores["words"].value for s in samples)}
        _, results = await start_run(
            task, {"candidate": binding("scripted/varying")}, options(tmp_path, epochs=3, use_cache=False)
        )
    finally:
        unregister_script("varying")
    assert [e["words"].mean for e in results.epochs] == [1.0, 2.0, 3.0]
    assert results.metrics["words"].mean == 2.0 and results.metrics["words"].n_scored == 4
    assert results.extra_epochs == [{"n": 4, "words": 4.0}, {"n": 4, "words": 8.0}, {"n": 4, "words": 12.0}]
    assert results.extra == {"n": 4.0, "words": 8.0}
    assert results.counts.total == results.counts.finished == 12


async def test_writingbench_with_epochs_reports_each_epoch_and_the_mean(tmp_path):
    from proseval.registry import get_task
    from writingbench.wb_fixtures import tiny_files, write_files

    data = write_files(tmp_path / "benchmark_query", tiny_files())
    register_script("wb-judge-7", lambda messages: '{"score": 7, "reason": "ok"}')
    try:
        task = get_task("writingbench", {"data_dir": str(data), "verify": False})
        bindings = {"candidate": binding("scripted/echo"), "judge": binding("scripted/wb-judge-7")}
        _, results = await start_run(task, bindings, options(tmp_path, epochs=3))
    finally:
        unregister_script("wb-judge-7")
    assert len(results.epochs) == 3 and len(results.extra_epochs) == 3
    overall = [next(s for s in e["writingbench"]["slices"] if s["kind"] == "overall") for e in results.extra_epochs]
    mean = next(s for s in results.extra["writingbench"]["slices"] if s["kind"] == "overall")
    assert [o["value"] for o in overall] == [7.0, 7.0, 7.0] and mean["value"] == 7.0


def test_run_resume_with_another_model_is_refused_unless_forced(tmp_path):
    base = ["--out", str(tmp_path), "--display", "none", "--limit", "2"]
    first = cli.invoke(app, ["run", "demo", "-m", "scripted/echo", "-r", "judge=scripted/echo", *base])
    assert first.exit_code == 0, first.output
    run_dir = next(tmp_path.glob("demo-*"))
    refused = cli.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "scripted/empty",
            "-r",
            "judge=scripted/echo",
            "--resume",
            str(run_dir),
            "--display",
            "none",
        ],
    )
    assert refused.exit_code == 2
    assert "role candidate: scripted/echo -> scripted/empty" in " ".join(refused.output.split())
    forced = cli.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "scripted/empty",
            "-r",
            "judge=scripted/echo",
            "--resume",
            str(run_dir),
            "--force",
            "--display",
            "none",
        ],
    )
    assert forced.exit_code == 0, forced.output
    header = json.loads((run_dir / "header.json").read_text())
    assert header["roles"]["candidate"]["spec"] == "scripted/empty" and header["resumes"][-1]["forced"]


async def test_resume_refuses_changed_bindings_in_the_api(tmp_path):
    task = make_task(3)
    folder, _ = await start_run(task, {"candidate": binding("scripted/echo")}, options(tmp_path, limit=1))
    with pytest.raises(ConfigMismatchError, match="role candidate"):
        await resume_run(folder, task, options(tmp_path), {"candidate": binding("scripted/empty")})


async def test_usage_totals_cover_every_process_of_the_run(tmp_path, slow_model):
    task = make_task(6)
    bindings = {"candidate": binding(slow_model)}
    folder, partial = await start_run(task, bindings, options(tmp_path, limit=2))
    assert partial.roles["candidate"]["prompt_tokens"] == 14
    results = await resume_run(folder, task, options(tmp_path, limit=6))
    per_sample = sum(r.usage["candidate"].prompt_tokens for r in folder.iter_records())
    assert per_sample == 6 * 7 == results.roles["candidate"]["prompt_tokens"]
    assert results.roles["candidate"]["completion_tokens"] == 6 * 3
    assert results.roles["candidate"]["requests"] == 6 and results.roles["candidate"]["sessions"] == 2


async def test_a_server_echoing_the_key_leaves_it_in_no_file(tmp_path, monkeypatch):
    secret = "sk-echoed-back-by-the-server-9f8e7d"
    monkeypatch.setenv("PROSEVAL_API_KEY", secret)
    async with FakeOpenAIServer(behaviour=lambda i, body: Reply("echo_headers", 400)) as server:
        folder, results = await start_run(
            make_task(2),
            {"candidate": binding("openai-compatible/fake", base_urls=[server.base_url])},
            options(tmp_path),
        )
    assert results.counts.failed == 2
    assert all("headers were" in r.error and "[redacted]" in r.error for r in folder.iter_records())
    for file in folder.path.iterdir():
        assert secret not in file.read_text(), file.name


def test_credentials_in_an_endpoint_url_are_not_stored(tmp_path):
    from proseval.runtime.provenance import build_header

    url = "https://user:hunter22pass@gpu1.example:8000/v1?api_key=qwerty123456"
    header = build_header(
        make_task(1),
        {"candidate": binding("openai-compatible/x", base_urls=[url])},
        options(tmp_path),
        "r",
        demo=False,
        n_samples=1,
    )
    stored = header.model_dump_json()
    assert "hunter22pass" not in stored and "qwerty123456" not in stored
    assert header.roles["candidate"].base_urls == ["https://gpu1.example:8000/v1?api_key=[redacted]"]


def test_scrubbing_patterns():
    env = {"MY_SERVICE_TOKEN": "tok-1234567890abcdef", "HOME": "/root"}
    text = "Authorization: Bearer abc.def.ghi123 and tok-1234567890abcdef and sk-proj-ABCDEFGH12345 and /root"
    cleaned = scrub(text, env)
    assert "abc.def.ghi123" not in cleaned and "tok-1234567890abcdef" not in cleaned
    assert "sk-proj-ABCDEFGH12345" not in cleaned and cleaned.endswith("/root")
    assert scrub_url("https://u:p4ssw0rd@host:8000/v1?key=s3cr3t&x=1") == "https://host:8000/v1?key=[redacted]&x=1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--limit", "0"], "--limit must be at least 1"),
        (["--limit", "-5"], "--limit must be at least 1"),
        (["--epochs", "0"], "--epochs must be at least 1"),
        (["-c", "-4"], "--concurrency must be at least 1"),
        (["--base-url", "notaurl"], "is not an http(s) URL"),
        (["-r", "grader=scripted/echo"], "this task has no role(s) grader"),
        (["--role-concurrency", "judge=0"], "--role-concurrency judge must be at least 1"),
    ],
)
def test_bad_options_are_rejected_before_any_request(tmp_path, args, message):
    result = cli.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "scripted/error",
            "-r",
            "judge=scripted/echo",
            "--out",
            str(tmp_path),
            "--display",
            "none",
            *args,
        ],
    )
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert result.output.strip().count("\n") == 0, "one line"
    assert not list(tmp_path.iterdir()), "no run folder was created"


def test_a_scored_value_is_never_confused_with_unscored():
    assert Score(value=0.0).scored and not Score.unscored("error", "x").scored


# --- model failures: counted apart, scored by the task's declared rule ---------------------------


async def test_empty_and_truncated_answers_are_model_failures_counted_apart(tmp_path):
    replies = {
        "Write about topic 0.": Completion(text=""),
        "Write about topic 1.": Completion(text="cut off mid", finish_reason="length"),
        "Write about topic 2.": Completion(text="refused", finish_reason="content_filter"),
    }
    register_script("mixed", lambda messages: replies.get(messages[-1]["content"], "a fine answer"))
    try:
        folder, results = await start_run(make_task(4), {"candidate": binding("scripted/mixed")}, options(tmp_path))
    finally:
        unregister_script("mixed")
    kinds = {r.id: r.model_failure for r in folder.iter_records()}
    assert kinds == {"s00000": "empty", "s00001": "truncated", "s00002": "refusal", "s00003": None}
    assert results.counts.model_failures == {"empty": 1, "refusal": 1, "truncated": 1}
    assert results.counts.ok == 4 and results.counts.failed == 0  # scored by the task, not dropped


async def test_a_prompt_the_candidate_cannot_fit_is_a_model_failure_not_retried(tmp_path):
    too_long = "This model's maximum context length is 8192 tokens; your messages resulted in 9000 tokens"
    async with FakeOpenAIServer(behaviour=lambda i, body: Reply("status", 400, text=too_long)) as server:
        task = make_task(2)
        candidate = {"candidate": binding("openai-compatible/fake", base_urls=[server.base_url])}
        folder, results = await start_run(task, candidate, options(tmp_path))
        assert results.counts.model_failures == {"context_overflow": 2} and results.counts.failed == 2
        assert all(r.error.startswith("the prompt is longer than the model's context: ") for r in folder.iter_records())
        retried = await resume_run(folder, task, options(tmp_path, retry_failed=True))
        assert len(server.requests) == 2  # a context overflow is not retried: it would fail again
    assert retried.counts.model_failures == {"context_overflow": 2}


def test_context_overflow_messages_are_recognised():
    from proseval.models.base import is_context_overflow

    assert is_context_overflow("Requested tokens (1031) exceed context window of 512")
    assert is_context_overflow("prompt is too long: 210000 tokens > 200000 maximum")
    assert not is_context_overflow("invalid model name")


def test_the_demo_scores_an_empty_answer_as_its_lowest_quality(tmp_path):
    result = cli.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "scripted/empty",
            "-r",
            "judge=scripted/echo",
            "--out",
            str(tmp_path),
            "--display",
            "none",
            "--limit",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads(next(tmp_path.glob("demo-*/results.json")).read_text())
    assert results["metrics"]["quality"]["mean"] == 1.0 and results["metrics"]["quality"]["n_unscored"] == 0
    assert results["counts"]["model_failures"] == {"empty": 2}
    assert "model failures: empty 2" in " ".join(result.output.split())


def test_another_task_cannot_continue_a_run_even_forced(tmp_path):
    base = ["--out", str(tmp_path), "--display", "none", "--limit", "2"]
    first = cli.invoke(app, ["run", "demo", "-m", "scripted/echo", "-r", "judge=scripted/echo", *base])
    assert first.exit_code == 0, first.output
    run_dir = next(tmp_path.glob("demo-*"))
    records = (run_dir / "samples.jsonl").read_bytes()
    refused = cli.invoke(
        app,
        [
            "run",
            "longweave",
            "-m",
            "scripted/echo",
            "-r",
            "judge=scripted/echo",
            "-T",
            "per_cell=1",
            "--resume",
            str(run_dir),
            "--force",
            "--display",
            "none",
        ],
    )
    assert refused.exit_code == 2, refused.output
    said = " ".join(refused.output.split())
    assert "holds a demo run; a longweave run cannot continue it" in said and "a bug" not in said
    assert (run_dir / "samples.jsonl").read_bytes() == records
    again = cli.invoke(app, ["run", "--resume", str(run_dir), "--display", "none"])
    assert again.exit_code == 0, again.output


def test_a_full_disk_names_the_file_and_says_what_to_do(tmp_path, monkeypatch):
    import errno
    import os as real_os

    from proseval.runtime import runlog

    class FullDisk:
        """The run folder's writes fail as on a full disk (a write to a descriptor names no file)."""

        def __getattr__(self, name):
            return getattr(real_os, name)

        @staticmethod
        def write(fd, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(runlog, "os", FullDisk())
    result = cli.invoke(
        app,
        [
            "run",
            "demo",
            "-m",
            "scripted/echo",
            "-r",
            "judge=scripted/echo",
            "-n",
            "1",
            "--run-dir",
            str(tmp_path / "run"),
            "--display",
            "none",
            "--no-cache",
        ],
    )
    said = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert f"{tmp_path / 'run' / 'samples.jsonl'}: No space left on device — free space on that disk" in said
    assert "proseval resume RUN" in said and "a bug" not in said

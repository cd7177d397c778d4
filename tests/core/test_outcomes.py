"""What a run tells its user when samples fail: the outcome in `results.json`, the summary's
reasons and retry command, exit status 4, `--retry-failed` completing the run, a set member
with failed samples marked `partial` and left out of the ranking, and the report saying so."""

from __future__ import annotations

import json
import socket
from io import StringIO
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.commandline.console import LOG_WIDTH, LogFriendlyConsole
from proseval.core.score import Score
from proseval.runtime.aggregate import Accumulator
from proseval.runtime.outcome import EXIT_FAILED_SAMPLES, count_reasons, reasons_text
from proseval.runtime.records import ScoredSample
from proseval.testing.fake_openai import FakeOpenAIServer

runner = CliRunner()


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("proseval.runtime.provenance.git_commit", lambda: None)
    (tmp_path / "once.yaml").write_text("max_attempts: 1\n", encoding="utf-8")  # no retries: a quick failure
    return tmp_path


def dead_url() -> str:
    """An address with nothing listening: every request is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def run_cli(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def only_run(out: Path) -> Path:
    folders = [p for p in out.iterdir() if (p / "header.json").exists()]
    assert len(folders) == 1, folders
    return folders[0]


def test_a_run_whose_candidate_endpoint_is_down_exits_4_naming_the_reason_and_the_retry(work):
    out = work / "out"
    # --no-probe: the endpoint is down while the run is under way (the probe would stop it at the start)
    result = run_cli(
        "run",
        "demo",
        "-m",
        "openai-compatible/a",
        "--base-url",
        dead_url(),
        "-r",
        "judge=scripted/echo",
        "-n",
        "2",
        "--display",
        "none",
        "--config",
        "once.yaml",
        "-o",
        str(out),
        "--no-probe",
    )
    assert result.exit_code == EXIT_FAILED_SAMPLES, result.output
    folder = only_run(out)
    assert "(complete with FAILED samples)" in result.output
    failed_line = next(line for line in result.output.splitlines() if line.startswith("failed: "))
    assert failed_line.startswith("failed: 2 of 2 samples — ")
    assert "(2)" in failed_line and ("refused" in failed_line.lower() or "connect" in failed_line.lower())
    assert f"proseval resume {folder} --retry-failed" in " ".join(result.output.split())
    results = json.loads((folder / "results.json").read_text())
    assert results["outcome"] == "failed_samples"
    assert sum(results["counts"]["failure_reasons"].values()) == 2


def test_retry_failed_against_a_working_endpoint_completes_the_run_and_exits_0(work):
    out = work / "out"
    dead = dead_url()
    run_cli(
        "run",
        "demo",
        "-m",
        "openai-compatible/a",
        "--base-url",
        dead,
        "-r",
        "judge=scripted/echo",
        "-n",
        "2",
        "--display",
        "none",
        "--config",
        "once.yaml",
        "-o",
        str(out),
        "--no-probe",
    )
    folder = only_run(out)
    header = json.loads((folder / "header.json").read_text())
    server = FakeOpenAIServer(port=int(dead.rsplit(":", 1)[1].split("/")[0])).start_in_thread()
    try:
        again = run_cli("resume", str(folder), "--retry-failed", "--display", "none")
    finally:
        server.stop_thread()
    assert again.exit_code == 0, again.output
    assert "(complete)" in again.output and "failed: " not in again.output
    results = json.loads((folder / "results.json").read_text())
    assert results["outcome"] == "complete" and results["counts"]["failed"] == 0
    assert json.loads((folder / "header.json").read_text())["run_id"] == header["run_id"]


def test_a_judge_whose_endpoint_is_down_makes_failed_scores_that_retry_failed_runs_again(work):
    out = work / "out"
    result = run_cli(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=openai-compatible/j",
        "--role-base-url",
        f"judge={dead_url()}",
        "-n",
        "3",
        "--display",
        "none",
        "--config",
        "once.yaml",
        "-o",
        str(out),
        "--no-probe",
    )
    assert result.exit_code == EXIT_FAILED_SAMPLES, result.output
    folder = only_run(out)
    results = json.loads((folder / "results.json").read_text())
    assert results["counts"]["failed"] == 0 and results["counts"]["scoring_failed"] == 3
    assert results["outcome"] == "failed_samples"
    assert all(reason.startswith("quality: ") for reason in results["counts"]["failure_reasons"])
    assert "failed: 3 of 3 samples — quality: " in " ".join(result.output.split())


def test_a_complete_run_exits_0_and_says_complete(work):
    result = run_cli(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=scripted/echo",
        "-n",
        "2",
        "--display",
        "none",
        "-o",
        str(work / "out"),
    )
    assert result.exit_code == 0, result.output
    assert "finished (complete);" in result.output and "failed: " not in result.output
    assert json.loads((only_run(work / "out") / "results.json").read_text())["outcome"] == "complete"


def test_a_file_that_is_not_gguf_is_refused_before_the_run_folder_is_made(work):
    (work / "model.gguf").write_text("hello\n", encoding="utf-8")
    result = run_cli(
        "run",
        "demo",
        "-m",
        "local/model.gguf",
        "-r",
        "judge=scripted/echo",
        "--display",
        "none",
        "-o",
        str(work / "out"),
    )
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: local model file ") and "not a GGUF model" in lines[0]
    assert not (work / "out").exists()


def sample(sample_id: str, status: str = "ok", error: str | None = None, **scores: Score) -> ScoredSample:
    return ScoredSample(id=sample_id, status=status, error=error, scores=scores)  # type: ignore[arg-type]  # the status as a plain string


def test_counts_name_partly_scored_samples_and_count_reasons_per_sample():
    records = Accumulator()
    records.add(sample("a", score=Score(value=5.0, parse_status="partial")))  # some criteria unscored
    records.add(sample("b", score=Score(value=5.0)))
    records.add(sample("c", status="error", error="RetryableError: refused\nmore detail"))
    records.add(sample("d", status="error", error="RetryableError: refused"))
    records.add(sample("e", score=Score.unscored("error", "RetryableError: timed out")))
    counts = records.counts(5)
    assert counts.unscored == 2  # the partial score and the failed one
    assert counts.failed == 2 and counts.scoring_failed == 1
    assert counts.failure_reasons == {"RetryableError: refused": 2, "score: RetryableError: timed out": 1}


def test_reasons_text_names_the_most_common_and_counts_the_rest():
    reasons = count_reasons(["x"] * 5 + ["y"] * 3 + ["z"] * 2 + ["w"])
    assert list(reasons) == ["x", "y", "z", "w"]
    assert reasons_text(reasons) == "x (5); y (3); z (2); 1 other reason (1)"
    assert count_reasons([None, "  "]) == {"no reason recorded": 2}


def test_tables_keep_every_column_when_the_output_is_not_a_terminal(monkeypatch):
    from rich.table import Table

    monkeypatch.delenv("COLUMNS", raising=False)
    table = Table()
    names = [f"column-{i:02d}" for i in range(16)]  # about 200 characters wide
    for name in names:
        table.add_column(name)
    table.add_row(*("1.234" for _ in names))
    captured = LogFriendlyConsole(file=StringIO())
    captured.print(table)
    assert all(name in captured.file.getvalue() for name in names)
    assert captured.width == LOG_WIDTH
    narrow = LogFriendlyConsole(file=StringIO(), width=80)  # what rich assumes elsewhere
    narrow.print(table)
    assert not all(name in narrow.file.getvalue() for name in names)


def test_a_long_line_to_a_log_stays_whole_and_a_terminal_wraps_it():
    """A command to copy from a log or a file (`proseval resume` with a long folder) is never broken."""
    command = "proseval resume " + "/very/long/folder" * 30 + " --max-cost 2.7"
    logged = LogFriendlyConsole(file=StringIO())
    logged.print(f"[bold yellow]stopped at the cost limit:[/] left to a resume: {command}", highlight=False)
    assert logged.file.getvalue().count("\n") == 1 and command in logged.file.getvalue()
    terminal = LogFriendlyConsole(file=StringIO(), force_terminal=True, width=80, color_system=None)
    terminal.print(f"left to a resume: {command}", highlight=False)
    assert terminal.file.getvalue().count("\n") > 1


def test_a_set_member_whose_endpoint_is_down_is_partial_not_ranked_and_the_set_exits_4(work):
    (work / "set.yaml").write_text(
        f"""\
folder: out
max_attempts: 1
report: true
models:
  - scripted/echo
  - {{spec: openai-compatible/dead, name: dead, base_url: "{dead_url()}"}}
tasks:
  - task: demo
    limit: 2
roles: {{judge: scripted/echo}}
""",
        encoding="utf-8",
    )
    result = run_cli("run-set", "set.yaml", "--display", "none", "--no-probe")
    assert result.exit_code == EXIT_FAILED_SAMPLES, result.output
    text = " ".join(result.output.split())
    assert "partial" in text and "2 of 2 samples failed" in text and "not ranked" in text
    assert "run-set set.yaml --retry-failed" in text
    summary = json.loads((work / "out" / "set.json").read_text())
    assert summary["partial"] == ["demo--dead"] and summary["failed"] == []
    dead = next(m for m in summary["members"] if m["member"] == "demo--dead")
    assert dead["state"] == "partial" and dead["outcome"] == "failed_samples"
    assert "2 of 2 samples failed" in dead["reason"] and dead["samples"]["failure_reasons"]
    ranking = summary["rankings"][0]
    assert ranking["ranked"] == ["demo--scripted-echo"] and ranking["unranked"] == ["demo--dead"]
    report = (work / "out" / "report.html").read_text(encoding="utf-8")
    assert "not ranked" in report and "2 of 2 samples failed" in report

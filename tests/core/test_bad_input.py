"""Bad input to the command line: one `error:` line saying what to fix, exit status 2 for a usage
error and 1 otherwise, no traceback, and nothing written (no run folder, no header.json)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from support.core import refusal_line

runner = CliRunner()
SCRIPTED = ["-m", "scripted/echo", "-r", "judge=scripted/echo", "--display", "none"]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder of its own (no `.env` from elsewhere is read); runs go to `out/`."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def files_under(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*")) if folder.exists() else []


def refused(args: list[str], out: Path, code: int) -> str:
    """Invoke the command line; check it refused cleanly and left `out` empty; its error line."""
    line = refusal_line(runner.invoke(app, args), code)
    assert files_under(out) == [], files_under(out)
    return line


def config_file(folder: Path, content: str | bytes, name: str = "eval.yaml") -> Path:
    path = folder / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["-T", "foo"], 2, "error: -T 'foo' must look like NAME=VALUE"),
        (["extra"], 2, "error: unexpected argument 'extra'; task options look like --name value"),
        (["--limit", "0"], 2, "error: --limit must be at least 1 (got 0)"),
        (["--epochs", "0"], 2, "error: --epochs must be at least 1 (got 0)"),
        (["-c", "0"], 2, "error: --concurrency must be at least 1 (got 0)"),
        (["-r", "grader=scripted/echo"], 2, "error: this task has no role(s) grader; its roles: candidate, judge"),
        (
            ["-g", "candidate.max_tokens=abc"],
            2,
            "error: generation settings for candidate (-g candidate.PARAM=VALUE): "
            "max_tokens: Input should be a valid integer",
        ),
        (
            ["-g", "candidate.temprature=1"],
            2,
            "error: generation settings for candidate (-g candidate.PARAM=VALUE): temprature: unknown field",
        ),
        (["-g", "max_tokens"], 2, "error: --gen 'max_tokens' must look like NAME=VALUE"),
        (["--role-concurrency", "judge=many"], 2, "error: --role-concurrency judge=many: N must be a whole number"),
        (["--display", "fancy"], 2, "error: --display must be rich, plain or none (got 'fancy')"),
        (["--prompt", "judge=missing.txt"], 2, "error: --prompt judge=missing.txt: no such file"),
        (
            ["-r", "judge=scripted/empty"],
            2,
            "error: --role judge is given twice (--role judge=scripted/echo, --role "
            "judge=scripted/empty): give it once",
        ),
        (
            ["-g", "judge.temperature=0", "-g", "judge.temperature=1"],
            2,
            "error: --gen judge.temperature is given twice",
        ),
        (
            ["--run-dir", "elsewhere"],
            2,
            "error: give --out (the folder that holds run folders) or --run-dir (the exact run folder), not both",
        ),
    ],
)
def test_bad_run_options(work, args, code, message):
    line = refused(["run", "demo", *SCRIPTED, "--out", str(work / "out"), *args], work / "out", code)
    assert line.startswith(message), line


def test_a_task_option_given_as_flag_and_as_dash_t_with_two_values_is_refused(work):
    line = refused(
        ["run", "longweave", *SCRIPTED, "--out", str(work / "out"), "-T", "per_cell=3", "--per-cell", "2"],
        work / "out",
        2,
    )
    assert line == "error: per_cell is given twice (-T per_cell=3, --per-cell 2): give it once"


def test_unknown_task(work):
    line = refused(["run", "nosuchtask", *SCRIPTED, "--out", str(work / "out")], work / "out", 2)
    assert line.startswith("error: unknown task 'nosuchtask'; available: ") and "demo" in line


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("task: demo\nepochs: two\n", ":2: epochs: input should be a valid integer (got 'two')"),
        ('task: demo\nlimit: "abc"\n', ":2: limit: input should be a valid integer (got 'abc')"),
        ("task: demo\nlimit: 0\n", ":2: limit: input should be greater than or equal to 1 (got 0)"),
        ("task: demo\nconcurrency: -3\n", ":2: concurrency: input should be greater than or equal to 1 (got -3)"),
        ("task: demo\ndisplay: fancy\n", ":2: display: input should be 'rich', 'plain' or 'none' (got 'fancy')"),
        ("task: demo\nno_cache: maybe\n", ":2: no_cache: input should be a valid boolean (got 'maybe')"),
        ("task: demo\nmodle: scripted/echo\n", ":2: unknown key modle (did you mean model?); known keys: base_url,"),
        ("- task: demo\n- limit: 2\n", ":1: expected a mapping of keys to values, got a list"),
        ("task: demo\nlimit: 1\nlimit: 2\n", ":3: limit: given twice (also on line 2)"),
        (
            "task: demo\ngen:\n  judge:\n    temperature: hot\n",
            ":4: gen.judge.temperature: input should be a valid number, unable to parse string as a number (got 'hot')",
        ),
        ("task: demo\ngen: [judge.temperature]\n", ":2: gen: item 'judge.temperature' must look like NAME=VALUE"),
        (
            "task: demo\nrole_concurrency: {judge: 0}\n",
            ":2: role_concurrency.judge: input should be greater than or equal to 1 (got 0)",
        ),
        ("task: demo\nmodel: [unclosed\n", ":3:1: invalid YAML: expected ',' or ']', but got '<stream end>'"),
        (b"task: demo\nmodel: \xff\xfe\n", ":2: not UTF-8 text (byte 0xff); save the file as UTF-8"),
    ],
)
def test_bad_config_file_names_file_line_and_key(work, content, message):
    config = config_file(work, content)
    line = refused(["run", "--config", str(config), *SCRIPTED, "--out", str(work / "out")], work / "out", 2)
    assert line == f"error: {config}{message}" or line.startswith(f"error: {config}{message}"), line


def test_config_file_lists_every_problem_in_line_order(work):
    config = config_file(work, "limit: 0\ntask: demo\nepochs: two\nseed: 1.5\n")
    line = refused(["run", "--config", str(config), *SCRIPTED, "--out", str(work / "out")], work / "out", 2)
    assert line == (
        f"error: {config}:1: limit: input should be greater than or equal to 1 (got 0); "
        f"{config}:3: epochs: input should be a valid integer (got 'two'); "
        f"{config}:4: seed: input should be a valid integer (got 1.5)"
    )


def test_missing_config_file(work):
    line = refused(["run", "demo", "--config", "nope.yaml", *SCRIPTED, "--out", str(work / "out")], work / "out", 2)
    assert line == "error: nope.yaml: cannot read (No such file or directory)"


def test_writingbench_data_without_requirement_folder(work):
    from writingbench.wb_fixtures import tiny_files

    data = work / "wb"
    data.mkdir()
    (data / "benchmark_all.jsonl").write_bytes(tiny_files()["benchmark_all.jsonl"])
    line = refused(
        ["run", "writingbench", "--data-dir", str(data), *SCRIPTED, "--out", str(work / "out")], work / "out", 1
    )
    assert line.startswith(f"error: missing WritingBench files under {data}/: requirement/style/style_subset.jsonl, ")
    assert "proseval writingbench download fetches them" in line


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "PROSEVAL_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_missing_key_is_refused_before_the_run_folder_is_made(work, no_keys):
    line = refused(
        [
            "run",
            "demo",
            "--model",
            "openai/gpt-4o-mini",
            "--role",
            "judge=openai/gpt-4o",
            "--display",
            "none",
            "--out",
            str(work / "out"),
        ],
        work / "out",
        1,
    )
    assert line == "error: OPENAI_API_KEY is not set: export it, or add it to a .env file in the current folder"
    assert not (work / "out").exists()


def finished_run(out: Path) -> Path:
    result = runner.invoke(app, ["run", "demo", *SCRIPTED, "-n", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    (run_dir,) = out.iterdir()
    return run_dir


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in files_under(folder) if p.is_file()}


def test_missing_key_on_resume_and_rescore_changes_nothing(work, no_keys):
    run_dir = finished_run(work / "runs")
    before = snapshot(work / "runs")
    resumed = runner.invoke(
        app,
        [
            "run",
            "demo",
            "--resume",
            str(run_dir),
            "--force",
            "-m",
            "openai/gpt-4o-mini",
            "-r",
            "judge=scripted/echo",
            "--display",
            "none",
        ],
    )
    rescored = runner.invoke(app, ["score", str(run_dir), "-r", "judge=openai/gpt-4o", "--display", "none"])
    for result in (resumed, rescored):
        assert result.exit_code == 1 and "error: OPENAI_API_KEY is not set" in result.output, result.output
        assert "Traceback" not in result.output
    assert snapshot(work / "runs") == before  # no resume event, no lock file rewritten, no re-score folder


@pytest.mark.parametrize("command", [["run", "demo", "--resume"], ["resume"], ["score"], ["show"]])
def test_a_folder_that_is_not_a_run(work, command):
    missing = work / "out" / "nope"
    line = refused(
        [*command, str(missing), *(["-r", "judge=scripted/echo"] if command == ["score"] else [])], work / "out", 2
    )
    assert line == f"error: {missing} is not a run folder (no header.json)"


def test_a_refused_resume_leaves_the_run_as_it_was(work):
    run_dir = finished_run(work / "runs")
    before = snapshot(work / "runs")
    result = runner.invoke(
        app,
        [
            "run",
            "demo",
            "--resume",
            str(run_dir),
            "-m",
            "scripted/empty",
            "-r",
            "judge=scripted/echo",
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 2 and "pass --force to continue with the new one" in result.output
    assert snapshot(work / "runs") == before


def test_a_new_run_into_an_existing_run_folder_is_refused(work):
    run_dir = finished_run(work / "runs")
    header = (run_dir / "header.json").read_bytes()
    result = runner.invoke(app, ["run", "demo", *SCRIPTED, "--run-dir", str(run_dir)])
    assert result.exit_code == 2 and f"error: {run_dir} already holds a run; use: proseval resume" in result.output
    assert (run_dir / "header.json").read_bytes() == header


def boom(*args, **kwargs):
    raise RuntimeError("boom")


def test_an_unexpected_error_during_a_run_names_the_run_folders_log(work, monkeypatch):
    monkeypatch.setattr("proseval.runtime.runner.aggregate_run", boom)
    result = runner.invoke(app, ["run", "demo", *SCRIPTED, "-n", "1", "--out", str(work / "out")])
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1
    assert "Traceback" not in result.output
    (run_dir,) = (work / "out").iterdir()
    log = run_dir / "error.log"
    assert (
        f"error: a bug in proseval: boom — please report it; its traceback is in {log} (--debug prints it here)"
    ) in result.output
    assert "RuntimeError" not in result.output  # the project's words; the class is in the log
    text = log.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and "RuntimeError: boom" in text and "in boom" in text


def test_a_bug_in_a_tasks_protocol_or_scorer_is_recorded_in_the_projects_words(work, monkeypatch):
    """The sample fails (protocol) or its score is unscored (scorer), the record says it is a bug and
    where its traceback went: no exception class, no Python type."""

    def broken_scorer(sample, state, ctx):
        raise ValueError("odd answer")

    async def broken_protocol(sample, ctx):
        raise KeyError("missing key")

    from proseval.runtime.loop import run_async
    from proseval.runtime.options import RunOptions
    from proseval.runtime.runner import start_run
    from support.core import binding, make_task

    task = make_task(2)
    task.scorers = [broken_scorer]
    folder, _ = run_async(
        start_run(
            task,
            {"candidate": binding("scripted/echo")},
            RunOptions(out_dir=work / "a", display="none", use_cache=False),
        )
    )
    (first, *_) = folder.iter_records()
    (score,) = first.scores.values()
    assert score.explanation.startswith("a bug in scorer broken_scorer: odd answer (its traceback is in ")
    assert "ValueError" not in score.explanation and (folder.path / "error.log").is_file()
    task = make_task(2)
    task.protocol = broken_protocol
    folder, _ = run_async(
        start_run(
            task,
            {"candidate": binding("scripted/echo")},
            RunOptions(out_dir=work / "b", display="none", use_cache=False),
        )
    )
    (first, *_) = folder.iter_records()
    assert first.error.startswith("a bug in the unit task: 'missing key' (its traceback is in ")
    assert "KeyError" not in first.error and "KeyError: 'missing key'" in (folder.path / "error.log").read_text()


def test_an_unexpected_error_before_a_run_folder_goes_to_the_cache_folder(work, monkeypatch, isolated_cache):
    monkeypatch.setattr("proseval.cli.run.load_run_config", boom)
    line = refused(["run", "demo", *SCRIPTED, "--out", str(work / "out")], work / "out", 1)
    prefix = "error: a bug in proseval: boom — please report it; its traceback is in "
    assert line.startswith(prefix) and line.endswith(" (--debug prints it here)"), line
    log = Path(line.removeprefix(prefix).removesuffix(" (--debug prints it here)"))
    assert log.parent == isolated_cache / "errors" and "RuntimeError: boom" in log.read_text(encoding="utf-8")


@pytest.mark.parametrize("before", [True, False])
def test_debug_prints_the_traceback(work, monkeypatch, before):
    monkeypatch.setattr("proseval.cli.run.load_run_config", boom)
    args = ["run", "demo", *SCRIPTED, "--out", str(work / "out")]
    result = runner.invoke(app, ["--debug", *args] if before else [*args, "--debug"])
    assert result.exit_code == 1
    assert "Traceback (most recent call last)" in result.output and "RuntimeError: boom" in result.output
    assert "error: a bug in proseval: boom" in result.output and "--debug prints it" not in result.output


def test_the_debug_variable_prints_the_traceback_of_a_user_error_too(work, monkeypatch):
    monkeypatch.setenv("PROSEVAL_DEBUG", "1")
    result = runner.invoke(app, ["run", "demo", *SCRIPTED, "-T", "foo", "--out", str(work / "out")])
    assert result.exit_code == 2
    assert "Traceback (most recent call last)" in result.output and "RoleError" in result.output
    assert "error: -T 'foo' must look like NAME=VALUE" in result.output


def test_a_missing_file_from_a_loader_is_a_user_error(work, monkeypatch):
    def missing(*args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory", "/data/items.jsonl")

    monkeypatch.setattr("proseval.cli.run.load_run_config", missing)
    line = refused(["run", "demo", *SCRIPTED, "--out", str(work / "out")], work / "out", 1)
    assert line == "error: /data/items.jsonl: No such file or directory"


def test_the_installed_command_has_the_boundary(work):
    """The real entry point (not the test runner): stderr holds the one line, and no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "proseval", "run", "demo", *SCRIPTED, "-T", "foo"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=work,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == "error: -T 'foo' must look like NAME=VALUE" and done.stdout == ""
    assert files_under(work) == []

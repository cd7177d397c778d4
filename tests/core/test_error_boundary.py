"""The error boundary's edges: an output path that cannot be written, a `.env` that is not UTF-8, a
cache folder that cannot be used, click's usage errors, a damaged run folder, a busy port. Each
ends as one `error:` line on stderr, with no traceback, and leaves nothing behind."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app

runner = CliRunner()
SCRIPTED = ["-m", "scripted/echo", "-r", "judge=scripted/empty", "--display", "none"]
UNWRITABLE = Path("/sys/proseval-test")  # no one may make a file or folder here, not even root
LINUX = pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's /sys")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder of its own (no `.env` from elsewhere is read)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def error_line(stderr: str, everything: str) -> str:
    """The one line of `stderr`, checked to be an `error:` line, with no traceback anywhere."""
    assert "Traceback" not in everything and "bug in proseval" not in everything, everything
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


def refused(args: list[str], code: int) -> str:
    """Invoke the command line in this process; check the refusal; its error line."""
    result = runner.invoke(app, args, prog_name="proseval")
    assert result.exit_code == code, result.output
    return error_line(result.stderr, result.output)


def finished_run(work: Path) -> Path:
    result = runner.invoke(app, ["run", "demo", *SCRIPTED, "-n", "1", "--out", str(work / "runs")])
    assert result.exit_code == 0, result.output
    (run_dir,) = (work / "runs").iterdir()
    return run_dir


def proseval(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed command line in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "proseval", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "demo", *SCRIPTED, "--out", "{file}"], "error: {file}/demo-*: {file} is a file, not a folder"),
        (["run", "demo", *SCRIPTED, "--run-dir", "{file}"], "error: {file}: is a file, not a folder"),
        pytest.param(["run", "demo", *SCRIPTED, "--out", f"{UNWRITABLE}"], f"error: {UNWRITABLE}: *", marks=LINUX),
        pytest.param(
            ["export", "{run}", "-f", "csv", "-o", f"{UNWRITABLE}.csv"], f"error: {UNWRITABLE}.csv: *", marks=LINUX
        ),
        (["report", "{run}", "-o", "{folder}"], "error: {folder}: is a folder, not a file"),
        (["agreement", "{run}", "-o", "{file}"], "error: {file}: is a file, not a folder"),
    ],
)
def test_an_output_path_that_cannot_be_written(work, args, message):
    paths = {"file": work / "a-file", "folder": work / "a-folder"}
    paths["file"].write_text("mine\n", encoding="utf-8")
    paths["folder"].mkdir()
    if "{run}" in args:
        paths["run"] = finished_run(work)
    before = snapshot(work)
    line = refused([arg.format(**paths) for arg in args], 1)
    assert fnmatch(line, message.format(**paths)), line
    assert snapshot(work) == before and not UNWRITABLE.exists()  # no run folder, no file written


def test_a_dotenv_file_that_is_not_utf8_is_refused_by_every_command_that_reads_it(work):
    (work / ".env").write_bytes(b"PROSEVAL_X=1\nOPENAI_API_KEY=caf\xe9\n")
    before = snapshot(work)
    expected = f"error: {work / '.env'}:2: not UTF-8 text (byte 0xe9 at column 19); save the file as UTF-8"
    done = proseval(["run", "demo", *SCRIPTED, "--out", "runs"], work)
    assert done.returncode == 1 and error_line(done.stderr, done.stdout + done.stderr) == expected
    for args in (["resume", "runs/x"], ["score", "runs/x", "-r", "judge=scripted/echo"], ["run-set", "set.yaml"]):
        assert refused(args, 1) == expected, args
    assert snapshot(work) == before


def test_a_cache_folder_that_cannot_be_used_refuses_the_run_before_anything_is_sent(work, monkeypatch):
    blocked = work / "a-file"
    blocked.write_text("mine\n", encoding="utf-8")
    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(blocked))
    line = refused(["run", "demo", *SCRIPTED, "--out", str(work / "runs")], 1)
    assert line == (
        f"error: cannot use the response cache: {blocked}: is a file, not a folder (set "
        "PROSEVAL_CACHE_DIR to a folder you can write, or run with --no-cache)"
    )
    assert not (work / "runs").exists()
    result = runner.invoke(app, ["run", "demo", *SCRIPTED, "-n", "1", "--out", str(work / "runs"), "--no-cache"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["run", "demo", "--limit", "abc"],
            "error: --limit 'abc': input should be a valid integer, unable to parse "
            "string as an integer (see: proseval run --help)",
        ),
        (
            ["run", "demo", "--max-cost", "abc"],
            "error: --max-cost 'abc': input should be a valid number, unable to "
            "parse string as a number (see: proseval run --help)",
        ),
        (["export"], "error: proseval export needs RUN_DIR: run folder (see: proseval export --help)"),
        (
            ["compare", "a"],
            "error: proseval compare needs RUN_B: run folder compared with it (B) (see: proseval compare --help)",
        ),
        (["nosuchcommand"], "error: no such command 'nosuchcommand' (see: proseval --help)"),
        (["show", "x", "--bogus"], "error: no such option: --bogus (see: proseval show --help)"),
        (["--bogus"], "error: no such option: --bogus (see: proseval --help)"),
    ],
)
def test_usage_errors_of_the_command_line_are_one_line(work, args, message):
    result = runner.invoke(app, args, prog_name="proseval")
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert error_line(result.stderr, result.output) == message
    assert list(work.iterdir()) == []


def test_a_bad_value_from_the_environment_names_the_variable(work, monkeypatch):
    monkeypatch.setenv("PROSEVAL_DEBUG", "maybe")
    result = runner.invoke(app, ["list"], prog_name="proseval")
    assert result.exit_code == 2
    assert error_line(result.stderr, result.output).startswith(
        "error: PROSEVAL_DEBUG (the environment's --debug) 'maybe': input should be a valid boolean"
    )


def test_help_is_still_the_full_page(work):
    result = runner.invoke(app, ["run", "--help"], prog_name="proseval")
    assert result.exit_code == 0 and "Usage: proseval run [OPTIONS]" in result.stdout and "--limit" in result.stdout


def truncate(file: Path) -> None:
    file.write_text(file.read_text(encoding="utf-8")[:40], encoding="utf-8")


def retype_seed(file: Path) -> None:
    file.write_text(json.dumps({**json.loads(file.read_text(encoding="utf-8")), "seed": "abc"}), encoding="utf-8")


def append(line: str):
    def damage(file: Path) -> None:
        with file.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    return damage


@pytest.mark.parametrize(
    ("name", "damage", "command", "message"),
    [
        (
            "header.json",
            truncate,
            ["resume", "{run}"],
            "error: {run}/header.json: invalid header: not valid JSON (EOF while parsing * at line * column *)",
        ),
        (
            "header.json",
            retype_seed,
            ["resume", "{run}"],
            "error: {run}/header.json: invalid header: seed: Input should be a valid integer*",
        ),
        (
            "results.json",
            truncate,
            ["show", "{run}"],
            "error: {run}/results.json: invalid results: not valid JSON (EOF while parsing * at line * column *)",
        ),
        (
            "samples.jsonl",
            append('{"id": 5}'),
            ["compare", "{run}", "{run}"],
            "error: {run}/samples.jsonl:2: invalid record: id: Input should be a valid string; status: Field required",
        ),
        (
            "usage.jsonl",
            append('{"roles": {"judge": 5}}'),
            ["resume", "{run}"],
            "error: {run}/usage.jsonl:2: invalid line: roles.judge: Input should be an object",
        ),
    ],
)
def test_a_damaged_run_folder_file_is_named_with_its_line_or_field(work, name, damage, command, message):
    run_dir = finished_run(work)
    damage(run_dir / name)
    before = snapshot(run_dir)
    line = refused([arg.format(run=run_dir) for arg in command], 1)
    assert fnmatch(line, message.format(run=run_dir)), line
    assert snapshot(run_dir) == before


def test_a_busy_port_is_refused_before_the_viewer_says_it_serves(work):
    pytest.importorskip("uvicorn")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = proseval(["view", str(work), "--port", str(port)], work)
    assert done.returncode == 1 and done.stdout == "", done.stdout
    line = error_line(done.stderr, done.stderr)
    assert fnmatch(line, f"error: port {port} on 127.0.0.1 is in use (*); choose another with --port"), line


@pytest.mark.parametrize(
    "group",
    [[], ["cache"], ["generate"], ["writingbench"], ["meeseeks"], ["ravel"], ["c3ebench"], ["revision-distance"]],
)
def test_a_group_without_a_command_prints_its_help(work, group):
    result = runner.invoke(app, group, prog_name="proseval")
    assert "bug in proseval" not in result.output and "error:" not in result.output, result.output
    assert f"Usage: {' '.join(['proseval', *group])} [OPTIONS] COMMAND [ARGS]..." in result.output
    assert result.exit_code == 2  # as click ends a group called without its command


def test_output_to_a_reader_that_went_away_is_not_reported_as_a_bug(monkeypatch):
    """`proseval ... | head`: the pipe closed under a command's output ends it quietly (click's
    status 1), not as an unexpected error."""
    from proseval.cli import tasks

    def closed(*_args, **_kwargs):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(tasks.console, "print", closed)
    result = runner.invoke(app, ["list"], prog_name="proseval")
    assert result.exit_code == 1
    assert "bug in proseval" not in result.output and "unexpected" not in result.output, result.output

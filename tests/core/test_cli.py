"""The command line: listing, running, showing, configuration files and error messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.runtime.schema import render_schemas

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_list_shows_tasks():
    result = invoke("list")
    assert result.exit_code == 0 and "demo" in result.output


def test_describe_shows_choices_and_bracketed_text(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    result = runner.invoke(app, ["describe", "meeseeks"])
    assert result.exit_code == 0, result.output
    assert "reask | chat" in result.output
    assert "list[str] | None" in result.output
    assert "[en, de]" in result.output


def test_a_task_option_named_like_a_run_option_is_described_as_dash_t(monkeypatch):
    """LongWeave's generator `seed`: `--seed` is the run's seed, so describe lists `-T seed=`."""
    monkeypatch.setenv("COLUMNS", "250")
    result = runner.invoke(app, ["describe", "longweave"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "generator seed" in line]
    assert rows and rows[0].split("│")[1].strip() == "-T seed=" and "--seed is run's own option" in rows[0]
    assert "-T seed=0" in result.output  # in the presets' settings too
    assert "│ --per-cell" in result.output  # an option run does not have keeps its --name form


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_package_version(flag):
    from proseval import __version__

    result = runner.invoke(app, [flag])
    assert result.exit_code == 0 and result.output.startswith(f"proseval {__version__} (Python ")


def test_describes_list_of_runs_options_is_runs_own():
    import typer.main

    from proseval.cli.tasks import RUN_OPTIONS

    command = typer.main.get_command(app).commands["run"]
    run = getattr(command, "loaded", command)
    assert RUN_OPTIONS == {o for p in run.params for o in p.opts if o.startswith("--")}


def test_run_show_and_rescore(tmp_path):
    result = invoke(
        "run",
        "demo",
        "--model",
        "scripted/echo",
        "--role",
        "judge=scripted/echo",
        "--out",
        str(tmp_path),
        "--display",
        "none",
        "--limit",
        "3",
    )
    assert result.exit_code == 0, result.output
    assert "quality" in result.output and "By genre" in result.output
    (run_dir,) = tmp_path.iterdir()
    results = json.loads((run_dir / "results.json").read_text())
    assert results["counts"]["finished"] == 3
    assert results["metrics"]["quality"]["n_unscored"] == 3  # an echo is no judgement

    shown = invoke("show", str(run_dir))
    assert shown.exit_code == 0 and "3/3 finished" in shown.output

    rescored = invoke("score", str(run_dir), "--role", "judge=scripted/empty", "--display", "none")
    assert rescored.exit_code == 0, rescored.output
    new_dir = next(p for p in tmp_path.iterdir() if p != run_dir)
    header = json.loads((new_dir / "header.json").read_text())
    assert header["rescored_from"] == str(run_dir) and header["roles"]["judge"]["spec"] == "scripted/empty"


def test_missing_role_is_an_error_before_any_call(tmp_path):
    result = invoke("run", "demo", "--model", "scripted/echo", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert "--role judge=PROVIDER/MODEL" in result.output
    assert not any(tmp_path.iterdir())


def test_judge_equal_to_candidate_warns(tmp_path):
    result = invoke(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=scripted/echo",
        "--out",
        str(tmp_path),
        "--display",
        "none",
        "-n",
        "1",
    )
    assert "self-judging" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "nosuchtask"], "unknown task 'nosuchtask'"),
        (["run", "demo", "-m", "gpt-4"], "must look like provider/model"),
        (["run", "demo", "-m", "acme/x", "-r", "judge=scripted/echo"], "unknown provider 'acme'"),
        (["run", "demo", "-m", "scripted/echo", "-r", "judge"], "must look like NAME=VALUE"),
        (["show", "/nonexistent/run"], "is not a run folder"),
    ],
)
def test_bad_input_gives_a_clear_message(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def test_config_file_mirrors_flags_and_flags_win(tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text(
        "task: demo\nmodel: scripted/echo\nrole:\n  judge: scripted/empty\nlimit: 2\n"
        f"out: {tmp_path / 'runs'}\ndisplay: none\ngen:\n  - candidate.max_tokens=77\n"
    )
    result = invoke("run", "--config", str(config), "--limit", "1")
    assert result.exit_code == 0, result.output
    (run_dir,) = (tmp_path / "runs").iterdir()
    header = json.loads((run_dir / "header.json").read_text())
    assert header["limit"] == 1
    assert header["roles"]["judge"]["spec"] == "scripted/empty"
    assert header["roles"]["candidate"]["config"]["max_tokens"] == 77


def test_config_file_errors_name_file_and_line(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("task: demo\nmodel: [unclosed\n")
    result = invoke("run", "--config", str(config))
    assert result.exit_code == 2 and f"{config}:" in result.output
    config.write_text("task: demo\nmodle: x\n")
    result = invoke("run", "--config", str(config))
    assert result.exit_code == 2 and f"{config}:2: unknown key modle (did you mean model?)" in result.output


def test_resume_refuses_a_changed_configuration(tmp_path):
    invoke(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=scripted/echo",
        "--out",
        str(tmp_path),
        "--display",
        "none",
        "-n",
        "2",
    )
    (run_dir,) = tmp_path.iterdir()
    header_file = run_dir / "header.json"
    header = json.loads(header_file.read_text())
    header["config_hash"] = "0" * 16  # as if it had started under another task definition
    header_file.write_text(json.dumps(header))
    result = invoke("resume", str(run_dir), "--display", "none")
    assert result.exit_code == 2 and "--force" in result.output
    forced = invoke("resume", str(run_dir), "--force", "--display", "none", "-n", "4")
    assert forced.exit_code == 0 and "4/4 finished" in forced.output


def test_exported_schemas_are_up_to_date():
    from proseval.cli.schema import ALL_SCHEMAS

    assert set(render_schemas()) < set(ALL_SCHEMAS)
    for name, text in render_schemas(ALL_SCHEMAS).items():
        exported = ROOT / "docs" / "schema" / name
        assert exported.read_text() == text, f"run: proseval schema (docs/schema/{name} is stale)"


def test_cache_stats_and_clear(tmp_path, isolated_cache):
    invoke(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=scripted/echo",
        "--out",
        str(tmp_path),
        "--display",
        "none",
        "-n",
        "2",
    )
    stats = invoke("cache", "stats")
    assert stats.exit_code == 0 and "entries: 4" in stats.output and str(isolated_cache) in stats.output
    cleared = invoke("cache", "clear", "--yes")
    assert cleared.exit_code == 0 and "removed 4" in cleared.output
    assert "entries: 0" in invoke("cache", "stats").output


def test_no_cache_flag_leaves_the_cache_empty(tmp_path):
    invoke(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=scripted/echo",
        "--out",
        str(tmp_path),
        "--display",
        "none",
        "-n",
        "2",
        "--no-cache",
    )
    assert "entries: 0" in invoke("cache", "stats").output


def test_generate_longweave_is_deterministic(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (first, second):
        result = invoke("generate", "longweave", "--task", "kvg,sms", "--length", "1k", "-n", "3", "-o", str(path))
        assert result.exit_code == 0 and "wrote 6 samples" in result.output
    assert first.read_bytes() == second.read_bytes()
    ids = [json.loads(line)["id"] for line in first.read_text().splitlines()]
    assert ids == [f"longweave/{t}@1k/{i}" for t in ("kvg", "sms") for i in range(3)]

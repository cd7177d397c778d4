"""`proseval score RUN --scorer NAME`: any run re-scored by a registered scorer, on its stored answers."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import proseval
from proseval import registry
from proseval.cli import app
from support import plugin_scorer

cli = CliRunner()


@pytest.fixture
def plugin():
    plugin_scorer.register()
    yield
    registry._SCORERS.pop("grade", None)


def test_a_run_is_rescored_by_a_plugin_scorer_with_its_options(tmp_path, plugin):
    source = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, limit=2, out=tmp_path)
    result = cli.invoke(
        app,
        [
            "score",
            str(source.path),
            "--scorer",
            "grade",
            "-O",
            "scale=2",
            "--role",
            "grader=scripted/echo",
            "--display",
            "none",
        ],
    )
    assert result.exit_code == 0, result.output
    folder = next(p for p in tmp_path.iterdir() if "rescore" in p.name)
    header = json.loads((folder / "header.json").read_text())
    assert header["scorer_plugin"] == {"name": "grade", "options": {"scale": 2}}
    assert set(header["roles"]) == {"grader"} and header["roles"]["grader"]["config"]["temperature"] == 0.0
    records = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    for record in records:  # the echo grader repeats the prompt: "Count the words of: " + the stored answer
        words = len(f"Count the words of: {record['state']['output']}".split())
        assert record["scores"] == {
            "grade": {"value": 2.0 * words, "explanation": "", "parse_status": "ok", "metadata": {}}
        }
    assert proseval.resume(folder).results.counts.finished == 2  # the re-score resumes as itself


def test_unknown_scorers_and_stray_options_are_refused(tmp_path, plugin):
    source = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, limit=1, out=tmp_path)
    unknown = cli.invoke(app, ["score", str(source.path), "--scorer", "nope", "--role", "grader=scripted/echo"])
    assert unknown.exit_code == 2 and "unknown scorer 'nope'; available: grade" in unknown.output
    stray = cli.invoke(app, ["score", str(source.path), "-O", "scale=2", "--role", "judge=scripted/echo"])
    assert stray.exit_code == 2 and "--scorer-option goes with --scorer" in stray.output
    bad = cli.invoke(
        app, ["score", str(source.path), "--scorer", "grade", "-O", "sclae=2", "--role", "grader=scripted/echo"]
    )
    assert bad.exit_code == 2 and "sclae" in bad.output


def test_list_scorers(plugin):
    result = cli.invoke(app, ["score", "--list-scorers"])
    assert result.exit_code == 0 and "grade (roles: grader)" in result.output

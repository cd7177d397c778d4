"""A folder of runs given as a glob (`runs/*`) holds proseval's own outputs beside the runs: the
panel's analysis `run --panel` writes, the viewer's `labels/`, a set's `set.json`. The commands that
read runs skip those with one line naming them, and still refuse a folder proseval did not write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.models.scripted import register_script, unregister_script

runner = CliRunner()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path / "cache"))
    register_script("glob-judge-a", lambda messages: json.dumps({"score": 4 + len(str(messages)) % 3, "reason": "a"}))
    register_script("glob-judge-b", lambda messages: json.dumps({"score": 5 + len(str(messages)) % 2, "reason": "b"}))
    runs = tmp_path / "runs"
    try:
        result = runner.invoke(
            app,
            [
                "run",
                "demo",
                "-m",
                "scripted/echo",
                "-r",
                "judge=scripted/glob-judge-a",
                "--panel",
                "judge=scripted/glob-judge-b",
                "-n",
                "4",
                "--out",
                str(runs),
                "--display",
                "none",
            ],
        )
    finally:
        unregister_script("glob-judge-a")
        unregister_script("glob-judge-b")
    assert result.exit_code == 0, result.output
    (runs / "labels").mkdir()
    (runs / "labels" / "pilot.jsonl").write_text("", encoding="utf-8")
    (runs / "set.json").write_text("{}", encoding="utf-8")
    return runs


def test_agreement_and_report_over_a_glob_skip_prosevals_own_non_run_folders(folder: Path, tmp_path: Path):
    everything = sorted(str(p) for p in folder.iterdir())
    assert sum(1 for p in folder.iterdir() if (p / "header.json").is_file()) == 2
    for args in (["agreement", *everything], ["report", *everything, "-o", str(tmp_path / "report.html")]):
        result = runner.invoke(app, args)
        said = " ".join(result.output.split())
        assert result.exit_code == 0, (args[0], result.output)
        assert "not runs, skipped:" in said and "(a panel's analysis (run --panel))" in said
        assert "(the viewer's labels)" in said and "set.json (a file, not a folder)" in said


def test_a_folder_proseval_did_not_write_is_still_refused(folder: Path):
    stranger = folder / "notes"
    stranger.mkdir()
    result = runner.invoke(app, ["agreement", *sorted(str(p) for p in folder.iterdir() if p.name != "set.json")])
    assert result.exit_code == 2 and f"{stranger} is not a run folder" in " ".join(result.output.split())
    alone = runner.invoke(app, ["agreement", str(folder / "labels")])  # given alone: said what is wrong
    assert alone.exit_code == 2 and "not a run folder" in alone.output

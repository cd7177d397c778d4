"""What is refused before the estimate (a suite file's unknown task or key, a `--data` folder that is not
there), and the advice of the skip lines: only options `profile` has."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from profiles.profile_support import SMALL_SUITE
from proseval.benchmarks.meeseeks import task as meeseeks_task
from proseval.benchmarks.writingbench import data as wb_data
from proseval.cli import app
from proseval.core.yamlfile import ConfigFileError
from proseval.errors import UsageError
from proseval.profile.plan import plan_profile
from proseval.profile.suite import load_suite


def write_suite(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def profile(*args: str):
    return CliRunner().invoke(app, ["profile", "scripted/echo", "--judge", "scripted/echo", "--dry-run", *args])


def test_an_unknown_task_is_refused_naming_the_file_and_line(tmp_path):
    path = write_suite(tmp_path, SMALL_SUITE.replace("task: longweave", "task: longwave"))
    result = profile("--suite", str(path), "-o", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert f"{path}:3:" in result.output and "unknown task 'longwave'" in result.output
    assert "skipped" not in result.output and "Estimate" not in result.output


@pytest.mark.parametrize(
    "wrong, named",
    [
        ("{params: {per_cel: 1, length: [1k, 2k]}}", "per_cel"),
        ("{params: {per_cell: 1}, colour: red}", "colour"),
        ("{preset: nope}", "nope"),
    ],
)
def test_a_key_or_preset_the_task_refuses_is_refused_naming_the_file_and_line(tmp_path, wrong, named):
    text = SMALL_SUITE.replace("quick: {params: {per_cell: 1, length: [1k, 2k]}}", f"quick: {wrong}", 1)
    with pytest.raises(ConfigFileError, match=rf"{write_suite(tmp_path, text)}:\d+: .*{named}"):
        load_suite(tmp_path / "suite.yaml")


def test_a_data_folder_that_is_not_there_is_refused(tmp_path):
    missing = tmp_path / "nowhere"
    result = profile("-o", str(tmp_path / "out"), "--data", f"meeseeks={missing}")
    assert result.exit_code == 2, result.output
    assert f"--data meeseeks={missing}: no such folder" in result.output
    assert "skipped" not in result.output and "Estimate" not in result.output


def plan(tmp_path: Path, download: bool):
    return plan_profile(
        load_suite(),
        "quick",
        tmp_path / "out",
        [{"spec": "scripted/echo"}],
        judge="scripted/echo",
        overrides={},
        data={},
        download=download,
    )


def test_skip_lines_give_only_the_options_of_profile(tmp_path, no_data):
    reasons = {s.benchmark: s.reason for s in plan(tmp_path, download=False).skipped}
    assert all("--data-dir" not in r and "--language" not in r for r in reasons.values()), reasons
    assert "--data meeseeks=DIR" in reasons["meeseeks"] and "--download" in reasons["meeseeks"]


def test_after_a_failed_download_the_skip_lines_do_not_suggest_it_again(tmp_path, no_data, monkeypatch):
    def offline(folder):
        raise wb_data.DownloadError("could not download the data: the network is unreachable")

    monkeypatch.setattr(meeseeks_task, "download", offline)
    monkeypatch.setattr(wb_data, "download", offline)
    reasons = {s.benchmark: s.reason for s in plan(tmp_path, download=True).skipped}
    for name in ("meeseeks", "writingbench"):
        assert "the network is unreachable" in reasons[name], reasons
        assert "--download" not in reasons[name] and "--data-dir" not in reasons[name], reasons
        assert f"--data {name}=DIR" in reasons[name]


def test_the_bundled_suite_passes_the_checks():
    assert [b.name for b in load_suite().benchmarks][:2] == ["meeseeks", "longweave"]
    with pytest.raises(UsageError, match="no such folder"):
        plan_profile(
            load_suite(),
            "quick",
            Path("out"),
            [{"spec": "scripted/echo"}],
            judge="scripted/echo",
            overrides={},
            data={"c3ebench": "/nonexistent/c3e"},
            download=False,
        )

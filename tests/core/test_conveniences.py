"""What users of comparable tools expect: past runs listed in the terminal (`proseval runs`), the
documentation a pip user can reach (`proseval docs`), and shell completion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from proseval.cli import app

runner = CliRunner()
SCRIPTED = ["-m", "scripted/echo", "-r", "judge=scripted/echo", "--display", "none", "--no-cache"]


def test_runs_lists_every_run_below_a_folder_with_its_state_and_headline(tmp_path):
    assert (
        runner.invoke(app, ["run", "demo", *SCRIPTED, "-n", "2", "--run-dir", str(tmp_path / "runs" / "a")]).exit_code
        == 0
    )
    assert (
        runner.invoke(
            app, ["run", "demo", *SCRIPTED, "-n", "1", "--run-dir", str(tmp_path / "runs" / "nested" / "deeper" / "b")]
        ).exit_code
        == 0
    )
    (tmp_path / "runs" / "a" / "results.json").unlink()  # as a run killed before its end leaves it
    listed = runner.invoke(app, ["runs", str(tmp_path / "runs"), "--json"])
    assert listed.exit_code == 0, listed.output
    runs = {r["name"]: r for r in json.loads(listed.output)}
    assert set(runs) == {"a", "nested/deeper/b"}
    assert runs["a"]["state"] == "stopped" and runs["a"]["samples"] is None
    done = runs["nested/deeper/b"]
    assert done["state"] == "complete" and (done["finished"], done["samples"], done["failed"]) == (1, 1, 0)
    assert done["task"] == "demo" and done["models"] == {"candidate": "scripted/echo", "judge": "scripted/echo"}
    assert done["headline"]["metric"] == "quality" and done["started_at"]
    table = runner.invoke(app, ["runs", str(tmp_path / "runs")], env={"COLUMNS": "250"})
    assert table.exit_code == 0 and "nested/deeper/b" in table.output and "stopped" in table.output
    missing = runner.invoke(app, ["runs", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "no such folder" in missing.output


def test_docs_lists_the_pages_and_shows_one_by_its_topic():
    listed = runner.invoke(app, ["docs"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and "many-models" in listed.output and "Models and providers" in listed.output
    page = runner.invoke(app, ["docs", "models", "--path"])
    assert page.exit_code == 0 and Path(page.output.strip()).name == "models.md"
    assert runner.invoke(app, ["docs", "revision-distance", "--path"]).output.strip().endswith("revision_distance.md")
    shown = runner.invoke(app, ["docs", "models"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0 and "Models and providers" in shown.output
    unknown = runner.invoke(app, ["docs", "nope"])
    assert unknown.exit_code == 2 and "no page 'nope'" in unknown.output


def test_every_page_the_source_points_to_exists():
    """`proseval docs NAME` in a help text or message names a page there is."""
    from proseval.cli.docs import docs_folder, topics

    pages = topics(docs_folder())
    source = Path(__file__).resolve().parents[2] / "src" / "proseval"
    import re

    named = {
        m
        for path in source.rglob("*.py")
        for m in re.findall(r"proseval docs ([a-z-]+)", path.read_text(encoding="utf-8"))
    }
    assert named and named <= set(pages), named - set(pages)


def test_shell_completion_completes_commands_lazily_registered():
    env = {**os.environ, "_PROSEVAL_COMPLETE": "complete_bash", "COMP_WORDS": "proseval ru", "COMP_CWORD": "1"}
    done = subprocess.run([sys.executable, "-m", "proseval"], env=env, capture_output=True, text=True, timeout=120)
    assert set(done.stdout.split()) >= {"run", "run-set", "runs"}
    help_text = runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    assert "--install-completion" in help_text and "--show-completion" in help_text


def test_docs_come_from_the_packages_own_copy_when_installed(tmp_path, monkeypatch):
    """A wheel carries docs/ as proseval/docs (pyproject's force-include): that copy wins over a checkout."""
    from proseval.cli import docs as docs_module

    shipped = tmp_path / "proseval" / "docs"
    shipped.mkdir(parents=True)
    (shipped / "models.md").write_text("# Models, the shipped copy\n", encoding="utf-8")
    monkeypatch.setattr(docs_module.resources, "files", lambda package: tmp_path / "proseval")
    assert docs_module.docs_folder() == shipped
    result = runner.invoke(app, ["docs", "models", "--path"])
    assert result.exit_code == 0 and Path(result.output.strip()) == shipped / "models.md"
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"docs" = "proseval/docs"' in pyproject

"""What failed or stopped is shown and ends the command accordingly. A set's report has every member
with its state (one stopped at the cost limit, one whose every sample failed) and the usage and
spend of every member in its totals, and its terminal summary shows the tokens behind a stopped
member's spend; `run --panel` and `proseval score` end with status 4, saying why, when the judge
they asked failed. Against the fake OpenAI-compatible server and scripted models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.models.base import FatalError
from proseval.runtime.runlog import RunFolder
from report.page import Page
from support.cost import PRICES
from support.priced_demo import LIMIT


def recorded(run: Path) -> dict:
    """What a run folder's sessions recorded over every role: requests, tokens received and spend."""
    roles = [stats for session in RunFolder(run).read_usage() for stats in session["roles"].values()]
    usage = {key: sum(stats[key] for stats in roles) for key in ("requests", "prompt_tokens", "completion_tokens")}
    return {**usage, "cost": pytest.approx(sum(stats.get("cost", 0.0) for stats in roles)), "currency": "USD"}


def invoke(*args: object):
    from proseval.cli import app

    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


def test_a_sets_report_has_every_member_with_its_state_and_every_members_spend(tmp_path, demo_server, scripts):
    broken = scripts("broken", [FatalError("the model is down", status=503)])
    (tmp_path / "prices.yaml").write_text(PRICES + "  scripted/broken: {input: 0, output: 0}\n", encoding="utf-8")
    set_file = tmp_path / "set.yaml"
    set_file.write_text(
        f"""\
folder: out
models:
  - {{spec: {broken}, name: broken}}
  - {{spec: openai-compatible/cand, name: one, base_url: {demo_server.base_url}}}
tasks:
  - task: demo
    limit: 4
roles: {{judge: openai-compatible/judge}}
role_base_url: {{judge: [{demo_server.base_url}]}}
concurrency: 1
max_runs: 1
prices: prices.yaml
max_cost: {LIMIT}
""",
        encoding="utf-8",
    )
    result = invoke("run-set", set_file, "--display", "none", "--no-probe")
    assert result.exit_code == 3, result.output

    out = tmp_path / "out"
    summary = json.loads((out / "set.json").read_text(encoding="utf-8"))
    members = {m["member"]: m for m in summary["members"]}
    assert {name: m["state"] for name, m in members.items()} == {"demo--broken": "partial", "demo--one": "stopped"}
    # a stopped member's usage is what its sessions recorded: the tokens behind its spend (its abandoned
    # sample's answers were paid, and have no record)
    stopped = recorded(out / "demo--one")
    assert members["demo--one"]["usage"] == stopped
    assert stopped["prompt_tokens"] > 0 and stopped["completion_tokens"] > sum(  # more than its records hold
        u["completion_tokens"] for u in RunFolder(out / "demo--one").read_results().roles.values()
    )
    line = next(row for row in result.output.splitlines() if "demo--one" in row)
    assert f"{stopped['prompt_tokens']:,}" in line and f"{stopped['completion_tokens']:,}" in line

    page = Page((out / "report.html").read_text(encoding="utf-8"))
    states = {row.cells[0].text: row.cells[3].text for row in page.tables["members"].body}
    assert states == {"demo--broken": "partial", "demo--one": "stopped"}
    runs = {row.cells[1].text: row.cells[7].text for row in page.tables["runs-table"].body}
    assert runs == {"demo--broken": "FAILED samples (4 of 4)", "demo--one": "stopped (2 of 4 samples)"}
    usage = {row.cells[0].text: [cell.text for cell in row.cells[2:]] for row in page.tables["usage"].body}
    assert set(usage) == {"demo--broken", "demo--one", "total"}
    labels = {row.cells[0].text: row.cells[1].text for row in page.tables["usage"].body}
    assert labels == {"demo--broken": "broken", "demo--one": "one", "total": ""}  # as in the members table
    total = summary["usage"]
    assert usage["total"] == [
        str(total["requests"]),
        str(total["prompt_tokens"]),
        str(total["completion_tokens"]),
        f"{total['cost']:.4f}",
    ]
    every = sum(recorded(out / name)["cost"].expected for name in members)
    assert total["cost"] == pytest.approx(every)  # the set's whole recorded spend
    assert f"spend recorded in the set's run folders: {every:.4f}" in result.output


def test_run_with_a_panel_judge_that_failed_every_call_exits_4_saying_which(tmp_path, scripts):
    down = scripts("down", [FatalError("the judge is down", status=503)])
    result = invoke(
        "run",
        "demo",
        "-m",
        "scripted/echo",
        "-r",
        "judge=scripted/echo",
        "--panel",
        f"judge={down}",
        "-n",
        "2",
        "--display",
        "none",
        "--run-dir",
        tmp_path / "run",
    )
    assert result.exit_code == 4, result.output
    text = " ".join(result.output.split())
    rescore = next(p for p in tmp_path.iterdir() if "-rescore-" in p.name)
    assert f"panel judge --panel judge={down}: 2 of 2 samples failed: quality: " in text
    assert "the judge is down (2)" in text
    assert f"Judge them again with: proseval resume {rescore} --retry-failed" in text
    assert (tmp_path / "run-panel" / "results.json").is_file()  # the panel's analysis is written all the same


def test_score_with_a_judge_that_failed_exits_4(tmp_path, scripts):
    down = scripts("down", [FatalError("the judge is down", status=503)])
    ran = invoke(
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
        "--run-dir",
        tmp_path / "run",
    )
    assert ran.exit_code == 0, ran.output
    scored = invoke("score", tmp_path / "run", "-r", f"judge={down}", "--display", "none")
    assert scored.exit_code == 4, scored.output
    text = " ".join(scored.output.split())
    assert "failed: 2 of 2 samples — quality: " in text and "the judge is down (2)" in text

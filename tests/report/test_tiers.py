"""A run ranks above another only where their paired difference's 95% interval excludes 0: the
tiers of `runtime.paired`, in the report's leaderboard, the evaluation set's rankings (`set.json`)
and `proseval compare`'s verdict. Three demo runs by scripted judges: `base`; `bump`, one point
above it on a single prompt (a higher mean the data cannot tell from noise); `plus2`, two points
above it everywhere."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import proseval
from proseval.cli import app
from proseval.models.scripted import register_script, unregister_script
from proseval.report.runs import open_runs
from proseval.report.sections import leaderboard
from proseval.runtime.paired import MetricDiff, tiers, verdict
from proseval.runtime.runlog import RunFolder
from proseval.runtime.sets import MemberResult, Ranking, SetResult, set_tiers, write_summary


def judge(shift: int, bumped: str | None = None):
    def answer(messages):
        prompt = messages[-1]["content"]
        score = 4 + len(prompt) % 3 + shift + (1 if bumped and bumped in prompt else 0)
        return json.dumps({"score": score, "reason": "planted"})

    return answer


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tier-runs")
    scripts = {
        "tier-cand": lambda messages: "A short answer of a few words here.",
        "tier-base": judge(0),
        "tier-bump": judge(0, "lighthouse"),
        "tier-plus2": judge(2),
    }
    for name, script in scripts.items():
        register_script(name, script)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PROSEVAL_CACHE_DIR", str(root / "cache"))
            return {
                name: proseval.run(
                    "demo", model="scripted/tier-cand", roles={"judge": f"scripted/tier-{name}"}, run_dir=root / name
                ).path
                for name in ("base", "bump", "plus2")
            }
    finally:
        for name in scripts:
            unregister_script(name)


def values(*diffs: float, base: float = 5.0) -> dict[str, dict[str, float]]:
    return {f"s{i}": {"m": base + d} for i, d in enumerate(diffs)}


def test_tiers_count_the_runs_that_beat_each_one():
    zero = values(*[0.0] * 12)
    noisy = values(*[1.0, -1.0, 0.5, -0.5, 1.5, -1.2, 0.8, -0.6, 1.0, -1.0, 0.4, -0.3])  # mean +0.05
    ahead = values(*[2.0, 2.5, 1.5, 2.0, 2.2, 1.8, 2.1, 1.9, 2.0, 2.4, 1.6, 2.0])
    assert tiers([zero, noisy], "m") == [1, 1]  # a higher mean alone ranks nothing
    assert tiers([zero, noisy, ahead], "m") == [2, 2, 1]
    assert tiers([ahead, zero, noisy], "m") == [1, 2, 2]  # whatever the order given
    assert tiers([zero, noisy, ahead], "m", lower_is_better=True) == [1, 1, 3]
    assert tiers([zero, {}], "m") == [1, 1]  # nothing paired: nothing shown


def test_the_leaderboard_shares_a_tier_where_no_difference_is_shown(runs):
    board = leaderboard("demo", open_runs([runs["base"], runs["bump"], runs["plus2"]]))
    assert board.columns[0] == "tier"
    assert [(row[0].text, row[2].text) for row in board.rows] == [("1", "plus2"), ("2", "bump"), ("2", "base")]
    assert "not shown to differ" in board.caption


def test_compare_says_no_difference_shown_unless_the_interval_excludes_0(runs, tmp_path):
    output = tmp_path / "cmp.json"
    tie = CliRunner().invoke(app, ["compare", str(runs["base"]), str(runs["bump"]), "--json", str(output)])
    assert tie.exit_code == 0, tie.output
    found = {d["metric"]: d for d in json.loads(output.read_text(encoding="utf-8"))["metrics"]}
    assert found["quality"]["diff"] > 0 and found["quality"]["verdict"] == "no difference shown"
    assert "no difference shown" in tie.output
    ahead = CliRunner().invoke(app, ["compare", str(runs["bump"]), str(runs["plus2"])])
    assert ahead.exit_code == 0 and "B higher" in ahead.output
    diff = MetricDiff("m", 8, 1.0, 0.5, -0.5, -0.9, -0.1, 0.01)
    assert verdict(diff) == "A higher"


def test_set_json_records_the_tiers_and_ranks_by_them(runs, tmp_path):
    members = [
        MemberResult(name, "demo", name, path, "done", results=RunFolder(path).read_results())
        for name, path in runs.items()
    ]
    by_mean = sorted(members, key=lambda m: -m.results.metrics["quality"].mean)
    result = SetResult(tmp_path, tmp_path / "set.yaml", members, [Ranking("demo", "quality", by_mean, [])], {})
    set_tiers(result)
    assert result.rankings[0].tiers == {"plus2": 1, "bump": 2, "base": 2}
    (tmp_path / "set.yaml").write_text("tasks: []\n", encoding="utf-8")
    setplan = SimpleNamespace(path=tmp_path / "set.yaml", folder=tmp_path)
    written = write_summary(setplan, result)  # type: ignore[arg-type]  # a stand-in plan
    (ranking,) = json.loads(written.read_text(encoding="utf-8"))["rankings"]
    assert ranking["tiers"] == {"plus2": 1, "bump": 2, "base": 2}
    assert ranking["ranked"] == ["plus2", "bump", "base"]


def test_a_set_run_through_the_python_api_records_tiers_too(tmp_path, monkeypatch):
    """Tiers are computed where the set runs, not by the command: `proseval.run_set` (and the profile,
    which runs its benchmarks as sets) record them in `set.json` as `run-set` does."""
    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path / "cache"))
    scripts = {
        "api-tier-a": lambda messages: "An answer.",
        "api-tier-b": lambda messages: "An answer, zanzibar.",
        "api-tier-judge": lambda messages: json.dumps(
            {"score": 8 if "zanzibar" in str(messages) else 3 + len(str(messages)) % 2, "reason": "planted"}
        ),
    }
    for name, script in scripts.items():
        register_script(name, script)
    try:
        set_file = tmp_path / "set.yaml"
        set_file.write_text(
            "models: [{spec: scripted/api-tier-a}, {spec: scripted/api-tier-b}]\n"
            "tasks: [{task: demo}]\nroles: {judge: scripted/api-tier-judge}\n",
            encoding="utf-8",
        )
        result = proseval.run_set(set_file)
    finally:
        for name in scripts:
            unregister_script(name)
    (ranking,) = result.rankings
    assert ranking.tiers == {m.name: tier for m, tier in zip(ranking.ranked, (1, 2))}
    assert "api-tier-b" in ranking.ranked[0].name
    (written,) = json.loads((result.path / "set.json").read_text(encoding="utf-8"))["rankings"]
    assert written["tiers"] == ranking.tiers

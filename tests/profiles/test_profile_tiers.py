"""The profile ranks by tiers (a model above another only where their paired difference's 95%
interval excludes 0) and shows the time a run spent running, not the time since it first started."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import proseval
from proseval.models.scripted import register_script, unregister_script
from proseval.profile.html import ranking_table
from proseval.profile.report import (
    BenchmarkRow,
    Dimension,
    Profile,
    places,
    ranking,
    ranking_text,
    read_row,
    running_seconds,
)


def row(model: str, mean: float, state: str = "complete") -> BenchmarkRow:
    return BenchmarkRow(benchmark="b", model=model, state=state, metric="m", mean=mean)  # type: ignore[arg-type]  # the states as plain strings


def values(*diffs: float) -> dict[str, dict[str, float]]:
    return {f"s{i}": {"m": 5.0 + d} for i, d in enumerate(diffs)}


NOISE = (1.0, -1.0, 0.5, -0.5, 1.5, -1.2, 0.8, -0.6, 1.0, -1.0, 0.4, -0.3)  # mean +0.05: no difference


def test_a_higher_mean_the_data_cannot_tell_from_noise_shares_the_tier():
    rows = [row("cand-a", 5.0), row("cand-b", 5.05), row("cand-c", 3.0), row("cand-d", 9.0, "failed samples")]
    found = {
        "cand-a": values(*[0.0] * 12),
        "cand-b": values(*NOISE),
        "cand-c": values(*[-2.0] * 12),
        "cand-d": values(*[4.0] * 12),
    }
    tier_of = ranking(rows, found, lower_is_better=False)
    assert tier_of == {"cand-a": 1, "cand-b": 1, "cand-c": 3}  # c is beaten by both; d is not ranked
    dimension = Dimension(
        benchmark="b",
        dimension="d",
        metric="m",
        scale=None,
        lower_is_better=False,
        roles={},
        tiers=tier_of,
        ranking=places(rows, tier_of, lower_is_better=False),
    )
    assert dimension.ranking == [["cand-b", "cand-a"], ["cand-c"]]
    assert ranking_text(dimension) == "tier 1: cand-b, cand-a; tier 3: cand-c"
    profile = Profile(
        size="quick", folder=".", models=["cand-a", "cand-b", "cand-c"], dimensions=[dimension], rows=rows
    )
    (cells,) = ranking_table(profile).rows
    assert cells[2].text == "tier 1: cand-b, cand-a; tier 3: cand-c"
    lower = ranking(rows, found, lower_is_better=True)
    assert lower == {"cand-a": 2, "cand-b": 2, "cand-c": 1}
    assert places(rows, lower, lower_is_better=True) == [["cand-c"], ["cand-a", "cand-b"]]


def test_running_time_sums_the_sessions():
    # started, killed 1 s later, resumed 110 s later, finished 1 s after that
    starts = ["2026-01-01T00:00:00+00:00", "2026-01-01T00:01:51+00:00"]
    ends = ["2026-01-01T00:00:01+00:00", "2026-01-01T00:01:52+00:00", "2026-01-01T00:01:52+00:00"]
    assert running_seconds(starts, ends) == pytest.approx(2.0)
    assert running_seconds(starts[:1], ends[:1]) == pytest.approx(1.0)
    assert running_seconds(starts, ends[1:]) == pytest.approx(1.0)  # killed before its first record: nothing
    assert running_seconds(["not a time"], ends) is None


@pytest.fixture
def demo_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path / "cache"))
    register_script("time-cand", lambda messages: "A short answer of a few words here.")
    register_script("time-judge", lambda messages: json.dumps({"score": 6, "reason": "planted"}))
    try:
        return proseval.run(
            "demo", model="scripted/time-cand", roles={"judge": "scripted/time-judge"}, run_dir=tmp_path / "run"
        ).path
    finally:
        unregister_script("time-cand")
        unregister_script("time-judge")


def test_a_run_killed_and_resumed_later_counts_only_the_time_it_ran(demo_run: Path):
    """The run folder as a kill -9 after 1 s and a resume 110 s later leave it."""
    header = json.loads((demo_run / "header.json").read_text(encoding="utf-8"))
    header["started_at"] = "2026-01-01T00:00:00+00:00"
    header["resumes"] = [{"at": "2026-01-01T00:01:51+00:00", "config_hash": header["config_hash"]}]
    (demo_run / "header.json").write_text(json.dumps(header), encoding="utf-8")
    roles = {"candidate": {"requests": 1}}
    (demo_run / "usage.jsonl").write_text(
        json.dumps({"at": "2026-01-01T00:00:01+00:00", "unfinished": True, "roles": roles})
        + "\n"
        + json.dumps({"at": "2026-01-01T00:01:52+00:00", "roles": roles})
        + "\n",
        encoding="utf-8",
    )
    results = json.loads((demo_run / "results.json").read_text(encoding="utf-8"))
    results["finished_at"] = "2026-01-01T00:01:52+00:00"
    (demo_run / "results.json").write_text(json.dumps(results), encoding="utf-8")
    found = read_row("demo", "time-cand", demo_run)
    assert found.state == "complete"
    assert found.seconds == pytest.approx(2.0)  # not the 112 s since the first start

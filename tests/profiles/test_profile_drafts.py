"""Revision Distance measures WritingBench's answers as they are now: a sample that failed and is
retried on the next profile run gets its draft and its measurement (that one only); the spend of
earlier runs stays in each benchmark's cost and in the --max-cost accounting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from profiles.profile_support import CALLS, register_all, revision_distance_entry, unregister_all
from proseval.cli import app
from proseval.models.base import FatalError
from proseval.models.scripted import register_script, unregister_script
from proseval.profile.drafts import read_rows, stale_ids
from proseval.profile.report import Profile
from proseval.runtime.runlog import RunFolder

pytestmark = pytest.mark.slow

SUITE = """\
benchmarks:
  - name: writingbench
    task: writingbench
    dimension: writing quality
    data: writingbench
    sizes:
      quick: {params: {order: interleaved}, limit: LIMIT}
      standard: {limit: 3}
      paper: {preset: paper}
""" + revision_distance_entry("writingbench")
PRICE = {"input": 1000.0, "output": 1000.0}
PRICES = {"currency": "USD", "models": {"scripted/flaky": PRICE, "scripted/profile-judge": PRICE}}
WB = "runs/writingbench--scripted-flaky"
RD = "revision/scripted-flaky/revision-distance--scripted-flaky"


def _profile(tmp_path: Path, shared_dir: Path, limit: int, *more: str, fail_first: bool = False):
    suite = tmp_path / f"suite-{limit}.yaml"
    suite.write_text(SUITE.replace("LIMIT", str(limit)), encoding="utf-8")
    (tmp_path / "prices.yaml").write_text(json.dumps(PRICES), encoding="utf-8")
    answers = iter(range(1000))

    async def flaky(messages):
        n = next(answers)
        CALLS["flaky"] += 1
        if fail_first and n == 0:
            return FatalError("the endpoint refused the request")
        return f"Answer number {n}: a short text."

    register_all()
    register_script("flaky", flaky)
    try:
        return CliRunner().invoke(
            app,
            [
                "profile",
                "scripted/flaky",
                "--judge",
                "scripted/profile-judge",
                "--suite",
                str(suite),
                "-o",
                str(tmp_path / "out"),
                "--data",
                f"writingbench={shared_dir / 'data' / 'writingbench'}",
                "-c",
                "1",
                "--prices",
                str(tmp_path / "prices.yaml"),
                "--yes",
                "--display",
                "none",
                *more,
            ],
        )
    finally:
        unregister_script("flaky")
        unregister_all()


def _rows(out: Path) -> dict[str, object]:
    profile = Profile.model_validate_json((out / "profile.json").read_text(encoding="utf-8"))
    return {r.benchmark: r for r in profile.rows}


def test_a_retried_writingbench_sample_is_measured_and_earlier_spend_is_kept(tmp_path: Path, shared_dir: Path):
    out = tmp_path / "out"
    first = _profile(tmp_path, shared_dir, 3, fail_first=True)
    assert first.exit_code != 0, first.output  # a failed sample: the profile says so
    rows = _rows(out)
    assert rows["writingbench"].failed == 1 and rows["revision-distance"].samples == 2
    first_cost = rows["revision-distance"].cost
    drafts = out / "revision" / "scripted-flaky.drafts.jsonl"
    assert len(read_rows(drafts)) == 2

    second = _profile(tmp_path, shared_dir, 3)
    assert second.exit_code == 0, second.output
    assert CALLS["flaky"] == 1  # only the failed sample ran again
    rows = _rows(out)
    assert rows["writingbench"].failed == 0 and rows["revision-distance"].samples == 3
    answers = {r.id: r.state.output for r in RunFolder(out / WB).iter_records()}
    assert {row["id"]: row["draft"] for row in read_rows(drafts)} == answers  # no stale draft
    measured = {r.id: r.target["draft"] for r in RunFolder(out / RD).iter_records()}
    assert measured == answers and len(list(RunFolder(out / RD).iter_records())) == 3  # the new one measured once
    assert rows["revision-distance"].cost > first_cost  # the earlier run's spend is in the benchmark's cost


def test_the_cost_limit_counts_the_revision_distance_spend_of_earlier_runs(tmp_path: Path, shared_dir: Path):
    out = tmp_path / "out"
    assert _profile(tmp_path, shared_dir, 2).exit_code == 0
    rows = _rows(out)
    spent = sum(r.cost for r in rows.values())  # type: ignore[misc]  # every row is priced here
    assert rows["revision-distance"].cost > 0
    # One more WritingBench sample, with a limit above the WritingBench spend but at the profile's spend
    stopped = _profile(tmp_path, shared_dir, 3, "--max-cost", f"{spent * 1.0001:.6f}")
    assert stopped.exit_code == 3, stopped.output
    assert CALLS["flaky"] == 0 and len(list(RunFolder(out / WB).iter_records())) == 2
    assert _rows(out)["writingbench"].state == "unfinished"


def test_stale_drafts_are_the_changed_and_the_gone_ones():
    old = [{"id": "a", "draft": "x"}, {"id": "b", "draft": "y"}, {"id": "c", "draft": "z"}]
    new = [{"id": "a", "draft": "x"}, {"id": "b", "draft": "y2"}, {"id": "d", "draft": "w"}]
    assert stale_ids(old, new) == {"b", "c"}
    assert stale_ids([], new) == set()

"""`proseval compare`: paired differences of two runs, with CI and p-value, per slice and per sample."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import proseval
from proseval.cli import app
from proseval.core import Score
from proseval.models.scripted import register_script, unregister_script
from proseval.report.compare import compare_runs
from proseval.runtime.paired import paired_stats
from proseval.runtime.records import ScoredSample

cli = CliRunner()


def sample(i: int, value: float | None, *, status: str = "ok", epoch: int = 0, group: str = "x") -> ScoredSample:
    return ScoredSample(
        id=f"s{i}", epoch=epoch, status=status, metadata={"group": group}, scores={"q": Score(value=value)}
    )


def test_a_constant_improvement_is_found_with_a_tight_interval():
    a = [sample(i, float(i % 5)) for i in range(40)]
    b = [sample(i, float(i % 5) + 1.0) for i in range(40)]
    (diff,) = compare_runs(a, b).metrics
    assert (diff.paired, diff.diff, diff.ci_low, diff.ci_high) == (40, 1.0, 1.0, 1.0)
    assert diff.p_value < 0.001


def test_noise_without_a_shift_is_not_significant():
    rng = np.random.default_rng(7)
    values = rng.normal(size=60)
    noise = rng.normal(scale=0.5, size=60)
    (diff,) = compare_runs(
        [sample(i, v) for i, v in enumerate(values)],
        [sample(i, v + n - noise.mean()) for i, (v, n) in enumerate(zip(values, noise))],
    ).metrics
    assert abs(diff.diff) < 1e-9 and diff.ci_low < 0 < diff.ci_high and diff.p_value > 0.5


def test_only_samples_scored_in_both_are_paired_and_the_rest_counted():
    a = [sample(0, 1.0), sample(1, 2.0), sample(2, None), sample(3, 4.0, status="error")]
    b = [sample(0, 2.0), sample(1, 2.0), sample(2, 5.0), sample(4, 1.0)]
    (diff,) = compare_runs(a, b).metrics
    assert (diff.paired, diff.diff, diff.only_a, diff.only_b) == (2, 0.5, 0, 2)


def test_epochs_are_averaged_per_sample_before_pairing():
    a = [sample(0, 1.0, epoch=0), sample(0, 3.0, epoch=1)]
    b = [sample(0, 2.0, epoch=0), sample(0, 2.0, epoch=1)]
    assert compare_runs(a, b).metrics[0].diff == 0.0


def test_slices_and_the_samples_that_changed_most():
    a = [sample(i, 5.0, group="even" if i % 2 == 0 else "odd") for i in range(6)]
    b = [sample(i, 5.0 + (i if i % 2 else 0), group="even" if i % 2 == 0 else "odd") for i in range(6)]
    comparison = compare_runs(a, b, slice_keys=["group"], top=2)
    assert comparison.slices["group"]["even"][0].diff == 0.0 and comparison.slices["group"]["odd"][0].diff == 3.0
    assert [(d.id, d.change) for d in comparison.changed] == [("s5", 5.0), ("s3", 3.0)]


def test_the_interval_does_not_depend_on_record_order():
    diffs = np.array([0.5, -1.0, 2.0, 0.0, 1.5, 0.25])
    assert paired_stats(diffs, seed=1) == paired_stats(diffs[::-1].copy(), seed=1)


@pytest.fixture
def two_runs(tmp_path):
    register_script("cmp-judge-a", lambda m: '{"score": 4, "reason": "x"}')
    register_script(
        "cmp-judge-b",
        lambda m: '{"score": 7, "reason": "x"}' if "bicycle" not in m[-1]["content"] else '{"score": 4, "reason": "x"}',
    )
    try:
        a = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/cmp-judge-a"}, out=tmp_path / "a")
        b = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/cmp-judge-b"}, out=tmp_path / "b")
    finally:
        unregister_script("cmp-judge-a")
        unregister_script("cmp-judge-b")
    return a, b


def test_compare_two_scripted_runs_with_a_known_difference(tmp_path, two_runs):
    a, b = two_runs
    out = tmp_path / "cmp.json"
    result = cli.invoke(app, ["compare", str(a.path), str(b.path), "--metric", "quality", "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    quality = next(m for m in data["metrics"] if m["metric"] == "quality")
    length = next(m for m in data["metrics"] if m["metric"] == "length")
    assert quality["paired"] == 8 and quality["diff"] == pytest.approx(3 * 7 / 8)  # 7 of 8 prompts: 4 -> 7
    assert length["diff"] == 0.0 and length["p_value"] == 1.0
    assert data["changed"][-1]["a"] == data["changed"][-1]["b"] == 4.0  # the bicycle-lane prompt did not move
    assert "genre" in data["slices"] and "B − A" in result.output


def test_runs_of_different_tasks_are_refused(tmp_path, two_runs):
    a, _ = two_runs
    other = (
        proseval.run("haiku", model="scripted/echo", roles={"judge": "scripted/echo"}, out=tmp_path / "h")
        if "haiku" in proseval.registry.tasks()
        else None
    )
    if other is None:  # compare with a run folder whose header names another task
        header = json.loads((a.path / "header.json").read_text())
        fake = tmp_path / "other"
        fake.mkdir()
        (fake / "header.json").write_text(json.dumps({**header, "task": "writingbench"}))
        target = fake
    else:
        target = other.path
    result = cli.invoke(app, ["compare", str(a.path), str(target)])
    assert result.exit_code == 2 and "compare runs of one task" in result.output


def test_an_unknown_metric_is_refused(two_runs):
    a, b = two_runs
    result = cli.invoke(app, ["compare", str(a.path), str(b.path), "--metric", "nope"])
    assert result.exit_code == 2 and "no metric 'nope'" in result.output

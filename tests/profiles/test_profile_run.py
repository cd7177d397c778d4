"""The quick profile end to end, offline: two scripted candidates and a scripted judge over the bundled
suite and the official data; the terminal, profile.json, profile.html (read back and in Chromium)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from profiles.profile_support import CALLS, register_all, unregister_all
from proseval.cli import app
from proseval.profile.report import Profile
from proseval.runtime.sets import member_name
from report.page import Page

pytestmark = pytest.mark.slow

MODELS = ["scripted/profile-long", "scripted/profile-brief"]
QUICK = {"meeseeks": 12, "longweave": 14, "writingbench": 12, "c3ebench": 16, "ravel": 3, "revision-distance": 12}


def profile_quick(folder: Path, data_args: list[str]) -> Result:
    """`proseval profile` of the two scripted candidates, judged by the scripted judge, into `folder`."""
    options = ["--judge", "scripted/profile-judge", "-o", str(folder), *data_args, "--yes", "--display", "none"]
    return CliRunner().invoke(app, ["profile", *MODELS, *options])


@pytest.fixture(scope="module")
def profiled(data_args: list[str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    folder = tmp_path_factory.mktemp("profile") / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        register_all()
        try:
            result = profile_quick(folder, data_args)
            assert result.exit_code == 0, result.output
            yield folder, result.output
        finally:
            unregister_all()


def test_bindings_then_estimate_then_runs_then_the_profile(profiled):
    _, output = profiled
    lines = output.splitlines()
    progress = [
        next(i for i, line in enumerate(lines) if line.startswith(f"{member_name(b, m)}: done, {n}/{n} samples"))
        for b, n in QUICK.items()
        for m in MODELS
    ]  # one line per benchmark and model
    order = [
        next(i for i, line in enumerate(lines) if text in line)
        for text in ("Profile bindings", "Estimate of the profile's requests and cost, before anything is sent")
    ]
    order += sorted(progress)
    assert "Dry run" not in output and "nothing written" not in output
    order.append(next(i for i, line in enumerate(lines) if "Writing profile" in line))
    assert order == sorted(order)
    assert "set folder:" not in output  # the run-set summaries stay in the run folders and the report
    assert "ravel" in output and "the candidate (unbound: as in the paper's main setting)" in output
    assert "its answers to writingbench" in output  # revision distance measures the WritingBench answers


def test_profile_json_has_a_row_per_benchmark_and_model_with_its_counts(profiled):
    folder, _ = profiled
    profile = Profile.model_validate_json((folder / "profile.json").read_text(encoding="utf-8"))
    assert profile.models == MODELS and profile.size == "quick" and not profile.skipped
    assert [(r.benchmark, r.model) for r in profile.rows] == [(b, m) for b in QUICK for m in MODELS]
    for row in profile.rows:
        assert row.state == "complete", row
        assert row.samples == QUICK[row.benchmark], row
        assert row.n + row.unscored + row.failed == row.samples, row
        assert row.n > 0 and row.mean is not None, row  # the scripted judge's answers are scored on every benchmark
        assert row.requests > 0 and row.seconds is not None
        assert Path(row.run_dir).is_dir()  # type: ignore[arg-type]  # a finished row has one
    judges = {d.benchmark: d.roles for d in profile.dimensions}
    assert judges["meeseeks"] == {"extractor": "scripted/profile-judge", "judge": "scripted/profile-judge"}
    assert judges["revision-distance"] == {"reviser": "scripted/profile-judge"}
    assert all(not d.comparability.comparable for d in profile.dimensions)  # quick is never the paper's setting


def test_two_models_get_paired_differences_and_a_ranking_per_dimension(profiled):
    folder, _ = profiled
    profile = Profile.model_validate_json((folder / "profile.json").read_text(encoding="utf-8"))
    diffs = {d.benchmark: d for d in profile.differences}
    assert set(diffs) == set(QUICK)
    assert all(d.baseline == MODELS[0] and d.model == MODELS[1] for d in diffs.values())
    lw = diffs["longweave"]  # rule-scored tasks: the brief answers lose
    assert lw.paired > 0 and lw.diff is not None and lw.diff < 0 and lw.ci_low <= lw.diff <= lw.ci_high
    rows = {(r.benchmark, r.model): r for r in profile.rows}
    for dimension in profile.dimensions:  # by tier: apart only where the paired interval excludes 0
        if not dimension.ranking:
            continue
        shown = diffs[dimension.benchmark].verdict != "no difference shown"
        assert len(dimension.ranking) == (2 if shown else 1)
        assert [dimension.tiers[place[0]] for place in dimension.ranking] == ([1, 2] if shown else [1])
        if shown:
            means = [rows[(dimension.benchmark, place[0])].mean for place in dimension.ranking]
            assert means == sorted(means, reverse=not dimension.lower_is_better)
    # longweave: the longer answers first (in their own tier only where the interval excludes 0)
    assert profile.dimensions[1].ranking[0][0] == MODELS[0]


def test_running_again_sends_nothing(profiled, data_args):
    folder, _ = profiled
    register_all()
    try:
        result = profile_quick(folder, data_args)
    finally:
        unregister_all()
    assert result.exit_code == 0, result.output
    assert not CALLS and "skipped" in result.output


def test_the_html_page_has_the_tables_and_one_strip_per_benchmark(profiled):
    folder, _ = profiled
    page = Page((folder / "profile.html").read_text(encoding="utf-8"))
    assert len(page.tables["profile-rows"].body) == len(QUICK) * len(MODELS)
    assert len(page.tables["profile-differences"].body) == len(QUICK)
    assert {f"strip-{b}" for b in QUICK} <= page.ids
    assert {f"references-{b}" for b in QUICK} <= set(page.tables)
    assert "judges" in page.ids and "judges-cards" in page.tables  # the judges' evaluator cards


def test_the_page_renders_in_chromium_without_errors(profiled, tmp_path):
    from view.chromium import ARGS, CHROMIUM

    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} not found (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    folder, _ = profiled
    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            tab.goto((folder / "profile.html").as_uri())
            assert tab.locator("svg.strip").count() == len(QUICK)
            marks = tab.locator("svg.strip circle")
            assert marks.count() == sum(
                1 for r in json.loads((folder / "profile.json").read_text())["rows"] if r["mean"] is not None
            )
            assert tab.locator("#strip-longweave circle").first.bounding_box()["width"] > 0
            tab.screenshot(path=str(tmp_path / "profile.png"), full_page=True)
            assert errors == [], errors
        finally:
            browser.close()

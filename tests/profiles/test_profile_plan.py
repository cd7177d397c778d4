"""Before anything runs: which benchmarks can run (missing data is said, never silent), each role's
model, and the confirmation a large estimate asks for."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.errors import UsageError
from proseval.profile.plan import plan_profile
from proseval.profile.suite import load_suite


def plan(tmp_path: Path, **options):
    defaults = {"judge": "scripted/echo", "overrides": {}, "data": {}, "download": False}
    return plan_profile(load_suite(), "quick", tmp_path / "out", [{"spec": "scripted/echo"}], **{**defaults, **options})


def test_benchmarks_without_their_data_are_skipped_saying_how_to_get_it(tmp_path, no_data):
    made = plan(tmp_path)
    assert list(made.entries) == ["longweave"]
    reasons = {s.benchmark: s.reason for s in made.skipped}
    assert set(reasons) == {"meeseeks", "writingbench", "c3ebench", "ravel", "revision-distance"}
    assert "--download" in reasons["writingbench"] and "--data c3ebench=DIR" in reasons["ravel"]
    assert "writingbench" in reasons["revision-distance"]


def test_the_dry_run_prints_the_skipped_benchmarks_the_bindings_and_the_estimate_and_sends_nothing(tmp_path, no_data):
    result = CliRunner().invoke(
        app, ["profile", "scripted/echo", "--judge", "scripted/echo", "-o", str(tmp_path / "out"), "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    for name in ("meeseeks", "writingbench", "c3ebench", "ravel", "revision-distance"):
        assert f"skipped {name}:" in result.output
    output = " ".join(result.output.split())  # the table's title may wrap
    assert output.index("Profile bindings") < output.index("Estimate (dry run: nothing sent; the set written to")
    assert not (tmp_path / "out" / "runs").exists()
    assert sorted(p.name for p in (tmp_path / "out").rglob("*") if p.is_file()) == ["profile-set.yaml"]
    assert "(nothing sent; written: profile-set.yaml: run the same command without --dry-run" in output


def test_the_judge_binds_every_judging_role_and_role_wins_over_it_per_role_or_per_benchmark(tmp_path, no_data):
    made = plan(
        tmp_path,
        data={"c3ebench": str(no_data)},
        overrides={"judge": "scripted/strict", "longweave.judge": "scripted/lw"},
    )
    assert made.roles["longweave"] == {"judge": "scripted/lw"}
    made = plan(tmp_path, overrides={"judge": "scripted/strict"})
    assert made.roles["longweave"] == {"judge": "scripted/strict"}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"judge": None}, "needs the role(s) judge: give --judge"),
        ({"overrides": {"critic": "scripted/x"}}, "--role critic: no benchmark that runs has that role"),
        ({"overrides": {"ravel.judge": "scripted/x"}}, "--role ravel.judge"),
        ({"data": {"nowhere": "/tmp"}}, "--data nowhere"),
    ],
)
def test_bindings_that_cannot_be_made_are_refused(tmp_path, no_data, options, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan(tmp_path, **options)


def test_a_large_estimate_asks_and_without_a_terminal_needs_yes(tmp_path, no_data, monkeypatch):
    monkeypatch.setattr("proseval.cli.profile.CONFIRM_REQUESTS", 1)
    result = CliRunner().invoke(
        app, ["profile", "scripted/echo", "--judge", "scripted/echo", "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 2 and "add --yes" in result.output
    assert not (tmp_path / "out" / "runs").exists()


def test_at_the_paper_size_nothing_is_comparable_before_a_run_has_finished(tmp_path, shared_dir):
    """Comparability is decided from what ran, never from the size's label and the judge's name."""
    from proseval.profile.comparable import paper_settings
    from proseval.profile.report import build_profile

    data = {name: str(shared_dir / "data" / name) for name in ("c3ebench", "meeseeks", "writingbench")}
    made = plan_profile(
        load_suite(),
        "paper",
        tmp_path / "out",
        [{"spec": "openai/gpt-4o"}],
        judge="openai/gpt-5.2-2025-12-11",
        overrides={},
        data=data,
        download=False,
    )
    profile = build_profile(made)
    verdicts = {d.benchmark: d.comparability for d in profile.dimensions}
    assert not any(v.comparable for v in verdicts.values())
    assert verdicts["c3ebench"].why == "no run finished"
    for never in ("longweave", "ravel", "revision-distance"):
        assert verdicts[never].why == paper_settings().benchmarks[never].never
    assert "does not name the judge" in verdicts["meeseeks"].why
    assert [r.state for r in profile.rows] == ["not run"] * 6


def test_a_suite_entrys_own_roles_sit_between_role_and_judge(tmp_path, no_data):
    from proseval.profile.suite import bundled_text

    path = tmp_path / "suite.yaml"
    own = "quick: {params: {per_cell: 1, length: [1k]}, roles: {judge: scripted/own}}"
    path.write_text(bundled_text().replace("quick: {params: {per_cell: 1, length: [1k, 2k]}}", own), encoding="utf-8")
    defaults = {"judge": "scripted/echo", "data": {}, "download": False}
    made = plan_profile(
        load_suite(path), "quick", tmp_path / "out", [{"spec": "scripted/echo"}], overrides={}, **defaults
    )
    assert made.roles["longweave"] == {"judge": "scripted/own"}
    made = plan_profile(
        load_suite(path),
        "quick",
        tmp_path / "out",
        [{"spec": "scripted/echo"}],
        overrides={"judge": "scripted/mine"},
        **defaults,
    )
    assert made.roles["longweave"] == {"judge": "scripted/mine"}


def test_a_role_on_an_endpoint_of_its_own_goes_to_every_set_and_an_unknown_role_is_refused(tmp_path, no_data):
    import yaml

    args = ["profile", "scripted/echo", "--judge", "openai-compatible/judge", "-o", str(tmp_path / "out"), "--dry-run"]
    result = CliRunner().invoke(
        app,
        [*args, "--role-base-url", "judge=http://127.0.0.1:9/v1", "--role-base-url", "judge=http://127.0.0.1:10/v1"],
    )
    assert result.exit_code == 0, result.output
    written = yaml.safe_load((tmp_path / "out" / "profile-set.yaml").read_text(encoding="utf-8"))
    assert [task["role_base_url"] for task in written["tasks"]] == [
        {"judge": ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]}
    ]  # longweave's: the other benchmarks lack data
    refused = CliRunner().invoke(app, [*args, "--role-base-url", "jugde=http://127.0.0.1:9/v1"])
    assert refused.exit_code == 2 and "jugde: no benchmark of the profile has that role" in refused.output
    assert CliRunner().invoke(app, [*args, "--role-base-url", "judge"]).exit_code == 2

"""proseval doctor: the report a bug needs, and an exit status that says whether it can work."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.doctor import Check, exit_status, run_checks

runner = CliRunner()


def test_the_report_names_versions_cpu_extras_and_sandbox_without_running_the_model():
    result = runner.invoke(app, ["doctor", "--no-model"])
    assert result.exit_code == 0, result.output
    for line in (
        "python",
        "proseval",
        "cpu flags",
        "amx",
        "packages",
        "cache",
        "key variables set",
        "meeseeks checkers",
        "longweave code scoring",
        "extra revision-distance",
        "extra report",
        "extra view",
        "extra inspect",
        "sandbox",
        "llama.cpp threads",
    ):
        assert line in result.output
    assert "not run (--no-model)" in result.output


def test_key_variables_are_named_never_shown(monkeypatch):
    monkeypatch.setenv("EXAMPLE_API_KEY", "sk-never-print-this-4711")
    result = runner.invoke(app, ["doctor", "--no-model"])
    assert "EXAMPLE_API_KEY" in result.output
    assert "sk-never-print-this-4711" not in result.output


@pytest.mark.local_model
def test_the_embedded_model_is_checked_in_a_child_process():
    checks = {c.name: c for c in run_checks(run_model=True)}
    model = checks["embedded model"]
    assert model.status == "ok", model.detail
    assert "tokens" in model.detail
    assert "extra buffer types off" in checks["llama.cpp"].detail


def test_required_components_decide_the_exit_status():
    ok = Check("meeseeks checkers", "ok", "", "meeseeks")
    missing = Check("longweave code scoring", "warn", "missing flake8", "longweave")
    assert exit_status([ok, missing], set()) == 0
    assert exit_status([ok, missing], {"meeseeks"}) == 0
    assert exit_status([ok, missing], {"longweave"}) == 1
    assert exit_status([Check("embedded model", "fail", "killed by SIGSEGV", "local")], set()) == 1


def test_benchmarks_register_their_own_checks_and_require_accepts_them(monkeypatch):
    from proseval import doctor, registry

    monkeypatch.setitem(registry._DOCTOR_CHECKS, "toybench", lambda: [Check("toy data", "warn", "no data")])
    monkeypatch.setitem(registry._DOCTOR_CHECKS, "brokenbench", lambda: 1 / 0)
    assert {"meeseeks", "longweave", "toybench"} <= set(doctor.components())
    checks = {c.name: c for c in run_checks(run_model=False)}
    assert checks["toy data"].component == "toybench" and checks["meeseeks checkers"].component == "meeseeks"
    assert checks["brokenbench"].status == "fail" and "ZeroDivisionError" in checks["brokenbench"].detail
    assert exit_status([checks["toy data"]], {"toybench"}) == 1


def test_require_names_a_benchmark_component():
    result = runner.invoke(app, ["doctor", "--no-model", "--require", "meeseeks", "--require", "longweave"])
    assert result.exit_code == exit_status(run_checks(run_model=False), {"meeseeks", "longweave"}), result.output
    assert "unknown component" not in result.output


def test_an_unknown_component_is_rejected():
    result = runner.invoke(app, ["doctor", "--require", "gpu"])
    assert result.exit_code == 2
    assert "unknown component" in result.output


def test_a_missing_feature_extra_names_the_install_command(monkeypatch):
    from proseval import doctor

    monkeypatch.setitem(doctor.FEATURE_EXTRAS, "view", ("fastapi", "no_such_module_for_the_test"))
    (view,) = [c for c in doctor.feature_extras() if c.component == "view"]
    assert view.status == "warn" and "no_such_module_for_the_test" in view.detail
    assert "pip install 'proseval[view]'" in view.detail and "fastapi" not in view.detail
    assert exit_status([view], {"view"}) == 1

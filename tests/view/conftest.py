"""Run folders for the viewer's tests: real runs with scripted models, built once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from view.view_fixtures import demo_run, meeseeks_run, pairs_run, ravel_run, revision_run

from proseval.models.scripted import register_script, unregister_script


@pytest.fixture(scope="session")
def built_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished run of each kind, by kind; never changed by a test (copy it first)."""
    out = tmp_path_factory.mktemp("view") / "runs"
    names: list[str] = []

    def scripts(name: str, script: object) -> str:
        register_script(name, script)
        names.append(name)
        return f"scripted/{name}"

    try:
        made = {kind: build(out, scripts).path for kind, build in
                (("demo", demo_run), ("ravel", ravel_run), ("revision", revision_run), ("pairs", pairs_run),
                 ("meeseeks", meeseeks_run))}
    finally:
        for name in names:
            unregister_script(name)
    return made


@pytest.fixture
def runs_dir(built_runs: dict[str, Path], tmp_path: Path) -> Path:
    """A fresh copy of the built runs, for a test to change."""
    target = tmp_path / "runs"
    target.mkdir()
    for path in built_runs.values():
        shutil.copytree(path, target / path.name)
    return target

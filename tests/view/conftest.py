"""Run folders for the viewer's tests: real runs with scripted models, built once per session."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.scripted import registered_scripts
from view.view_fixtures import demo_run, meeseeks_run, pairs_run, ravel_run, revision_run


@pytest.fixture(scope="session")
def built_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished run of each kind, by kind; never changed by a test (copy it first)."""
    out = tmp_path_factory.mktemp("view") / "runs"
    with registered_scripts() as scripts:
        return {
            kind: build(out, scripts).path
            for kind, build in (
                ("demo", demo_run),
                ("ravel", ravel_run),
                ("revision", revision_run),
                ("pairs", pairs_run),
                ("meeseeks", meeseeks_run),
            )
        }


@pytest.fixture
def runs_dir(built_runs: dict[str, Path], tmp_path: Path) -> Path:
    """A fresh copy of the built runs, for a test to change."""
    target = tmp_path / "runs"
    target.mkdir()
    for path in built_runs.values():
        shutil.copytree(path, target / path.name)
    return target


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder for a module's screenshots, copied to $PROSEVAL_VIEW_SHOTS when set."""
    folder = tmp_path_factory.mktemp("screenshots")
    yield folder
    extra = os.environ.get("PROSEVAL_VIEW_SHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        for png in folder.glob("*.png"):
            shutil.copy(png, Path(extra) / png.name)

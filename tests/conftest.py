"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = (REPO_ROOT.parent / "shared").resolve()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The read-only folder of official data and differential vectors beside the checkout."""
    if not SHARED_DIR.is_dir():
        pytest.skip(f"official data and vectors not found at {SHARED_DIR}")
    return SHARED_DIR


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own response cache, never the user's."""
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("PROSEVAL_CACHE_DIR", str(path))
    return path

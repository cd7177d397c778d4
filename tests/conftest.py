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

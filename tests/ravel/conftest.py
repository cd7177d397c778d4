from __future__ import annotations

from pathlib import Path

import pytest
from ravel.ravel_fixtures import write_data

from proseval.models.scripted import register_script, unregister_script


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return write_data(tmp_path / "c3e")


@pytest.fixture
def scripts():
    """Register scripts by name for one test; unregistered afterwards."""
    names: list[str] = []

    def register(name: str, script) -> str:
        register_script(name, script)
        names.append(name)
        return f"scripted/{name}"

    yield register
    for name in names:
        unregister_script(name)

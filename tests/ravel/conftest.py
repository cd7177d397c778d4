from __future__ import annotations

from pathlib import Path

import pytest

from ravel.ravel_fixtures import write_data


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return write_data(tmp_path / "c3e")

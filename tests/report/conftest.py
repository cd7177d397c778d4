"""Run folders of three benchmarks made once per module with scripted models (see report_fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from report.report_fixtures import make_runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    with pytest.MonkeyPatch.context() as patch:  # a cache of the module's own, never the user's
        patch.setenv("PROSEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("report-cache")))
        return make_runs(tmp_path_factory.mktemp("report-runs"))

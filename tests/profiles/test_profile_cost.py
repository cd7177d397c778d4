"""The profile's spend: recorded with --prices, stopped at --max-cost (exit 3, the report written
over what finished), continued by running again with a higher limit."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from profiles.profile_support import SMALL_SUITE, register_all, unregister_all
from proseval.cli import app
from proseval.profile.report import Profile

EXPENSIVE = {"input": 1000.0, "output": 1000.0}  # per million tokens: a few requests pass the first limit
PRICES = {"currency": "USD", "models": {"scripted/profile-long": EXPENSIVE, "scripted/profile-judge": EXPENSIVE}}


def test_the_cost_limit_stops_the_profile_and_a_higher_one_finishes_it(tmp_path: Path):
    suite, prices, out = tmp_path / "suite.yaml", tmp_path / "prices.yaml", tmp_path / "out"
    suite.write_text(SMALL_SUITE, encoding="utf-8")
    prices.write_text(json.dumps(PRICES), encoding="utf-8")

    def profile(limit: str):
        register_all()
        try:
            return CliRunner().invoke(
                app,
                [
                    "profile",
                    "scripted/profile-long",
                    "--judge",
                    "scripted/profile-judge",
                    "--suite",
                    str(suite),
                    "-o",
                    str(out),
                    "--prices",
                    str(prices),
                    "--max-cost",
                    limit,
                    "-c",
                    "1",
                    "--yes",
                    "--display",
                    "none",
                ],
            )
        finally:
            unregister_all()

    stopped = profile("0.5")
    assert stopped.exit_code == 3, stopped.output
    first = Profile.model_validate_json((out / "profile.json").read_text(encoding="utf-8"))
    assert [r.state for r in first.rows] == ["unfinished", "not run"]

    finished = profile("1000000")
    assert finished.exit_code == 0, finished.output
    rows = Profile.model_validate_json((out / "profile.json").read_text(encoding="utf-8")).rows
    assert [r.state for r in rows] == ["complete", "complete"]
    assert all(r.cost is not None and r.cost > 0 and r.currency == "USD" for r in rows)

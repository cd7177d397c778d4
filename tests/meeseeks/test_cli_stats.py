"""`proseval meeseeks stats`: the official statistics of an official run, from its round files."""

from __future__ import annotations

import json

from pytest import approx
from typer.testing import CliRunner

from proseval.cli import app

cli = CliRunner()


def test_stats_of_the_official_sample_run(shared_dir, tmp_path):
    folder = shared_dir / "data" / "meeseeks" / "official_sample_run_zh"
    result = cli.invoke(
        app, ["meeseeks", "stats", str(folder / "round_1.json"), str(folder / "round_2.json"), "-o", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    first = json.loads((tmp_path / "round_1_stats.json").read_text(encoding="utf-8"))
    second = json.loads((tmp_path / "round_2_stats.json").read_text(encoding="utf-8"))
    # hand-computed from the recorded verdicts: 50/70 and 48/70 (item 5 regresses in round 2), 4 of 10 pass
    assert (first["meeseeks_score"], first["utility_score"], first["total_items"]) == (approx(50 / 70), 0.4, 10)
    assert (second["meeseeks_score"], second["utility_score"]) == (approx(48 / 70), 0.4)
    assert list(first) == ["round", "meeseeks_score", "utility_score", "capability_stats", "total_items"]
    assert "0.714286" in result.output


def test_a_file_that_is_not_a_round_file_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "round_1.json"
    bad.write_text('{"not": "a list"}', encoding="utf-8")
    result = cli.invoke(app, ["meeseeks", "stats", str(bad)])
    assert result.exit_code == 2 and "round_1.json" in result.output and "JSON list" in result.output

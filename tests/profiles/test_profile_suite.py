"""The bundled suite: six benchmarks, three sizes, fixed subsets at `quick`, the papers' presets at `paper`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.core.yamlfile import ConfigFileError
from proseval.profile.suite import SIZES, bundled_text, load_suite
from proseval.registry import get_entry

SIX = {"meeseeks", "longweave", "writingbench", "c3ebench", "ravel", "revision-distance"}


def test_the_bundled_suite_has_the_six_benchmarks_at_every_size():
    suite = load_suite()
    assert {b.task for b in suite.benchmarks} == SIX
    for bench in suite.benchmarks:
        assert set(bench.sizes) == set(SIZES)


def test_quick_takes_a_fixed_balanced_subset_and_paper_the_papers_preset_at_full_size():
    suite = load_suite()
    for bench in suite.benchmarks:
        quick, paper = bench.entry("quick"), bench.entry("paper")
        if bench.drafts_from is None:
            # a limit over an interleaved order, or LongWeave's per-cell count from its fixed seed
            assert quick.limit is not None or "per_cell" in quick.params, bench.name
            if quick.limit is not None and "order" in get_entry(bench.task).params.model_fields:
                assert (
                    quick.params.get("order", get_entry(bench.task).params.model_fields["order"].default)
                    == "interleaved"
                ), bench.name
        assert paper.limit is None, bench.name
        if paper.preset is not None:
            get_entry(bench.task).preset(paper.preset)  # the preset exists
    presets = {b.task: b.entry("paper").preset for b in suite.benchmarks}
    assert presets == {
        "meeseeks": "paper",
        "longweave": "paper",
        "writingbench": "paper",
        "c3ebench": "official",
        "ravel": "official",
        "revision-distance": None,
    }


@pytest.mark.parametrize("columns", [None, "40"], ids=["no COLUMNS", "COLUMNS=40"])
def test_show_suite_prints_the_bundled_file_which_loads_as_a_suite_file(tmp_path: Path, columns):
    """As written, whatever the terminal's width: `--show-suite > my-suite.yaml` is how a suite starts."""
    result = CliRunner().invoke(app, ["profile", "--show-suite"], env={"COLUMNS": columns})
    assert result.exit_code == 0
    assert result.output == bundled_text()
    copy = tmp_path / "mine.yaml"
    copy.write_text(result.output, encoding="utf-8")
    assert load_suite(copy) == load_suite()


@pytest.mark.parametrize(
    "change, message",
    [
        (("      quick: {params: {per_cell: 1, length: [1k, 2k]}}\n", ""), "quick"),
        (("drafts_from: writingbench", "drafts_from: nowhere"), "nowhere"),
        (("limit: 12}", "limit: 0}"), "limit"),
    ],
)
def test_a_broken_suite_file_is_refused_naming_what_is_wrong(tmp_path: Path, change, message):
    text = bundled_text()
    assert change[0] in text
    path = tmp_path / "suite.yaml"
    path.write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    with pytest.raises(ConfigFileError, match=message):
        load_suite(path)

"""CSV, Markdown and chart exports."""

from __future__ import annotations

import csv
import io
import sys

import pytest

from proseval.benchmarks.writingbench.aggregate import QueryScores, aggregate
from proseval.benchmarks.writingbench.export import (
    domain_chart_png,
    official_table_to_csv,
    report_to_csv,
    report_to_markdown,
)
from writingbench.wb_fixtures import names

RESULTS = [
    QueryScores(index=1, scores={name: (score,) for name, score in zip(names(1), (8, 6, 4, 2, 10))}),  # S = 6
    QueryScores(index=3, scores={name: (None,) for name in names(3)}),  # unscored
]


@pytest.fixture
def report(tiny_bench):
    return aggregate(RESULTS, tiny_bench, n_bootstrap=50, seed=0)


def test_csv_has_one_row_per_slice(report):
    rows = list(csv.DictReader(io.StringIO(report_to_csv(report))))
    assert len(rows) == len(report.slices)
    assert rows[0] == {
        "kind": "overall",
        "label": "all",
        "value": "6.0",
        "ci_low": "",  # one query: no interval
        "ci_high": "",
        "queries_scored": "1",
        "queries_unscored": "1",
        "criteria_scored": "5",
        "criteria_unscored": "5",
    }
    education = next(row for row in rows if row["label"] == "Education")
    assert (education["value"], education["queries_unscored"]) == ("", "1")


def test_markdown_table(report):
    text = report_to_markdown(report)
    lines = text.splitlines()
    assert len(lines) == len(report.slices) + 2
    assert lines[2] == "| overall | all | 6.00 | – (n = 1) | 1 / 1 | 5 / 5 |"  # never "6.00 – 6.00"
    assert "| domain1 | Education | – | – | 0 / 1 | 0 / 5 |" in lines


def test_official_table_csv():
    row = {"Model": "m", "Overall": 5.5, "Domain1_Education": None}
    text = official_table_to_csv(["Model", "Overall", "Domain1_Education"], [row])
    assert text == "Model,Overall,Domain1_Education\nm,5.5,\n"


def test_chart_png(report):
    pytest.importorskip("matplotlib")
    png = domain_chart_png(report)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert domain_chart_png(report, level="domain2").startswith(b"\x89PNG")


def test_chart_without_matplotlib(report, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    with pytest.warns(UserWarning, match="matplotlib is not installed"):
        assert domain_chart_png(report) is None


def test_terminal_table_shows_a_dash_and_n_1_for_a_single_query(report):
    from proseval.benchmarks.writingbench.render import _table

    table = _table("Overall", list(report.of_kind("overall")))
    assert [list(column.cells) for column in table.columns[1:3]] == [["6.00"], ["— (n = 1)"]]

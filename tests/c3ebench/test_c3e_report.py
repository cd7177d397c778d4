"""The C3EBench tables: a cell with one scored item has no interval."""

from __future__ import annotations

from proseval.benchmarks.c3ebench.report import summarize, tables
from proseval.kit import Score
from proseval.kit.runs import ScoredSample


def item(sample_id: str, task: str, value: float) -> ScoredSample:
    return ScoredSample(
        id=sample_id,
        status="ok",
        metadata={"task": task, "language": "en", "genre": "essay"},
        scores={"c3e": Score(value=value)},
    )


def test_a_cell_with_one_item_shows_a_dash_and_n_1_instead_of_an_interval():
    summary = summarize([item("a", "cloze", 7.0), item("b", "expand", 6.0), item("c", "expand", 8.0)])
    cells = {r["task"]: r for r in summary["cells"]}
    assert (cells["cloze"]["mean"], cells["cloze"]["ci_low"], cells["cloze"]["ci_high"]) == (7.0, None, None)
    assert cells["expand"]["ci_low"] is not None and cells["expand"]["ci_low"] < cells["expand"]["ci_high"]
    rows = {row[0]: row for row in tables(summary)[0][2]}
    cloze = next(row for name, row in rows.items() if name.lower().startswith("cloze"))
    assert cloze[2:5] == ["7.00", "— (n = 1)", "1"]  # never "7.00–7.00"

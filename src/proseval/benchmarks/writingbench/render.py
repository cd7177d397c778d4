"""WritingBench tables for the terminal (`proseval run` / `proseval show`)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from proseval.benchmarks.writingbench.aggregate import Report, SliceResult

TITLES = {"overall": "Overall", "domain1": "By domain", "lang": "By language",
          "requirement_R": "Requirement subsets (R: query means)",
          "requirement_C": "Requirement subsets (C: requirement criteria)"}


def _table(title: str, items: list[SliceResult]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("slice", "score 1-10", "95% CI", "queries", "unscored q.", "criteria", "unscored c."):
        table.add_column(column, justify="left" if column == "slice" else "right")
    for item in items:
        value = "—" if item.value is None else f"{item.value:.2f}"
        ci = "—" if item.ci_low is None else f"{item.ci_low:.2f}–{item.ci_high:.2f}"
        table.add_row(item.label, value, ci, str(item.queries_scored), str(item.queries_unscored),
                      str(item.criteria_scored), str(item.criteria_unscored))
    return table


def render(results: Any) -> list[Table]:
    data = results.extra.get("writingbench")
    if not data:
        return []
    report = Report.model_validate(data)
    return [_table(title, report.of_kind(kind)) for kind, title in TITLES.items() if report.of_kind(kind)]

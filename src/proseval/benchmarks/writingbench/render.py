"""WritingBench tables for the terminal (`proseval run` / `proseval show`)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from proseval.benchmarks.writingbench.aggregate import Report, SliceKind, SliceResult

TITLES: dict[SliceKind, str] = {
    "overall": "Overall",
    "domain1": "By domain",
    "lang": "By language",
    "requirement_R": "Requirement subsets (R: query means)",
    "requirement_C": "Requirement subsets (C: requirement criteria)",
}


def ci_text(item: SliceResult, *, dash: str = "—", joiner: str = "–", digits: int = 2) -> str:
    """The interval, else a dash; a single scored query is marked as such (it has no interval)."""
    if item.ci_low is not None and item.ci_high is not None:
        return f"{item.ci_low:.{digits}f}{joiner}{item.ci_high:.{digits}f}"
    return f"{dash} (n = 1)" if item.queries_scored == 1 else dash


def _table(title: str, items: list[SliceResult]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("slice", "score 1-10", "95% CI", "queries", "unscored q.", "criteria", "unscored c."):
        table.add_column(column, justify="left" if column == "slice" else "right")
    for item in items:
        value = "—" if item.value is None else f"{item.value:.2f}"
        table.add_row(
            item.label,
            value,
            ci_text(item),
            str(item.queries_scored),
            str(item.queries_unscored),
            str(item.criteria_scored),
            str(item.criteria_unscored),
        )
    return table


def render(results: Any) -> list[Table]:
    data = results.extra.get("writingbench")
    if not data:
        return []
    report = Report.model_validate(data)
    return [_table(title, report.of_kind(kind)) for kind, title in TITLES.items() if report.of_kind(kind)]

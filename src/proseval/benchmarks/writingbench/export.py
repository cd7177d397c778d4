"""Exporting WritingBench results: CSV and Markdown text, and a bar chart per domain."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any, Literal

from proseval.benchmarks.writingbench.aggregate import Report
from proseval.benchmarks.writingbench.render import ci_text
from proseval.kit.charts import chart, ci_errors

_REPORT_FIELDS = (
    "kind",
    "label",
    "value",
    "ci_low",
    "ci_high",
    "queries_scored",
    "queries_unscored",
    "criteria_scored",
    "criteria_unscored",
)


def _csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([["" if cell is None else cell for cell in row] for row in rows])
    return buffer.getvalue()


def report_to_csv(report: Report) -> str:
    """One CSV row per slice, full precision; empty cells for unscored values."""
    return _csv(_REPORT_FIELDS, [[getattr(item, field) for field in _REPORT_FIELDS] for item in report.slices])


def official_table_to_csv(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """The official-compatibility table as CSV (same columns as the official spreadsheet)."""
    return _csv(columns, [[row.get(column) for column in columns] for row in rows])


def _number(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def report_to_markdown(report: Report, *, digits: int = 2) -> str:
    """A Markdown table of every slice on the official 1–10 scale with its CI and counts."""
    percent = round(report.confidence * 100)
    lines = [
        f"| slice | label | score | {percent}% CI | queries scored / unscored | criteria scored / unscored |",
        "|---|---|---:|---|---:|---:|",
    ]
    for item in report.slices:
        ci = ci_text(item, dash="–", joiner=" – ", digits=digits)
        lines.append(
            f"| {item.kind} | {_escape(item.label)} | {_number(item.value, digits)} | {ci} "
            f"| {item.queries_scored} / {item.queries_unscored} | {item.criteria_scored} / {item.criteria_unscored} |"
        )
    return "\n".join(lines) + "\n"


def domain_chart_png(report: Report, *, level: Literal["domain1", "domain2"] = "domain1") -> bytes | None:
    """A horizontal bar chart of the scores per domain with CI whiskers, as PNG bytes.

    Returns None, with a warning, when matplotlib (``proseval[plot]``) is not installed.
    Slices without a score are shown without a bar.
    """
    items = report.of_kind(level)

    def draw(axes) -> None:
        values = [item.value or 0.0 for item in items]
        whiskers = ci_errors([(item.value or 0.0, item.ci_low, item.ci_high) for item in items])
        positions = range(len(items))
        axes.barh(positions, values, xerr=whiskers if items else None, color="#4c72b0", capsize=2)
        axes.set_yticks(list(positions), [f"{item.label} (n={item.queries_scored})" for item in items])
        axes.invert_yaxis()
        axes.set_xlim(0, 10)
        axes.set_xlabel(f"mean score (1-10), {round(report.confidence * 100)}% bootstrap CI")
        axes.set_title(f"WritingBench by {level}")

    return chart(draw, size=(8, 1.0 + 0.3 * len(items)))

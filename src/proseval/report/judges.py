"""The judges' section of the HTML report, and the page of `proseval agreement --out`: the
evaluator cards and agreement tables of a `reliability` analysis."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from .. import __version__
from ..reliability.card import Analysis
from ..reliability.render import AnalysisTable, analysis_lines, analysis_tables, analysis_warnings
from .sections import Cell, HtmlTable


@dataclass
class JudgesPart:
    runs: int
    tables: list[HtmlTable] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _html(table: AnalysisTable) -> HtmlTable:
    rows = [
        [Cell(text, kind="label" if i < table.labels else "num") for i, text in enumerate(cells)]
        for cells in table.rows
    ]
    return HtmlTable(f"judges-{table.id}", table.title, table.columns, rows, table.caption)


def judges_part(analysis: Analysis) -> JudgesPart:
    """The analysis's tables and sentences (`reliability.render`: what the terminal shows, and the
    per-slice detail) as parts of an HTML page."""
    return JudgesPart(
        runs=len(analysis.runs),
        tables=[_html(table) for table in analysis_tables(analysis)],
        warnings=[f"{warning}." for warning in analysis_warnings(analysis)],
        notes=[f"{line}." for line in analysis_lines(analysis)],
    )


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("proseval.report", "templates"),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def write_analysis_page(analysis: Analysis, output: Path, title: str = "proseval: judging the judges") -> None:
    """A self-contained HTML page of the analysis (no script, nothing loaded from outside)."""
    text = (
        _environment()
        .get_template("agreement.html.j2")
        .render(
            title=title,
            judges=judges_part(analysis),
            version=__version__,
            generated=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")

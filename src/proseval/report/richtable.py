"""A benchmark's rich tables (its `render` hook) as plain text cells, for the HTML report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.errors import MarkupError
from rich.table import Table
from rich.text import Text


@dataclass(frozen=True)
class PlainTable:
    title: str
    caption: str
    columns: list[str]
    rows: list[list[str]]


def plain(cell: Any) -> str:
    """The text a terminal would show for a cell: markup strings rendered, Text objects as they are."""
    if isinstance(cell, Text):
        return cell.plain
    if isinstance(cell, str):
        try:
            return Text.from_markup(cell).plain
        except MarkupError:
            return cell
    return str(cell)


def plain_table(table: Table) -> PlainTable:
    columns = [list(column.cells) for column in table.columns]
    rows = [[plain(column[i]) if i < len(column) else "" for column in columns] for i in range(table.row_count)]
    return PlainTable(
        plain(table.title or ""), plain(table.caption or ""), [plain(column.header) for column in table.columns], rows
    )

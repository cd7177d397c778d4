"""The report page read back with the standard library's HTML parser: tables, cells, links, images."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


@dataclass
class TableCell:
    tag: str
    attrs: dict[str, str]
    text: str = ""

    @property
    def src(self) -> list[list[Any]] | None:
        raw = self.attrs.get("data-src")
        return json.loads(raw) if raw else None


@dataclass
class Row:
    attrs: dict[str, str]
    cells: list[TableCell] = field(default_factory=list)


@dataclass
class ParsedTable:
    id: str
    rows: list[Row] = field(default_factory=list)

    @property
    def header(self) -> list[str]:
        return [c.text for c in self.rows[0].cells]

    @property
    def body(self) -> list[Row]:
        return self.rows[1:]


class Page(HTMLParser):
    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, ParsedTable] = {}
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.images: list[str] = []
        self.tags: list[str] = []
        self.meta: list[dict[str, str]] = []
        self._stack: list[ParsedTable] = []
        self._cell: TableCell | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.tags.append(tag)
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self.hrefs.append(values["href"])
        if tag == "img":
            self.images.append(values.get("src", ""))
        if tag == "meta":
            self.meta.append(values)
        if tag == "table":
            table = ParsedTable(values.get("id", f"anonymous-{len(self.tables)}"))
            self.tables[table.id] = table
            self._stack.append(table)
        elif tag == "tr" and self._stack:
            self._stack[-1].rows.append(Row(values))
        elif tag in ("td", "th") and self._stack:
            self._cell = TableCell(tag, values)
            self._stack[-1].rows[-1].cells.append(self._cell)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._stack:
            self._stack.pop()
        elif tag in ("td", "th"):
            if self._cell is not None:
                self._cell.text = self._cell.text.strip()
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.text += data

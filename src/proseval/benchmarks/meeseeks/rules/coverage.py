"""Which rule labels of a data set have a checker (for ``proseval meeseeks rules``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, NamedTuple

from .base import Dispatcher
from .registry import find_spec, label_family, missing_modules

if TYPE_CHECKING:
    from rich.table import Table

    from ..data import MeeseeksItem

CoverageStatus = Literal["implemented", "needs_extra", "unsupported"]


class CoverageRow(NamedTuple):
    """One distinct (dispatcher, label) of the data.

    ``implemented`` is true when a checker exists; ``status`` further says whether its
    optional dependencies are installed (``needs_extra`` names the extra in ``extra``).
    """

    label: str
    family: str
    implemented: bool
    occurrences: int
    dispatcher: Dispatcher
    status: CoverageStatus
    extra: str | None


def rule_coverage(items: Iterable[MeeseeksItem]) -> list[CoverageRow]:
    """Coverage of every rule label used by ``items``, most used first."""
    counts: Counter[tuple[Dispatcher, str]] = Counter(
        (item.dispatcher, sq.rule) for item in items for sq in item.sub_questions if sq.rule is not None
    )
    rows = []
    for (dispatcher, label), n in counts.items():
        spec = find_spec(label, dispatcher)
        status: CoverageStatus
        if spec is None:
            status, extra = "unsupported", None
        else:
            status = "needs_extra" if missing_modules(spec) else "implemented"
            extra = spec.extra or (", ".join(spec.requires) if status == "needs_extra" else None)
        rows.append(CoverageRow(label, label_family(label, dispatcher), spec is not None, n, dispatcher, status, extra))
    return sorted(rows, key=lambda r: (-r.occurrences, r.dispatcher, r.label))


def format_coverage_table(rows: Iterable[CoverageRow]) -> Table:
    """A rich table with one line per (dispatcher, family): labels, uses and status counts."""
    from rich.table import Table

    families: dict[tuple[str, str], Counter[str]] = {}
    for row in rows:
        tally = families.setdefault((row.dispatcher, row.family), Counter())
        tally["labels"] += 1
        tally["uses"] += row.occurrences
        tally[row.status] += 1
        if row.extra and row.status == "needs_extra":
            tally[f"extra:{row.extra}"] += 1
    table = Table(title="Meeseeks rule coverage")
    for column in ("dispatcher", "family", "labels", "uses", "implemented", "needs extra", "unsupported"):
        table.add_column(column, justify="right" if column in ("labels", "uses") else "left")
    for (dispatcher, family), t in sorted(families.items(), key=lambda kv: (-kv[1]["uses"], kv[0])):
        extras = ", ".join(k.removeprefix("extra:") for k in t if k.startswith("extra:"))
        needs = f"{t['needs_extra']} ({extras})" if t["needs_extra"] else "0"
        table.add_row(
            dispatcher, family, str(t["labels"]), str(t["uses"]), str(t["implemented"]), needs, str(t["unsupported"])
        )
    return table

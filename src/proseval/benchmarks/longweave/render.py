"""LongWeave tables: task x length (as the official summary), for the terminal and Markdown."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from proseval.benchmarks.longweave.aggregate import Average, Cell, LongWeaveReport
from proseval.benchmarks.longweave.params import LENGTH_NAMES, TASK_NAMES


def report_from_dict(data: dict[str, Any]) -> LongWeaveReport:
    return LongWeaveReport(
        policy=data["policy"],
        confidence=data["confidence"],
        cells=tuple(Cell(**cell) for cell in data["cells"]),
        tasks={k: Average(**v) for k, v in data["tasks"].items()},
        tasks_pooled={k: Average(**v) for k, v in data["tasks_pooled"].items()},
        lengths={k: Average(**v) for k, v in data["lengths"].items()},
        overall=Average(**data["overall"]),
        counts=dict(data["counts"]),
    )


def _ordered(present: set[str], known: tuple[str, ...]) -> list[str]:
    return [k for k in known if k in present] + sorted(present - set(known))


def _cell_text(cell: Cell | None) -> str:
    if cell is None:
        return ""
    text = "—" if cell.mean is None else f"{cell.mean:.3f}"
    notes = [
        f"{n} {what}"
        for n, what in ((cell.n_empty, "empty"), (cell.n_failed, "failed"), (cell.n_unscored, "unscored"))
        if n
    ]
    return f"{text} (n={cell.n_used}{'; ' + ', '.join(notes) if notes else ''})"


def _avg(average: Average | None) -> str:
    return "—" if average is None or average.mean is None else f"{average.mean:.3f}"


def rows(report: LongWeaveReport) -> tuple[list[str], list[list[str]]]:
    tasks = _ordered({c.task for c in report.cells}, TASK_NAMES)
    lengths = _ordered({c.length for c in report.cells}, LENGTH_NAMES)
    header = ["task", *lengths, "Avg"]
    body = [
        [task, *(_cell_text(report.cell(task, length)) for length in lengths), _avg(report.tasks.get(task))]
        for task in tasks
    ]
    body.append(["Overall", *(_avg(report.lengths.get(length)) for length in lengths), _avg(report.overall)])
    return header, body


def markdown_table(report: LongWeaveReport) -> str:
    header, body = rows(report)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    counts = ", ".join(f"{k} {v}" for k, v in report.counts.items())
    return "\n".join(lines) + f"\n\nPolicy: {report.policy}; samples: {counts}.\n"


def render(results: Any) -> list[Table]:
    data = results.extra.get("longweave")
    if not data:
        return []
    report = report_from_dict(data)
    header, body = rows(report)
    table = Table(
        title="LongWeave (task x length; Avg = mean over lengths, Overall = mean over cells)", title_justify="left"
    )
    for column in header:
        table.add_column(column, justify="left" if column == "task" else "right")
    for row in body:
        table.add_row(*row)
    return [table]

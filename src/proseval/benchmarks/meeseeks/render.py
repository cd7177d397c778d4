"""Meeseeks tables for the terminal (`proseval run` / `proseval show`)."""

from __future__ import annotations

from typing import Any

from rich.table import Table


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def rounds_table(rounds: list[dict[str, Any]]) -> Table:
    table = Table(
        title="Meeseeks by round (full item set, carry-forward)",
        title_justify="left",
        caption="official counting: a judge/extractor/sandbox failure counted as a failed check, "
        "as the official code does",
    )
    for column in (
        "round",
        "items asked",
        "utility rate",
        "Meeseeks score",
        "utility (official counting)",
        "score (official counting)",
        "model failed",
        "partial items",
        "not evaluated",
        "undecided checks",
        "unsupported checks",
    ):
        table.add_column(column, justify="right")
    for r in rounds:
        official = r.get("official_counting") or {}
        table.add_row(
            str(r["round"]),
            str(r["processed_this_round"]),
            _num(r["utility_score"]),
            _num(r["meeseeks_score"]),
            _num(official.get("utility_score")),
            _num(official.get("meeseeks_score")),
            str(r.get("model_failed_items", 0)),
            str(r["partial_items"]),
            str(r["not_evaluated_items"]),
            str(r["undecided_checks"]),
            str(r["unsupported_checks"]),
        )
    return table


def capability_table(summary: dict[str, Any]) -> Table:
    table = Table(title=f"Level-1 capabilities after round {summary['round']}", title_justify="left")
    for column in ("capability", "pass rate", "correct", "wrong", "total", "unscored"):
        table.add_column(column, justify="left" if column == "capability" else "right")
    for node in summary["capabilities"]:
        table.add_row(
            node["name"],
            _num(node["percentage"]),
            str(node["correct"]),
            str(node["wrong"]),
            str(node["total"]),
            str(node["unscored"]),
        )
    return table


def render(results: Any) -> list[Table]:
    data = results.extra.get("meeseeks")
    if not data or not data.get("rounds"):
        return []
    return [rounds_table(data["rounds"]), capability_table(data["rounds"][-1])]

"""Round statistics: the official `round_N_stats.json` layout and proseval's fuller summary.

Both are computed over the full item set after carry-forward (each item contributes its most
recent evaluation), never over only the items re-asked in a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from proseval.benchmarks.meeseeks.metrics import (
    ENGLISH_NAMES,
    CapabilityNode,
    ItemChecks,
    capability_tree,
    carry_forward,
    dataset_score,
    level1_score,
)


def _label(name: str, english: bool) -> str:
    return ENGLISH_NAMES.get(name, name) if english else name


def _official_nodes(nodes: Sequence[CapabilityNode], english: bool) -> dict[str, Any]:
    return {
        _label(node.name, english): {
            "percentage": node.percentage,
            "correct": node.correct,
            "wrong": node.wrong,
            "total": node.total,
            "children": _official_nodes(node.children, english),
        }
        for node in nodes
        if node.total
    }


def official_round_stats(round_number: int, items: Sequence[ItemChecks | None], *, english: bool) -> dict[str, Any]:
    """Statistics in the layout of the official `round_N_stats.json`.

    `items` is the full item set (None for an item never evaluated: left out, as are undecided
    checks, see `metrics`; `MODEL_FAILED` counts as a failed item). `english` translates the
    capability names.
    """
    score = dataset_score(items)
    return {
        "round": round_number,
        "meeseeks_score": score.meeseeks_score,
        "utility_score": score.utility_score,
        "capability_stats": _official_nodes(capability_tree(items), english),
        "total_items": score.items - score.not_evaluated,
    }


def _summary_nodes(nodes: Sequence[CapabilityNode], english: bool) -> list[dict[str, Any]]:
    return [
        {
            "name": _label(node.name, english),
            "percentage": node.percentage,
            "correct": node.correct,
            "wrong": node.wrong,
            "total": node.total,
            "unscored": node.unscored,
            "children": _summary_nodes(node.children, english),
        }
        for node in nodes
    ]


def round_summary(
    round_number: int, items: Sequence[ItemChecks | None], *, processed: int, english: bool
) -> dict[str, Any]:
    """proseval's per-round summary: Meeseeks Score, Utility Rate (both ways), counts and the tree."""
    score = dataset_score(items)
    tree = capability_tree(items)
    return {
        "round": round_number,
        "meeseeks_score": score.meeseeks_score,
        "utility_score": score.utility_score,
        "meeseeks_score_answered": score.meeseeks_score_answered,
        "utility_score_answered": score.utility_score_answered,
        "capability_mean_level1": level1_score(tree),
        "items": score.items,
        "processed_this_round": processed,
        "scored_items": score.scored_items,
        "utility_items": score.utility_items,
        "partial_items": score.partial,
        "not_evaluated_items": score.not_evaluated,
        "model_failed_items": score.model_failed,
        "capabilities": _summary_nodes(tree, english),
    }


def rounds_report(
    rounds: Sequence[Mapping[str, ItemChecks | None]],
    item_ids: Sequence[str],
    *,
    english: bool,
) -> list[dict[str, Any]]:
    """Per round: ``{"official": <round_N_stats layout>, "summary": <round_summary>}``.

    `rounds` holds, per round, the items processed in it (see `metrics.carry_forward`).
    """
    states = carry_forward(rounds, item_ids)
    report = []
    for number, (processed, state) in enumerate(zip(rounds, states), start=1):
        items = [state[item_id] for item_id in item_ids]
        report.append(
            {
                "official": official_round_stats(number, items, english=english),
                "summary": round_summary(number, items, processed=len(processed), english=english),
            }
        )
    return report

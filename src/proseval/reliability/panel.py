"""The panel: every item the judges of a task and role rated, scored by the mean (or median) of
their verdicts, and per candidate the panel's and each judge's mean."""

from __future__ import annotations

import heapq
import statistics
from collections import defaultdict
from collections.abc import Mapping

from pydantic import TypeAdapter

from .card import PanelItem, PanelSummary
from .collect import Verdict
from .judge_pairs import TOP_DISAGREEMENTS
from .table import Item

_PANEL_ITEMS = TypeAdapter(list[PanelItem])


def panel_items(primaries: Mapping[str, Mapping[Item, Verdict]], aggregate: str = "mean") -> list[PanelItem]:
    """Every item any judge rated, with its panel score: the mean (or median) of the verdicts that
    scored; None when none did."""
    combine = statistics.fmean if aggregate == "mean" else statistics.median
    items = sorted(set().union(*(set(p) for p in primaries.values())))
    found = []
    for item in items:
        values = {j: (p[item].value if item in p else None) for j, p in primaries.items()}
        scored = [v for v in values.values() if v is not None]
        found.append(
            {
                "answers": item[0][0],
                "sample_id": item[0][1],
                "epoch": item[0][2],
                "criterion": item[1],
                "score": combine(scored) if scored else None,
                "judges_scored": len(scored),
                "values": values,
            }
        )
    return _PANEL_ITEMS.validate_python(found)  # validated in one call: faster than one model at a time


def _spread(item: PanelItem) -> float:
    scored = [v for v in item.values.values() if v is not None]
    return max(scored) - min(scored)


def panel_summary(
    task: str,
    role: str,
    primaries: Mapping[str, Mapping[Item, Verdict]],
    candidates: Mapping[str, str],
    aggregate: str = "mean",
) -> tuple[PanelSummary, list[PanelItem]]:
    """The panel of a task and role: its items, and per candidate the panel's and each judge's mean,
    with the items the judges disagree on most."""
    items = panel_items(primaries, aggregate)
    judges = sorted(primaries)
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        who = candidates.get(item.answers, item.answers)
        if item.score is not None:
            per[who]["panel"].append(item.score)
        for judge, value in item.values.items():
            if value is not None:
                per[who][judge].append(value)
    # the first of them sorted by spread (then answers and sample), without sorting them all
    spread = heapq.nsmallest(
        TOP_DISAGREEMENTS,
        (i for i in items if i.judges_scored >= 2),
        key=lambda i: (-_spread(i), i.answers, i.sample_id),
    )
    summary = PanelSummary(
        task=task,
        role=role,
        judges=judges,
        aggregate=aggregate,
        n_items=len(items),
        n_unscored=sum(i.judges_scored == 0 for i in items),
        n_partial=sum(0 < i.judges_scored < len(judges) for i in items),
        candidates={
            who: {
                name: (statistics.fmean(v) if v else None)
                for name, v in [("panel", means.get("panel", [])), *((j, means.get(j, [])) for j in judges)]
            }
            for who, means in sorted(per.items())
        },
        most_disagreed=[i for i in spread if len({v for v in i.values.values() if v is not None}) > 1],
    )
    return summary, items

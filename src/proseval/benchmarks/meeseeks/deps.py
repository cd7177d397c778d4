"""Dependencies between the sub-questions of one Meeseeks item.

A sub-question lists in `dep` the `point_id`s it depends on (usually a "was anything produced
at all?" gate judged by the LLM). Sub-questions are evaluated level by level (level 0 has no
dependencies, level k depends on levels < k); a sub-question any of whose dependencies failed
is not evaluated and fails with "Dependencies failed", which makes the failure transitive.

`point_id`s are not unique within an item (several items repeat `-1`), so sub-questions are
addressed by their position and a dependency on a repeated id refers to all its holders.
A dependency that is not decided (unscored judge verdict, checker error) leaves its
dependants undecided too, rather than guessing either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Gate = Literal["open", "failed", "undecided"]
GatedReason = Literal["evaluated", "dependency_failed", "dependency_undecided"]
DEPENDENCIES_FAILED = "Dependencies failed"


@dataclass(frozen=True)
class GatedResult:
    """A sub-question's result after dependency gating: 1, 0 or None (not decided)."""

    value: int | None
    reason: GatedReason


@dataclass(frozen=True)
class DependencyGraph:
    """The dependency structure of one item, by sub-question position."""

    point_ids: tuple[int, ...]
    deps: tuple[tuple[int, ...], ...]

    @classmethod
    def build(
        cls, point_ids: Sequence[int], deps: Sequence[Sequence[int] | None], where: str = "item"
    ) -> DependencyGraph:
        """Check that every dependency names an existing point_id and that there is no cycle."""
        if len(point_ids) != len(deps):
            raise ValueError(f"{where}: {len(point_ids)} point_ids but {len(deps)} dep lists")
        graph = cls(tuple(point_ids), tuple(tuple(d or ()) for d in deps))
        known = set(graph.point_ids)
        for position, dep in enumerate(graph.deps):
            missing = [d for d in dep if d not in known]
            if missing:
                raise ValueError(f"{where}, sub-question {position}: depends on unknown point_id(s) {missing}")
        graph.levels(where)
        return graph

    def holders(self, point_id: int) -> list[int]:
        """Positions of the sub-questions carrying `point_id`."""
        return [i for i, pid in enumerate(self.point_ids) if pid == point_id]

    def levels(self, where: str = "item") -> list[int]:
        """Level of each sub-question: 0 without dependencies, else 1 + the deepest dependency."""
        memo: dict[int, int] = {}
        visiting: set[int] = set()

        def level(position: int) -> int:
            if position in memo:
                return memo[position]
            if position in visiting:
                raise ValueError(f"{where}, sub-question {position}: dependency cycle")
            visiting.add(position)
            below = [level(h) for d in self.deps[position] for h in self.holders(d)]
            visiting.discard(position)
            memo[position] = 1 + max(below) if below else 0
            return memo[position]

        return [level(i) for i in range(len(self.point_ids))]

    def waves(self) -> list[list[int]]:
        """Positions grouped by level, lowest level first: the evaluation order."""
        levels = self.levels()
        return [[i for i, lv in enumerate(levels) if lv == wanted] for wanted in range(max(levels, default=-1) + 1)]

    def gate(self, position: int, values: Sequence[int | None]) -> Gate:
        """Whether sub-question `position` may be evaluated, given its dependencies' values."""
        dep_values = [values[h] for d in self.deps[position] for h in self.holders(d)]
        if any(v == 0 for v in dep_values):
            return "failed"
        if any(v is None for v in dep_values):
            return "undecided"
        return "open"


def apply_dependencies(graph: DependencyGraph, own_results: Sequence[int | None]) -> list[GatedResult]:
    """Gate the results each sub-question would have on its own (1, 0 or None)."""
    if len(own_results) != len(graph.point_ids):
        raise ValueError(f"{len(own_results)} results for {len(graph.point_ids)} sub-questions")
    values: list[int | None] = [None] * len(own_results)
    gated: list[GatedResult | None] = [None] * len(own_results)
    for wave in graph.waves():
        for position in wave:
            gate = graph.gate(position, values)
            if gate == "failed":
                result = GatedResult(0, "dependency_failed")
            elif gate == "undecided":
                result = GatedResult(None, "dependency_undecided")
            else:
                result = GatedResult(own_results[position], "evaluated")
            values[position] = result.value
            gated[position] = result
    return [g for g in gated if g is not None]

"""The verdicts of one task and role, arranged per judge: which run is a judge's first on some answers
(its verdicts are the judge's), which are its repeats, which are judged with the order swapped."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from ..core.ratings import Scale
from .collect import AnswerKey, JudgedRun, Verdict

Item = tuple[AnswerKey, str]  # (answer, criterion)
Group = tuple[str, str]  # (task, role)


class VerdictTable:
    """The verdicts of one (task, role): per judge, per answer set, the runs in start order."""

    def __init__(self, runs: Mapping[int, JudgedRun], verdicts: Iterable[Verdict]):
        self.runs = runs
        self.by_run: dict[int, dict[Item, Verdict]] = defaultdict(dict)
        for verdict in verdicts:
            self.by_run[verdict.run][(verdict.answer, verdict.criterion)] = verdict
        self.judges: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        role = next(iter(verdicts_roles(self.by_run)), "judge")
        # Runs judged with the order swapped are the position probe: kept apart, never a repeat.
        self.swapped: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for index in sorted(self.by_run, key=lambda i: (runs[i].header.started_at, i)):
            run = runs[index]
            (self.swapped if run.swapped else self.judges)[run.judges.get(role, "?")][run.answers].append(index)

    def primary(self, judge: str) -> dict[Item, Verdict]:
        """The judge's first verdict on each item."""
        chosen: dict[Item, Verdict] = {}
        for indices in self.judges[judge].values():
            chosen.update(self.by_run[indices[0]])
        return chosen

    def scale(self) -> Scale | None:
        return next((v.scale for verdicts in self.by_run.values() for v in verdicts.values()), None)


def verdicts_roles(by_run: Mapping[int, Mapping[Item, Verdict]]) -> list[str]:
    return sorted({v.role for verdicts in by_run.values() for v in verdicts.values()})


def values_of(primary: Mapping[Item, Verdict], items: Sequence[Item]) -> list[float | None]:
    """The judge's verdict on each of `items` (None where it gave none or it did not score)."""
    return [None if (verdict := primary.get(i)) is None else verdict.value for i in items]

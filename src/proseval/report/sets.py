"""The report of an evaluation set (`report.html` in its folder): every member with its state, and
the usage and spend of every member, its run finished or not.

A member's run is in the report (leaderboard, samples) once it has `results.json`, finished or not
(an unfinished one is shown, not ranked). Every member, with a run or without (not started, failed,
killed), has a row in the members table (its state, samples and reason, as the terminal shows them)
and in the usage table, whose figures are the member's usage (`runtime.usage.folder_usage`: a
finished run's `results.json`, else what its sessions recorded) and whose total is over every
member: the set's whole recorded spend.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..runtime.runlog import RunFolder, RunFolderError
from .runs import ReportRun


@dataclass(frozen=True)
class SetMember:
    """One member of a set, as its report shows it."""

    name: str
    task: str
    model: str
    state: str  # done, skipped, resumed, partial, failed, stopped (`runtime.sets.State`)
    reason: str | None
    samples: dict[str, Any] | None  # finished, total, failed (set.json's)
    usage: dict[str, Any] | None  # requests, tokens, cost, currency (`runtime.usage`)
    run: ReportRun | None  # its run in the report, when it has results.json


def _run(path: Path, index: int) -> ReportRun | None:
    """The member's run folder opened for the report, when it has results (finished or not)."""
    folder = RunFolder(path)
    try:
        if not folder.exists() or not folder.has_results:
            return None
        return ReportRun(index, folder.path, folder.read_header(), folder.read_results(), folder.unique_scored()[0])
    except RunFolderError:  # damaged: the member is still listed, without its run
        return None


def set_members(result: Any) -> list[SetMember]:
    """Every member of a set's result (`runtime.sets.SetResult`), in the set's order, each with its
    run when it has results; the runs are numbered in that order."""
    members: list[SetMember] = []
    for member in result.members:
        info = member.summary()
        run = _run(member.path, sum(m.run is not None for m in members))
        members.append(
            SetMember(
                member.name, member.task, member.model, member.state, member.reason, info["samples"], info["usage"], run
            )
        )
    return members


def write_set_report(result: Any, output: Path, title: str) -> int:
    """Write the set's report to `output`; returns its size in bytes."""
    from .html import ReportOptions, write_report

    members = set_members(result)
    runs = [m.run for m in members if m.run is not None]
    return write_report(runs, output, ReportOptions(title=title), members=members)

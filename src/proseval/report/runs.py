"""Run folders opened for a report: header, results, the light per-sample view and the records with texts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..runtime.records import Results, RunHeader, SampleRecord, ScoredSample
from ..runtime.runlog import RunFolder, RunFolderError


@dataclass(frozen=True)
class ReportRun:
    """One finished run folder: `index` is its position in the report (used in anchors)."""

    index: int
    path: Path
    header: RunHeader
    results: Results
    samples: list[ScoredSample]

    @property
    def model(self) -> str:
        """The model under evaluation: the candidate, else the first role (an agent's policy)."""
        roles = self.header.roles
        binding = roles.get("candidate") or next(iter(roles.values()), None)
        return binding.spec if binding is not None else "?"

    @property
    def other_roles(self) -> str:
        main = "candidate" if "candidate" in self.header.roles else next(iter(self.header.roles), None)
        return ", ".join(f"{role}={b.spec}" for role, b in self.header.roles.items() if role != main)

    def records(self, keys: set[tuple[str, int]]) -> Iterator[SampleRecord]:
        """The records of the given (id, epoch) keys with their texts, one per key (the kept one)."""
        chosen: dict[tuple[str, int], SampleRecord] = {}
        for record in RunFolder(self.path).iter_records():
            key = (record.id, record.epoch)
            if key not in keys:
                continue
            previous = chosen.get(key)
            if previous is not None and previous.status == "ok" and record.status != "ok":
                continue  # the rule of RunFolder.unique_scored: a finished record beats a failed one
            chosen[key] = record
        return iter(chosen.values())


def open_runs(paths: Iterable[Path]) -> list[ReportRun]:
    """Read each run folder; raises RunFolderError naming the folder that is not a finished run."""
    runs = []
    for index, path in enumerate(paths):
        folder = RunFolder(path)
        header = folder.read_header()
        if not (folder.path / "results.json").is_file():
            raise RunFolderError(
                f"{path} has no results.json yet (unfinished run? finish it with: proseval resume {path})"
            )
        runs.append(ReportRun(index, folder.path, header, folder.read_results(), folder.unique_scored()[0]))
    return runs


def metric_names(runs: Sequence[ReportRun]) -> list[str]:
    """Every metric of the runs' results, in the order first seen, the tasks' headlines first."""
    names: list[str] = []
    for run in runs:
        names += [m for m in run.results.metrics if m not in names]
    headlines = [run.results.headline for run in runs if run.results.headline in names]
    return list(dict.fromkeys(headlines)) + [m for m in names if m not in headlines]

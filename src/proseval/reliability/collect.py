"""Run folders read as judgements: who judged which stored answers, and every verdict they gave.

Runs are grouped by the answers they judged: a run that generated its answers judged its own; a
re-score (`proseval score`) judged the answers of the run it was made from (`rescored_from`),
so a run and its re-scores with other judges, or with the same judge again, judge the same items.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.closeness import count_words
from ..core.ratings import Scale
from ..core.task import Task
from ..registry import get_task
from ..runtime.records import RunHeader, SampleRecord
from ..runtime.runlog import RunFolder, RunFolderError

# An answer: (the run that wrote it, sample id, epoch).
AnswerKey = tuple[str, str, int]


@dataclass(frozen=True)
class JudgedRun:
    """One run folder as a judgement: which answers it judged, and with which judges."""

    index: int
    path: Path
    header: RunHeader
    answers: str  # the run id of the run whose stored answers were judged
    candidate: str  # the model that wrote those answers
    judges: dict[str, str]  # role -> the judge's label (its binding, and its prompts if replaced)
    roles_usage: dict[str, dict]  # role -> requests, tokens and latency from results.json
    swapped: bool = False  # judged with the texts of each judge prompt in the other order

    @property
    def run_id(self) -> str:
        return self.header.run_id


@dataclass(frozen=True)
class Verdict:
    """One rating of one run: the item is (answer, criterion)."""

    run: int  # JudgedRun.index
    answer: AnswerKey
    criterion: str
    role: str
    value: float | None
    scale: Scale
    slices: tuple[tuple[str, str], ...] = ()


@dataclass
class Judgements:
    runs: list[JudgedRun]
    verdicts: list[Verdict]
    lengths: dict[AnswerKey, int] = field(default_factory=dict)  # words of each judged answer
    no_ratings: list[str] = field(default_factory=list)  # tasks that declare no judged verdicts


def _source(header: RunHeader, folder: Path) -> tuple[str, str]:
    """The run id and candidate of the answers a run judged (following re-scores of re-scores).
    A source folder that was moved is looked for beside the run; if gone, its name stands in."""
    seen: set[Path] = set()
    while header.rescored_from:
        given = Path(header.rescored_from)
        source = next((p for p in (given, folder.parent / given.name) if (p / "header.json").is_file()), None)
        if source is None or source.resolve() in seen:
            return given.name, "?"
        seen.add(source.resolve())
        header, folder = RunFolder(source).read_header(), source
    binding = header.roles.get("candidate")
    return header.run_id, binding.spec if binding is not None else "?"


def _prompts_tag(header: RunHeader) -> str:
    """A short tag of the prompts a run used when any was replaced ('' with the built-in ones)."""
    replaced = sorted((name, info.sha256) for name, info in header.prompts.items() if info.source != "builtin")
    if not replaced:
        return ""
    return hashlib.sha256(repr(replaced).encode()).hexdigest()[:6]


def judge_labels(header: RunHeader, roles: Iterable[str]) -> dict[str, str]:
    tag = _prompts_tag(header)
    return {role: header.roles[role].spec + (f" (prompts #{tag})" if tag else "")
            for role in roles if role in header.roles}


def _records(folder: RunFolder) -> list[SampleRecord]:
    """One record per (sample, epoch): a finished one beats a failed one, the later among equals."""
    chosen: dict[tuple[str, int], SampleRecord] = {}
    for record in folder.iter_records():
        key = (record.id, record.epoch)
        previous = chosen.get(key)
        if previous is not None and previous.status == "ok" and record.status != "ok":
            continue
        chosen[key] = record
    return list(chosen.values())


def collect(paths: Sequence[Path]) -> Judgements:
    """Read every run folder's verdicts through its task's `ratings`; raises RunFolderError naming a
    folder that is not a run."""
    tasks: dict[tuple[str, str], Task] = {}
    found = Judgements(runs=[], verdicts=[])
    for index, path in enumerate(paths):
        folder = RunFolder(path)
        header = folder.read_header()
        key = (header.task, repr(sorted(header.task_params.items())))
        if key not in tasks:
            tasks[key] = get_task(header.task, header.task_params)
        task = tasks[key]
        if task.ratings is None:
            if header.task not in found.no_ratings:
                found.no_ratings.append(header.task)
            continue
        answers, candidate = _source(header, folder.path)
        usage = folder.read_results().roles if folder.has_results else {}
        run_verdicts: list[Verdict] = []
        for record in _records(folder):
            if record.status != "ok":
                continue  # no answer to judge: the candidate's failure, counted by the run itself
            answer = (answers, record.id, record.epoch)
            slices = tuple((k, str(record.metadata[k])) for k in task.slice_keys if k in record.metadata)
            if record.state is not None and answer not in found.lengths:
                found.lengths[answer] = count_words(record.state.output)
            run_verdicts += [Verdict(index, answer, r.criterion, r.role, r.value, r.scale, slices)
                             for r in task.ratings(record.scores)]
        roles = sorted({v.role for v in run_verdicts})
        swapped = task.swap_param is not None and header.task_params.get(task.swap_param) == "swapped"
        found.runs.append(JudgedRun(index, folder.path, header, answers, candidate, judge_labels(header, roles),
                                    usage, swapped))
        found.verdicts += run_verdicts
    if not found.runs and paths:
        raise RunFolderError(f"none of the runs has judged verdicts to compare (task(s) "
                             f"{', '.join(found.no_ratings)} declare none)")
    return found

"""Run folders read as judgements: who judged which stored answers, and every verdict they gave.

Runs are grouped by the answers they judged: a run that generated its answers judged its own; a
re-score (`proseval score`) judged the answers of the run it was made from (`rescored_from`),
so a run and its re-scores with other judges, or with the same judge again, judge the same items.

A run records its verdicts (each finished record's `ratings`, described by the header's
`ratings`), so reading them needs neither the task nor its data. A run made before they were
recorded is read through its task's `ratings`: its task is built again, from `data_dir` where
its data moved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.closeness import count_words
from ..core.ratings import Rating, Scale
from ..errors import DataError, ProsevalError
from ..registry import get_entry, get_task
from ..runtime.cache import canonical_json
from ..runtime.provenance import ratings_info
from ..runtime.records import RatingsInfo, RunHeader, SampleRecord
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
    identity: str  # the same judging of the same answers: see `judging_identity`
    replies: str  # SHA-256 of every reply of the run's judges, with the sample and turn it answered
    replayed: bool  # every judge reply came from the response cache
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
    """Each role's judge: its model (and a tag of its prompts if replaced). A role the run did not
    bind apart ran on the candidate's model (RAVEL's reviewer tool, unless ``--role reviewer=...``)."""
    tag = _prompts_tag(header)
    return {
        role: binding.spec + (f" (prompts #{tag})" if tag else "")
        for role in roles
        if (binding := header.roles.get(role) or header.roles.get("candidate")) is not None
    }


def judging_identity(header: RunHeader, answers: str, roles: Iterable[str]) -> str:
    """What makes two runs the same judging: the answers, the task and its parameters (but where its
    data lies), each judging role's model, settings and prompts, the seed and the repeat number."""
    params = {k: v for k, v in header.task_params.items() if k != "data_dir"}
    judges = {
        role: {"spec": header.roles[role].spec, "config": header.roles[role].config.model_dump(mode="json")}
        for role in sorted(roles)
        if role in header.roles
    }
    return canonical_json(
        {
            "answers": answers,
            "task": header.task,
            "version": header.task_version,
            "params": params,
            "judges": judges,
            "prompts": _prompts_tag(header),
            "seed": header.seed,
            "repeat": header.repeat,
        }
    )


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


ReadRatings = Callable[[SampleRecord], list[Rating]]


def _recorded(record: SampleRecord) -> list[Rating]:
    return record.ratings or []


class _Rebuilt:
    """Runs made before verdicts were recorded: their tasks built again (once per task and
    parameters), with `data_dir` in place of the recorded data folder when given."""

    def __init__(self, data_dir: Path | None):
        self.data_dir = data_dir
        self.built: dict[str, tuple[RatingsInfo, ReadRatings]] = {}

    def reader(self, header: RunHeader, path: Path) -> tuple[RatingsInfo, ReadRatings]:
        params = dict(header.task_params)
        key = canonical_json([header.task, params])
        if key not in self.built:
            try:
                if self.data_dir is not None and "data_dir" in get_entry(header.task).params.model_fields:
                    params["data_dir"] = str(self.data_dir)
                task = get_task(header.task, params)
            except (ProsevalError, ValueError, OSError) as exc:
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise DataError(
                    f"{path}: made before runs recorded their judges' verdicts, so its task "
                    f"{header.task} is built again to read them, which failed: {reason}. Give the "
                    "benchmark's data folder with --data-dir PATH (proseval agreement)"
                ) from None
            ratings = task.ratings
            self.built[key] = ratings_info(task), lambda record: ratings(record.scores) if ratings else []
        return self.built[key]


def _replies(records: Sequence[SampleRecord]) -> tuple[str, bool]:
    """The digest of the judges' replies of these records, and whether every one was a cache replay.
    A sample's calls are taken in a fixed order, not the order they finished in: a re-score that
    replays the same replies has the same digest however its requests raced."""
    digest = hashlib.sha256()
    calls = 0
    cached = True
    for record in sorted(records, key=lambda r: (r.id, r.epoch)):
        for line in sorted(
            canonical_json([record.id, record.epoch, call.role, call.turn, call.text, call.error])
            for call in record.calls
        ):
            digest.update(line.encode())
        calls += len(record.calls)
        cached = cached and all(call.cached for call in record.calls)
    return digest.hexdigest(), calls > 0 and cached


def _read_run(
    index: int,
    folder: RunFolder,
    header: RunHeader,
    info: RatingsInfo,
    read: ReadRatings,
    lengths: dict[AnswerKey, int],
) -> tuple[JudgedRun, list[Verdict]]:
    """One run's verdicts (the words of each answer not seen yet go into `lengths`)."""
    answers, candidate = _source(header, folder.path)

    def own(role: str) -> bool:
        """A re-score judged with the roles it bound; verdicts of other roles (RAVEL's reviewer,
        recomputed from the stored episode) were given in the run it re-scored, and count there."""
        return header.rescored_from is None or role in header.roles

    usage = folder.read_results().roles if folder.has_results else {}
    records = [r for r in _records(folder) if r.status == "ok"]  # a failed one has no answer to judge
    verdicts: list[Verdict] = []
    scales: dict[Scale, Scale] = {}  # one object per scale, not one per verdict read from the records
    for record in records:
        answer = (answers, record.id, record.epoch)
        slices = tuple((k, str(record.metadata[k])) for k in info.slice_keys if k in record.metadata)
        if record.state is not None and answer not in lengths:
            lengths[answer] = count_words(record.state.output)
        verdicts += [
            Verdict(index, answer, r.criterion, r.role, r.value, scales.setdefault(r.scale, r.scale), slices)
            for r in read(record)
            if own(r.role)
        ]
    roles = sorted({v.role for v in verdicts})
    replies, replayed = _replies(records)
    run = JudgedRun(
        index,
        folder.path,
        header,
        answers,
        candidate,
        judge_labels(header, roles),
        usage,
        identity=judging_identity(header, answers, roles),
        replies=replies,
        replayed=replayed,
        swapped=info.swapped,
    )
    return run, verdicts


def collect(paths: Sequence[Path], *, data_dir: Path | None = None) -> Judgements:
    """Read every run folder's verdicts (see the module docstring); raises RunFolderError naming a
    folder that is not a run, DataError naming a run whose task cannot be built again."""
    rebuilt = _Rebuilt(data_dir)
    found = Judgements(runs=[], verdicts=[])
    for index, path in enumerate(paths):
        folder = RunFolder(path)
        header = folder.read_header()
        info, read = (header.ratings, _recorded) if header.ratings is not None else rebuilt.reader(header, folder.path)
        if not info.recorded:
            if header.task not in found.no_ratings:
                found.no_ratings.append(header.task)
            continue
        run, verdicts = _read_run(index, folder, header, info, read, found.lengths)
        found.runs.append(run)
        found.verdicts += verdicts
    if not found.runs and paths:
        raise RunFolderError(
            f"none of the runs has judged verdicts to compare (task(s) {', '.join(found.no_ratings)} declare none)"
        )
    return found

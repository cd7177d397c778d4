"""The viewer's labelling mode (`proseval view RUNS --label SESSION`): people rate answers blind.

A **session** is a plan of items made once, from the run folders under RUNS, and kept in
``SESSION.plan.json`` beside the labels file: the items in a random order drawn from a recorded
seed, and for each pair which answer is shown as A. Every rater works through the same order (or,
a plan made with the order ``shuffled``, an order of their own drawn from the seed and their name);
continuing is opening the first item in that order this rater has not labelled yet.

Items (the plan holds run ids; pages name an item only by its position in the plan):

- **score**: one answer of one run, scored on each criterion of the task's labelling form;
- **pair**: the answers of two runs of the same task to the same sample (and epoch), shown
  side by side as A and B (sides drawn per item from the seed), a preference (A, B or tie) per
  criterion;
- **compare**: a record that holds two texts to compare instead of one answer (`LabelForm.texts`,
  Revision Distance's chosen and rejected): the two texts on random sides, the choice recorded
  as a score on each criterion (high: the first text, low: the second, the middle: a tie).

What a rater is asked comes from the task's ``labelling`` hook (`core.views.LabelForm`); a task
without one gets a default form: the first verdict its `ratings` read from the record (its
criterion and scale), else one criterion ``overall`` scored 1-10. Each save appends the item's
labels as one record to the labels file (`reliability.labels`: the format `proseval agreement
--labels` reads; `labelstore`: the index kept in memory), never to a run folder.

A session's raters (`raters`) each have a secret key, from a link of their own or from joining
an open session under a new name: the server knows the rater by it, so no one sees or saves
another's labels. Writing is guarded beyond what the
viewer already requires (the token, on a host other than loopback): a form carries a secret of the
server process bound to the rater's name, and a POST whose ``Sec-Fetch-Site`` is not
``same-origin`` or whose ``Origin`` is not this server is refused (403), so no other site can
submit a label through a rater's browser; a form too large is refused before it is read (413).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import re
import secrets
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from itertools import combinations
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from ..core.views import LabelCriterion, LabelForm
from ..registry import get_task, tasks
from ..errors import DataError
from ..reliability.labels import Label, check_labels_file
from ..runtime.records import RunHeader, SampleRecord
from ..runtime.runlog import SAMPLES, RunFolder, RunFolderError
from .index import IndexCache
from .labelstore import LabelStore
from .raters import Raters
from .runs import find_runs, pretty

__all__ = ["LabelOptions", "LabellingError", "Plan", "PlanItem", "check_rater", "check_session", "install_labelling",
           "label_address", "plan_items", "rater_links"]

ITEM_KINDS = ("all", "scores", "pairs")
ORDERS = ("plan", "shuffled")
SESSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
PLAN_FORMAT = 1
MAX_BODY = 256 * 1024
LOAD_TOKEN = re.compile(r"[0-9a-f]{16}")  # drawn for each form shown, recorded with its save
MAX_COMMENT = 5000
MAX_POINTS = 11  # a scale of more points is a number field instead of buttons
DEFAULT_CRITERION = LabelCriterion("overall", "The answer as a whole: how well it does what the task asks.", 1, 10)


class LabellingError(ValueError):
    """A session that cannot be opened (bad name, a plan made with another seed, nothing to label)."""


def check_session(name: str) -> str:
    """A session name: letters, digits, ``.``, ``_`` and ``-``, at most 64, not starting with a dot."""
    if not SESSION_NAME.match(name):
        raise LabellingError(f"session name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-', "
                             "starting with a letter or digit")
    return name


def check_rater(name: str) -> str:
    """A rater's name as the labels format takes it (stripped; printable; at most 100 characters)."""
    try:
        return Label(sample_id="-", criterion="-", rater=name, score=0).rater
    except ValidationError as exc:
        problems = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
        raise LabellingError(f"rater name: {problems}") from None


@dataclass(frozen=True)
class LabelOptions:
    """What `proseval view --label` asks for: the session, raters to give a link of their own (see
    `raters`), the labels file (default ``RUNS/labels/SESSION.jsonl``), the seed of a new plan, which
    items it holds and whether the viewer serves the labelling pages only (no run pages and no
    agreement page: for raters)."""

    session: str
    raters: tuple[str, ...] = ()
    labels_file: Path | None = None
    seed: int | None = None
    items: str = "all"
    only: bool = False
    order: str | None = None  # a new session's order for each rater (`ORDERS`; default "plan")

    def __post_init__(self) -> None:
        check_session(self.session)
        object.__setattr__(self, "raters", tuple(check_rater(name) for name in self.raters))
        if self.items not in ITEM_KINDS:
            raise LabellingError(f"items must be one of {', '.join(ITEM_KINDS)}, not {self.items!r}")
        if self.order is not None and self.order not in ORDERS:
            raise LabellingError(f"order must be one of {', '.join(ORDERS)}, not {self.order!r}")
        if self.labels_file is not None and Path(self.labels_file).suffix.lower() not in (".jsonl", ".ndjson"):
            raise LabellingError(f"{self.labels_file}: labels are appended to a JSON Lines file (.jsonl or .ndjson)")

    def labels_path(self, root: Path) -> Path:
        if self.labels_file is not None:
            return Path(self.labels_file)
        base = root.parent if (root / "header.json").is_file() else root  # RUNS is one run folder: beside it
        return base / "labels" / f"{self.session}.jsonl"


# the plan --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlanItem:
    """One thing to label. `runs` are run ids: one, or the two of a pair in sorted order; `flipped`
    shows the second run's answer (a pair) or the record's second text (a compare) as A."""

    kind: str  # "score", "pair" or "compare"
    task: str
    sample_id: str
    epoch: int
    runs: tuple[str, ...]
    flipped: bool = False

    def sort_key(self) -> tuple:
        return (self.kind, self.task, self.sample_id, self.epoch, self.runs)

    def signature(self) -> tuple:
        """What the labels of this item have in common (see `labelstore.signature`)."""
        if self.kind == "pair":
            return ("pair", self.runs, self.sample_id, self.epoch)
        return ("run", self.runs[0], self.sample_id, self.epoch)

    @property
    def sides(self) -> tuple[str, str]:
        """The runs shown as A and as B (a pair)."""
        return (self.runs[1], self.runs[0]) if self.flipped else (self.runs[0], self.runs[1])

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "task": self.task, "id": self.sample_id, "epoch": self.epoch,
                "runs": list(self.runs), "flipped": self.flipped}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlanItem:
        return cls(str(data["kind"]), str(data["task"]), str(data["id"]), int(data["epoch"]),
                   tuple(str(r) for r in data["runs"]), bool(data.get("flipped", False)))


@dataclass(frozen=True)
class RunSource:
    """What the plan needs of one run: its answered (sample id, epoch) keys and its form's shape."""

    run_id: str
    task: str
    keys: list[tuple[str, int]]
    compare: bool = False  # its records hold two texts to compare (LabelForm.texts)
    pairable: bool = True  # its answers may be paired with another run's (LabelForm.pairwise, a paired criterion)


def plan_items(sources: Iterable[RunSource], seed: int, kinds: str = "all") -> list[PlanItem]:
    """Every item of `sources` in the order the seed draws, each with its sides drawn: the same
    sources and seed give the same plan."""
    sources = sorted(sources, key=lambda s: s.run_id)
    items: list[PlanItem] = []
    together: dict[tuple[str, str, int], set[str]] = defaultdict(set)
    for source in sources:
        for sample_id, epoch in source.keys:
            if source.compare:
                items.append(PlanItem("compare", source.task, sample_id, epoch, (source.run_id,)))
                continue
            if kinds != "pairs":
                items.append(PlanItem("score", source.task, sample_id, epoch, (source.run_id,)))
            if source.pairable:
                together[source.task, sample_id, epoch].add(source.run_id)
    if kinds != "scores":
        for (task, sample_id, epoch), runs in together.items():
            items += [PlanItem("pair", task, sample_id, epoch, pair) for pair in combinations(sorted(runs), 2)]
    items.sort(key=PlanItem.sort_key)
    draw = random.Random(seed)
    items = [replace(item, flipped=draw.random() < 0.5) if item.kind != "score" else item for item in items]
    draw.shuffle(items)
    return items


@dataclass
class Plan:
    session: str
    seed: int
    created_at: str
    kinds: str
    runs: dict[str, str]  # run id -> folder name of every run seen when planning (re-scores too)
    items: list[PlanItem]
    order: str = "plan"  # "shuffled": each rater's own order, drawn from the seed and their name

    def to_json(self) -> dict[str, Any]:
        return {"format": PLAN_FORMAT, "session": self.session, "seed": self.seed, "created_at": self.created_at,
                "items_kind": self.kinds, "order": self.order, "runs": self.runs,
                "items": [item.to_json() for item in self.items]}

    def order_of(self, rater: str) -> list[int]:
        """The positions in the order `rater` works through them."""
        positions = list(range(1, len(self.items) + 1))
        if self.order == "shuffled":
            random.Random(f"{self.seed}\n{rater}").shuffle(positions)
        return positions

    @classmethod
    def read(cls, path: Path) -> Plan:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != PLAN_FORMAT:
                raise ValueError(f"unknown plan format {data.get('format')!r}")
            return cls(str(data["session"]), int(data["seed"]), str(data["created_at"]), str(data["items_kind"]),
                       {str(k): str(v) for k, v in data["runs"].items()},
                       [PlanItem.from_json(item) for item in data["items"]], str(data.get("order", "plan")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise LabellingError(f"{path}: not a readable labelling plan ({exc}); move it away to plan the "
                                 "session afresh") from None

    def write(self, path: Path) -> Plan:
        """Write the plan unless one is there already (another process was quicker): return the one kept."""
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        temporary.write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        try:
            os.link(temporary, path)  # fails if the plan exists: never replace a plan raters work through
        except FileExistsError:
            return Plan.read(path)
        finally:
            temporary.unlink(missing_ok=True)
        return self


# runs, records and forms ------------------------------------------------------------------------
@dataclass(frozen=True)
class FoundRun:
    run_id: str
    name: str
    path: Path
    header: RunHeader


def _scan_runs(root: Path) -> dict[str, FoundRun]:
    found: dict[str, FoundRun] = {}
    for name, path in find_runs(root).items():
        try:
            header = RunFolder(path).read_header()
        except RunFolderError:
            continue
        found.setdefault(header.run_id, FoundRun(header.run_id, name, path, header))
    return found


def _duplicates(runs: dict[str, FoundRun]) -> set[str]:
    """Re-scores whose source run is among `runs`: their answers are that run's, labelled once."""
    names = {run.name for run in runs.values()}
    paths = {run.path.resolve() for run in runs.values()}
    out = set()
    for run in runs.values():
        source = run.header.rescored_from
        if source and (Path(source).name in names or _resolved(Path(source)) in paths):
            out.add(run.run_id)
    return out


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except OSError:
        return None


class Records:
    """The record of each (sample id, epoch) of a run: a finished one before a failed one, then the
    later one (as the run's results count them); read through the viewer's line index."""

    def __init__(self) -> None:
        self.cache = IndexCache()
        self._lines: dict[Path, tuple[int, dict[tuple[str, int], int]]] = {}
        self._lock = threading.Lock()

    def lines(self, path: Path) -> dict[tuple[str, int], int]:
        """(sample id, epoch) -> line (0-based) of the finished records only."""
        index = self.cache.get(path / SAMPLES)
        summaries = index.summary_list()
        with self._lock:
            known = self._lines.get(path)
            if known is not None and known[0] == len(summaries):
                return known[1]
        chosen: dict[tuple[str, int], int] = {}
        for number, summary in enumerate(summaries):
            key = (summary.id, summary.epoch)
            previous = chosen.get(key)
            if previous is not None and summaries[previous].status != "failed" and summary.status == "failed":
                continue
            chosen[key] = number
        kept = {key: n for key, n in chosen.items() if summaries[n].status != "failed"}
        with self._lock:
            self._lines[path] = (len(summaries), kept)
        return kept

    def record(self, path: Path, sample_id: str, epoch: int) -> dict[str, Any] | None:
        line = self.lines(path).get((sample_id, epoch))
        if line is None:
            return None
        return self.cache.get(path / SAMPLES).read_one(line)


class Forms:
    """The labelling form of a record: the task's hook, else the default (see the module docstring)."""

    def __init__(self) -> None:
        self._tasks: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def of(self, header: RunHeader, record: dict[str, Any]) -> LabelForm:
        entry = tasks().get(header.task)
        if entry is not None and entry.labelling is not None:
            form = entry.labelling(record)
            if not isinstance(form, LabelForm):
                raise TypeError(f"the labelling hook of task {header.task} returned {type(form).__name__}, "
                                "not a LabelForm")
            if not form.criteria:
                form = replace(form, criteria=[self.default_criterion(header, record)])
        else:
            form = LabelForm(question=pretty(record.get("input")), criteria=[self.default_criterion(header, record)])
        _check_form(header.task, form)
        return form

    def default_criterion(self, header: RunHeader, record: dict[str, Any]) -> LabelCriterion:
        """The first verdict the task's `ratings` read from this record, on its scale, when the scale
        is whole numbers; else `DEFAULT_CRITERION`."""
        key = (header.task, json.dumps(header.task_params, sort_keys=True, default=str))
        with self._lock:
            if key not in self._tasks:
                try:
                    self._tasks[key] = get_task(header.task, header.task_params)
                except Exception:  # noqa: BLE001 - a task that cannot be built here (its data missing): the default
                    self._tasks[key] = None
            task = self._tasks[key]
        if task is None or task.ratings is None:
            return DEFAULT_CRITERION
        try:
            ratings = task.ratings(SampleRecord.model_validate(record).scores)
        except Exception:  # noqa: BLE001 - a record its task cannot read: the default
            return DEFAULT_CRITERION
        if not ratings:
            return DEFAULT_CRITERION
        first = ratings[0]
        low, high = first.scale.low, first.scale.high
        if not (float(low).is_integer() and float(high).is_integer()):
            return DEFAULT_CRITERION
        return LabelCriterion(first.criterion, f"the judge's verdict {first.criterion!r}, "
                              f"{first.scale.describe()}", int(low), int(high))


def _check_form(task: str, form: LabelForm) -> None:
    names = [c.name for c in form.criteria]
    if len(set(names)) != len(names):
        raise ValueError(f"the labelling form of task {task} names a criterion twice: {names}")
    for criterion in form.criteria:
        if not criterion.name.strip():
            raise ValueError(f"the labelling form of task {task} has a criterion without a name")
        if not (isinstance(criterion.low, int) and isinstance(criterion.high, int) and criterion.low < criterion.high):
            raise ValueError(f"the labelling form of task {task}: criterion {criterion.name!r} needs whole "
                             f"numbers low < high (got {criterion.low!r}..{criterion.high!r})")
    if form.texts is not None and len(form.texts) != 2:
        raise ValueError(f"the labelling form of task {task}: texts must be two texts")


def _output(record: dict[str, Any]) -> str:
    state = record.get("state") or {}
    return pretty(state.get("output", ""))


# the session -----------------------------------------------------------------------------------
@dataclass
class Question:
    """One field of the form: a criterion to score, or a choice (A, B, tie) on it."""

    index: int
    criterion: LabelCriterion
    kind: str  # "score" or "choice"
    title: str
    points: list[Point] | None = None  # the buttons of a short or named scale (None: a number field)


@dataclass(frozen=True)
class Point:
    """A button of a scale: the value it records, what it shows and the letter that picks it ("":
    none; the digits pick numbered points by their value)."""

    value: int
    text: str
    key: str = ""


def scale_points(criterion: LabelCriterion) -> list[Point] | None:
    """The buttons of a criterion's scale: its named points (each picked by its name's first letter
    when those differ: y / n), else its numbers when there are at most `MAX_POINTS`, else None."""
    values = range(criterion.low, criterion.high + 1)
    names = criterion.labels
    if names:
        initials = [name[:1].lower() for name in names]
        if not all(initial.isalpha() for initial in initials) or len(set(initials)) < len(initials):
            initials = [""] * len(names)
        return [Point(value, name, key) for value, name, key in zip(values, names, initials)]
    if criterion.high - criterion.low < MAX_POINTS:
        return [Point(value, str(value)) for value in values]
    return None


@dataclass
class Shown:
    """An item as a rater sees it: no run, model or score in it."""

    item: PlanItem
    form: LabelForm
    panels: list[tuple[str, str]]
    questions: list[Question]
    previous: dict[int, str] = field(default_factory=dict)


class Session:
    def __init__(self, root: Path, options: LabelOptions) -> None:
        self.root = Path(root)
        self.options = options
        self.name = options.session
        labels = options.labels_path(self.root)
        try:  # read as `proseval agreement --labels` reads it: a malformed line is refused, not skipped
            check_labels_file(labels)
        except DataError as exc:
            raise LabellingError(str(exc)) from None
        self.store = LabelStore(labels, self.name)
        self.plan_path = self.store.path.with_name(f"{self.name}.plan.json")
        self.keys = self._open_raters()
        self.new_keys = self.keys.add(options.raters)  # shown once, in each new rater's link
        self.joinable = not options.raters  # raters not named by whoever started it: people join by name
        self.records = Records()
        self.forms = Forms()
        self.secret = secrets.token_bytes(32)
        self._runs = _scan_runs(self.root)
        self.plan = self._open_plan()
        self.positions = {item.signature(): n for n, item in enumerate(self.plan.items, start=1)}
        self._orders: dict[str, tuple[list[int], dict[int, int]]] = {}

    # planning
    def _open_plan(self) -> Plan:
        if self.plan_path.is_file():
            plan = Plan.read(self.plan_path)
            if plan.session != self.name:
                raise LabellingError(f"{self.plan_path} is the plan of session {plan.session!r}, not {self.name!r}")
            if self.options.seed is not None and self.options.seed != plan.seed:
                raise LabellingError(f"session {self.name!r} was planned with seed {plan.seed} "
                                     f"({self.plan_path}); leave --seed out to continue it, or name a new session")
            if self.options.items != "all" and self.options.items != plan.kinds:
                raise LabellingError(f"session {self.name!r} was planned with items {plan.kinds!r}; leave "
                                     "--label-items out to continue it, or name a new session")
            if self.options.order is not None and self.options.order != plan.order:
                raise LabellingError(f"session {self.name!r} was planned with order {plan.order!r}; leave "
                                     "--label-order out to continue it, or name a new session")
            return plan
        seed = self.options.seed if self.options.seed is not None else secrets.randbelow(2**31)
        duplicates = _duplicates(self._runs)
        sources = [self._source(run) for run_id, run in sorted(self._runs.items()) if run_id not in duplicates]
        items = plan_items([s for s in sources if s.keys], seed, self.options.items)
        if not items:
            raise LabellingError(f"nothing to label: no finished sample in the run folders under {self.root}")
        seen = {run_id: run.name for run_id, run in sorted(self._runs.items())}  # planned or not (re-scores)
        plan = Plan(self.name, seed, datetime.now(timezone.utc).isoformat(timespec="seconds"), self.options.items,
                    seen, items, self.options.order or "plan")
        return plan.write(self.plan_path)

    def _open_raters(self) -> Raters:
        path = self.store.path.with_name(f"{self.name}.raters.json")
        try:
            return Raters(path)
        except (OSError, ValueError, KeyError, AttributeError) as exc:
            raise LabellingError(f"{path}: not a readable raters file ({exc})") from None

    def _source(self, run: FoundRun) -> RunSource:
        lines = self.records.lines(run.path)
        keys = sorted(lines)
        compare, pairable = False, True
        if keys:
            record = self.records.record(run.path, *keys[0])
            try:
                form = self.forms.of(run.header, record or {})
                compare = form.texts is not None
                pairable = bool(form.pairwise) and any(c.paired for c in form.criteria)
            except Exception:  # noqa: BLE001 - a hook that fails is reported on the item's page
                pass
        return RunSource(run.run_id, run.header.task, keys, compare, pairable)

    # runs
    def run(self, run_id: str) -> FoundRun | None:
        found = self._runs.get(run_id)
        if found is None or not (found.path / "header.json").is_file():
            self._runs = _scan_runs(self.root)
            found = self._runs.get(run_id)
        return found

    def available(self, item: PlanItem) -> bool:
        return all(run_id in self._runs for run_id in item.runs)

    def missing_runs(self) -> list[str]:
        """Run folders seen when planning that are gone (looked for afresh)."""
        self._runs = _scan_runs(self.root)
        return sorted(self.plan.runs[r] for r in self.plan.runs if r not in self._runs)

    def unplanned_runs(self) -> list[str]:
        """Run folders that came after the plan (as of the last `missing_runs`)."""
        return sorted(run.name for run_id, run in self._runs.items() if run_id not in self.plan.runs)

    # labels
    def done(self, rater: str) -> set[int]:
        """Positions this rater has labelled in this session."""
        return {self.positions[item] for item in self.store.items(rater) if item in self.positions}

    def raters(self) -> dict[str, int]:
        return {rater: len(self.done(rater)) for rater in self.store.raters()}

    def order(self, rater: str) -> tuple[list[int], dict[int, int]]:
        """The positions in this rater's order (`Plan.order_of`), and each position's rank in it."""
        if rater not in self._orders:
            positions = self.plan.order_of(rater)
            self._orders[rater] = positions, {position: rank for rank, position in enumerate(positions)}
        return self._orders[rater]

    def next_position(self, rater: str, after: int = 0) -> int | None:
        """The first item after `after` in this rater's order they have not labelled, wrapping round
        (`after` 0: from the start); None when all are."""
        done = self.done(rater)
        positions, rank = self.order(rater)
        start = rank[after] + 1 if after else 0
        for offset in range(len(positions)):
            position = positions[(start + offset) % len(positions)]
            if position not in done and self.available(self.plan.items[position - 1]):
                return position
        return None

    def previous_position(self, rater: str, position: int) -> int | None:
        """The item before `position` in this rater's order (None: it is the first)."""
        positions, rank = self.order(rater)
        return positions[rank[position] - 1] if rank[position] else None

    def csrf(self, rater: str) -> str:
        return hmac.new(self.secret, f"{self.name}\n{rater}".encode(), hashlib.sha256).hexdigest()

    # an item
    def show(self, position: int, rater: str) -> Shown:
        item = self.plan.items[position - 1]
        records = []
        for run_id in item.runs:
            run = self.run(run_id)
            if run is None:
                raise LookupError("the run folder of this item is no longer under the viewer's folder")
            record = self.records.record(run.path, item.sample_id, item.epoch)
            if record is None:
                raise LookupError("this sample is no longer among the run's finished records")
            records.append((run, record))
        run, record = records[0]
        form = self.forms.of(run.header, record)
        if item.kind == "score":
            panels = [("Answer", _output(record))]
        elif item.kind == "pair":
            outputs = {r.run_id: _output(rec) for r, rec in records}
            a, b = item.sides
            panels = [("Answer A", outputs[a]), ("Answer B", outputs[b])]
        else:
            if form.texts is None:
                raise LookupError("this record no longer holds two texts to compare")
            first, second = (pretty(t) for t in form.texts)
            a, b = (second, first) if item.flipped else (first, second)
            panels = [("Text A", a), ("Text B", b)]
        questions = [self._question(i, c, item, form) for i, c in enumerate(form.criteria)
                     if c.paired or item.kind != "pair"]
        return Shown(item, form, panels, questions, self._previous(item, form, rater))

    @staticmethod
    def _question(index: int, criterion: LabelCriterion, item: PlanItem, form: LabelForm) -> Question:
        several = len(form.criteria) > 1
        if item.kind == "score":
            return Question(index, criterion, "score", criterion.name, scale_points(criterion))
        title = f"{form.pairwise or 'Which is better?'} — {criterion.name}" if several else (
            form.pairwise or "Which is better?")
        return Question(index, criterion, "choice", title)

    def _previous(self, item: PlanItem, form: LabelForm, rater: str) -> dict[int, str]:
        """This rater's latest answers to the item, by question (to show them checked)."""
        names = {c.name: i for i, c in enumerate(form.criteria)}
        found: dict[int, str] = {}
        for label in self.store.items(rater).get(item.signature(), ()):
            index = names.get(label.criterion)
            if index is None:
                continue
            criterion = form.criteria[index]
            if item.kind == "score" and label.score is not None:
                found[index] = f"{label.score:g}"
            elif item.kind == "pair" and label.preference is not None:
                same = (label.a, label.b) == item.sides
                found[index] = label.preference if same or label.preference == "tie" else (
                    "B" if label.preference == "A" else "A")
            elif item.kind == "compare" and label.score is not None:
                side = "tie"
                if label.score == criterion.high:
                    side = "B" if item.flipped else "A"
                elif label.score == criterion.low:
                    side = "A" if item.flipped else "B"
                found[index] = side
        return found

    def labels_of(self, shown: Shown, rater: str, values: dict[int, str], comment: str | None) -> list[Label]:
        item = shown.item
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        common = {"sample_id": item.sample_id, "epoch": item.epoch, "rater": rater, "comment": comment,
                  "labelled_at": now, "session": self.name}
        labels = []
        for question in shown.questions:
            value, criterion = values[question.index], question.criterion
            if item.kind == "score":
                labels.append(Label(run=item.runs[0], criterion=criterion.name, score=int(value), **common))
            elif item.kind == "pair":
                a, b = item.sides
                labels.append(Label(a=a, b=b, criterion=criterion.name, preference=value, **common))
            else:
                first = "B" if item.flipped else "A"  # the side the record's first text is on
                score = (criterion.low + criterion.high) / 2 if value == "tie" else (
                    criterion.high if value == first else criterion.low)
                labels.append(Label(run=item.runs[0], criterion=criterion.name, score=score, **common))
        return labels


def parse_values(shown: Shown, form: dict[str, str]) -> tuple[dict[int, str], list[str]]:
    """The answers of a submitted form, checked against each question's scale: (values, errors)."""
    values: dict[int, str] = {}
    errors: list[str] = []
    for question in shown.questions:
        raw = form.get(f"c{question.index}", "").strip()
        name = question.title
        if not raw:
            errors.append(f"{name}: no answer given" + (" (A, B or tie)" if question.kind == "choice" else ""))
            continue
        if question.kind == "choice":
            choice = {"a": "A", "b": "B", "tie": "tie", "t": "tie"}.get(raw.lower())
            if choice is None:
                errors.append(f"{name}: answer A, B or tie (got {raw[:20]!r})")
            else:
                values[question.index] = choice
            continue
        low, high = question.criterion.low, question.criterion.high
        if not re.fullmatch(r"[+-]?[0-9]{1,9}", raw):  # ASCII: int() would read ７ or ٧ as 7
            errors.append(f"{name}: a whole number from {low} to {high} (got {raw[:20]!r})")
        elif not low <= int(raw) <= high:
            errors.append(f"{name}: {int(raw)} is off the scale {low} to {high}")
        else:
            values[question.index] = str(int(raw))
    return values, errors


def cross_site(request: Request) -> str | None:
    """Why a POST is not from this viewer's own page (None: it is, as far as the browser says)."""
    fetch = request.headers.get("sec-fetch-site")
    if fetch is not None and fetch.lower() != "same-origin":
        return f"the form was sent from another site or page (Sec-Fetch-Site: {fetch})"
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "").lower()
        if origin == "null" or urlsplit(origin).netloc.lower() != host:
            return f"the form was sent from another origin ({origin}), not from {host}"
    return None


async def capped_body(request: Request) -> bytes | None:
    """The request's body, or None when it is over `MAX_BODY`: refused by its Content-Length before
    any of it is read, else (sent in chunks) read no further than the limit."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return bytes(body)


# the pages -------------------------------------------------------------------------------------
def _environment() -> Environment:
    env = Environment(loader=PackageLoader("proseval.view", "templates"), autoescape=True,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pretty"] = pretty
    return env


def install_labelling(app: FastAPI, root: Path, options: LabelOptions, token: str | None = None) -> Session:
    """Open (or plan) the session and add its pages to the viewer's app (`token`: the viewer's, put
    in the link shown to someone who joins); with `options.only`, the viewer's other pages are taken
    away."""
    session = Session(root, options)
    env = _environment()
    cookie = f"proseval_rater_{session.name}"

    def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("rater", None)
        return HTMLResponse(env.get_template(template).render(session=session, options=options, **context),
                            status_code=status)

    def problem(message: str, status: int, rater: str | None = None) -> HTMLResponse:
        return page("label_error.html", status=status, message=message, rater=rater)

    def who(request: Request, named: str | None) -> str | Response:
        """The rater asking, or the page refusing them: the rater whose key is in their cookie (put
        there by their link, or by joining); `named`, a name in the address or form, must be theirs."""
        rater = session.keys.who(request.cookies.get(cookie))
        if rater is None:
            join = ", or join from the start page (/label)" if session.joinable else ""
            return problem(f"Open your own rater's link (the one you were given){join} to label in this session.", 403)
        if named is not None and named != rater:
            return problem("Refused: each rater sees and saves their own labels only.", 403, rater)
        return rater

    def with_key(response: Response, key: str) -> Response:
        response.set_cookie(cookie, key, path="/label", httponly=True, samesite="lax")
        return response

    def join(request: Request, given: str) -> Response:
        """Let someone join an open session under a name no one has: a key of their own, in a cookie
        and in the link shown to them once."""
        total = len(session.plan.items)
        if not session.joinable:
            return page("label_start.html", status=403, total=total, default=given,
                        error="The raters of this session were named by whoever started it: "
                              "open the link you were given.")
        fetch = request.headers.get("sec-fetch-site")
        if fetch is not None and fetch.lower() in ("cross-site", "same-site"):
            return problem("Refused: a session is joined from its own start page.", 403)
        try:
            name = check_rater(given)
        except LabellingError as exc:
            return page("label_start.html", status=422, default=given, total=total, error=str(exc))
        key = None
        if name in session.store.raters() and name not in session.keys:
            error = (f"{name} has labels in this session from before raters had links of their own: whoever runs "
                     f"the session can give {name} a link (by starting the viewer with --rater {name})")
        else:
            key = session.keys.join(name)
            error = (f"the name {name} is taken: {name} comes back through their own link; anyone else, "
                     "choose another name")
        if key is None:
            return page("label_start.html", status=409, default=given, total=total, error=error)
        link = label_address(str(request.base_url) + (f"?{urlencode({'token': token})}" if token else ""), key)
        return with_key(page("label_joined.html", rater=name, link=link, total=total,
                             first=session.next_position(name)), key)

    def located(position: int, rater: str) -> Any:
        """What item `position` shows this rater, or the error page saying why it cannot be shown."""
        total = len(session.plan.items)
        if not 1 <= position <= total:
            return problem(f"there is no item {position} in session {session.name} (it has {total})", 404, rater)
        try:
            return session.show(position, rater)
        except LookupError as exc:
            return problem(f"item {position}: {exc}.", 410, rater)
        except Exception as exc:  # noqa: BLE001 - a benchmark's hook that fails: say so, on the page
            return problem(f"item {position}: the task's labelling form failed: {type(exc).__name__}: {exc}", 500,
                           rater)

    def item_page(position: int, rater: str, status: int = 200, errors: list[str] | None = None,
                  submitted: dict[str, str] | None = None) -> HTMLResponse:
        shown = located(position, rater)
        if isinstance(shown, Response):
            return shown
        total = len(session.plan.items)
        done = session.done(rater)
        chosen = dict(shown.previous)
        comment = ""
        if submitted is not None:
            chosen = {q.index: submitted.get(f"c{q.index}", "") for q in shown.questions}
            comment = submitted.get("comment", "")
        following = session.next_position(rater, position)
        return page("label_item.html", status=status, rater=rater, position=position, total=total,
                    done=len(done), labelled=position in done, shown=shown, chosen=chosen, comment=comment,
                    errors=errors or [], csrf=session.csrf(rater), loaded=secrets.token_hex(8),
                    previous=session.previous_position(rater, position),
                    following=following if following != position else None)

    def start(request: Request) -> Response:
        total = len(session.plan.items)
        key = request.query_params.get("key")
        if key is not None:  # a rater's link: the key goes in a cookie, out of the address
            if session.keys.who(key) is None:
                return problem("Refused: this is not the link of a rater of this session.", 403)
            return with_key(RedirectResponse("/label", status_code=303), key)
        rater = session.keys.who(request.cookies.get(cookie))
        given = request.query_params.get("rater")
        if given is not None and given.strip() != rater:
            return join(request, given)
        if rater is None:
            return page("label_start.html", total=total, error=None)
        position = session.next_position(rater)
        if position is None:
            return page("label_done.html", rater=rater, total=total, done=len(session.done(rater)))
        return RedirectResponse(f"/label/{position}", status_code=303)

    def show_item(position: int, request: Request) -> Response:
        rater = who(request, request.query_params.get("rater"))
        return rater if isinstance(rater, Response) else item_page(position, rater)

    async def submit(position: int, request: Request) -> Response:
        refused = cross_site(request)
        if refused is not None:
            return problem(f"Refused: {refused}. Labels are saved only from this viewer's own labelling page.", 403)
        body = await capped_body(request)
        if body is None:
            return problem(f"the form is too large (at most {MAX_BODY // 1024} KiB)", 413)
        if "application/x-www-form-urlencoded" not in request.headers.get("content-type", ""):
            return problem("the labelling form is sent as application/x-www-form-urlencoded", 415)
        try:
            form = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=200))
        except ValueError as exc:  # not UTF-8, or too many fields
            return problem(f"the form could not be read ({exc})", 400)
        given = form.get("rater", "")
        if not hmac.compare_digest(form.get("csrf", "").encode(), session.csrf(given).encode()):
            return problem("Refused: the form's check value is missing or out of date (the viewer may have been "
                           "restarted since the page was opened). Reload the page and label the item again.", 403)
        rater = who(request, given)
        if isinstance(rater, Response):
            return rater
        return await run_in_threadpool(save, position, rater, form)

    def save(position: int, rater: str, form: dict[str, str]) -> Response:
        shown = located(position, rater)
        if isinstance(shown, Response):
            return shown
        values, errors = parse_values(shown, form)
        comment = form.get("comment", "").strip() or None
        if comment is not None and len(comment) > MAX_COMMENT:
            errors.append(f"comment: at most {MAX_COMMENT} characters (got {len(comment)})")
        if errors:
            return item_page(position, rater, status=422, errors=errors, submitted=form)
        try:
            labels = session.labels_of(shown, rater, values, comment)
        except ValidationError as exc:
            return item_page(position, rater, status=422, submitted=form,
                             errors=[e["msg"].removeprefix("Value error, ") for e in exc.errors()])
        loaded = form.get("loaded", "")
        session.store.save(labels, {"session": session.name, "position": position,
                                    **({"form": loaded} if LOAD_TOKEN.fullmatch(loaded) else {})})
        following = session.next_position(rater, position)
        if following is None:
            return RedirectResponse("/label", status_code=303)
        return RedirectResponse(f"/label/{following}", status_code=303)

    def agreement(request: Request) -> Response:
        return page("label_agreement.html", refresh=_refresh(request), **agreement_of(session))

    routes = [Route("/label", start, methods=["GET"])]
    if not options.only:
        routes.append(Route("/label/agreement", agreement, methods=["GET"]))
    routes += [Route("/label/{position:int}", _with_position(show_item), methods=["GET"]),
               Route("/label/{position:int}", _with_position(submit), methods=["POST"])]
    if options.only:  # raters only: no run list, run or sample page (they name models and scores)
        app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", "").startswith("/static")
                                or getattr(r, "path", "") == "/favicon.ico"]
        routes.append(Route("/", lambda request: RedirectResponse("/label", status_code=303), methods=["GET"]))
    app.router.routes.extend(routes)
    app.state.labelling = session
    return session


def label_address(url: str, key: str | None = None) -> str:
    """The labelling start of the viewer at `url` (``http://host:port/`` with its ``?token=`` if any),
    as the rater whose key is `key`."""
    base, _, query = url.partition("?")
    params = ([("key", key)] if key else []) + parse_qsl(query)
    return base.rstrip("/") + "/label" + ("?" + urlencode(params) if params else "")


def rater_links(session: Session, url: str) -> list[str]:
    """A line per rater named when starting the viewer: a new rater's own link (shown this once),
    or that an earlier start gave them one."""
    return [f"  {name}: {label_address(url, session.new_keys[name])}" if name in session.new_keys else
            f"  {name}: has the link an earlier start printed (only its hash is kept; to give a new one, "
            f"take {name} out of {session.keys.path})" for name in session.options.raters]


def _with_position(handler: Callable[..., Any]) -> Callable[[Request], Any]:
    """A starlette endpoint calling `handler(position, request)`."""
    import inspect

    if inspect.iscoroutinefunction(handler):
        async def endpoint(request: Request) -> Response:
            return await handler(request.path_params["position"], request)
    else:
        async def endpoint(request: Request) -> Response:
            return await run_in_threadpool(handler, request.path_params["position"], request)
    return endpoint


def _refresh(request: Request) -> int | None:
    """The agreement page reloads itself every 15 s unless ``refresh=0`` (or another period) is asked."""
    try:
        seconds = int(request.query_params.get("refresh", "15"))
    except ValueError:
        seconds = 15
    return None if seconds <= 0 else max(5, min(seconds, 3600))


def agreement_tables(analysis: Any) -> tuple[list[Any], list[str]]:
    """The tables and sentences of `proseval agreement` (`reliability.render`), with what the
    analysis left out (labels that matched nothing a judge rated, runs set aside) among the notes;
    the count of labels read is the page's own summary."""
    from ..reliability.render import analysis_lines, analysis_tables, analysis_warnings

    lines = analysis_lines(analysis)[1 if analysis.labels is not None else 0:]
    return analysis_tables(analysis), [f"{text}." for text in (*analysis_warnings(analysis), *lines)]


def agreement_of(session: Session) -> dict[str, Any]:
    """The judge-reliability analysis of the session's runs against the labels so far: the evaluator
    cards of `proseval agreement` (recomputed on each request)."""
    from ..errors import DataError, MissingDataError
    from ..reliability.analysis import analyse
    from ..reliability.labels import read_labels

    notes: list[str] = []
    runs = _scan_runs(session.root)
    planned_tasks = {item.task for item in session.plan.items}
    paths = [run.path for _, run in sorted(runs.items()) if run.header.task in planned_tasks]
    labels = None
    try:
        labels = read_labels(session.store.path)
    except MissingDataError:
        notes.append("No labels yet: the judges are compared with each other only.")
    except DataError as exc:
        message = str(exc)
        if "no labels in the file" in message:
            notes.append("No labels yet: the judges are compared with each other only.")
        else:
            notes.append(f"The labels file cannot be read in full, so it is left out: {message}")
    context: dict[str, Any] = {"notes": notes, "counts": session.raters(), "runs": len(paths), "tables": [],
                               "summary": None, "error": None}
    try:
        analysis = analyse(paths, labels=labels)
    except Exception as exc:  # noqa: BLE001 - shown on the page: no judged runs, a task that cannot be built
        context["error"] = f"{type(exc).__name__}: {exc}"
        return context
    tables, more = agreement_tables(analysis)
    notes += more
    context.update(tables=tables, summary=analysis.labels)
    return context

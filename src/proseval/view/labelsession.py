"""A labelling session as data: the records it shows, the form each asks (the task's
``labelling`` hook, `core.views.LabelForm`, else a default), each rater's progress and order, and
the labels a submitted form gives. The web pages are `labelling`.

A task without a hook gets a default form: the first verdict its `ratings` read from the record
(its criterion and scale), else one criterion ``overall`` scored 1-10. Each save appends the
item's labels as one record to the labels file (`reliability.labels`: the format `proseval
agreement --labels` reads; `labelstore`: the index kept in memory), never to a run folder. A
session's raters (`raters`) each have a secret key, from a link of their own or from joining an
open session under a new name; whether a session is open is decided when it is planned (no
rater named then) and kept in its plan (`joinable`): only an explicit reopen (`LabelOptions.reopen`,
``proseval view --reopen``) opens a closed one, and the plan keeps that too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..core.views import LabelCriterion, LabelForm
from ..errors import DataError
from ..registry import get_task, tasks
from ..reliability.labels import Label, check_labels_file
from ..runtime.records import RunHeader, SampleRecord
from ..runtime.runlog import SAMPLES
from .index import IndexCache
from .labelplan import (
    FoundRun,
    LabellingError,
    LabelOptions,
    Plan,
    PlanItem,
    RunSource,
    duplicate_runs,
    plan_items,
    scan_runs,
)
from .labelstore import LabelStore
from .raters import Raters
from .runs import pretty

__all__ = [
    "DEFAULT_CRITERION",
    "TEN_KEY",
    "Forms",
    "Point",
    "Question",
    "Records",
    "Session",
    "Shown",
    "joinable",
    "number_key",
    "parse_values",
    "question_title",
    "scale_points",
]

MAX_POINTS = 11  # a scale of more points is a number field instead of buttons
DEFAULT_CRITERION = LabelCriterion(
    "overall",
    "The answer as a whole: how well it does what the task asks.",
    1,
    10,
    title="How good is the answer as a whole (1-10)?",
)


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
                raise TypeError(
                    f"the labelling hook of task {header.task} returned {type(form).__name__}, not a LabelForm"
                )
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
        return LabelCriterion(
            first.criterion,
            f"the judge's verdict {first.criterion!r}, {first.scale.describe()}",
            int(low),
            int(high),
            title=_fallback_title(int(low), int(high)),
        )


def _fallback_title(low: int, high: int) -> str:
    """The question of a form made from a judge's first verdict: yes/no on a 0-1 scale."""
    if (low, high) == (0, 1):
        return "Does the answer meet what the judge checks here?"
    return f"How good is the answer ({low}-{high})?"


def joinable(plan: Plan, has_raters: bool) -> bool:
    """Whether people may join the session under a name of their own: as decided when it was planned
    (its raters named then or not), whatever later starts name; a plan made before that was kept
    is open only while its session has no rater (naming raters always closed one)."""
    if plan.joining is not None:
        return plan.joining == "open"
    return not has_raters


def _check_form(task: str, form: LabelForm) -> None:
    names = [c.name for c in form.criteria]
    if len(set(names)) != len(names):
        raise ValueError(f"the labelling form of task {task} names a criterion twice: {names}")
    for criterion in form.criteria:
        if not criterion.name.strip():
            raise ValueError(f"the labelling form of task {task} has a criterion without a name")
        if not (isinstance(criterion.low, int) and isinstance(criterion.high, int) and criterion.low < criterion.high):
            raise ValueError(
                f"the labelling form of task {task}: criterion {criterion.name!r} needs whole "
                f"numbers low < high (got {criterion.low!r}..{criterion.high!r})"
            )
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
    """A button of a scale: the value it records, what it shows and the key that picks it ("": none;
    the arrow keys still reach it)."""

    value: int
    text: str
    key: str = ""

    @property
    def named(self) -> bool:
        """Whether the button shows a name rather than its number."""
        return self.text != str(self.value)

    @property
    def shown_key(self) -> str:
        """The key to print on the button: its key, unless that is what the button says already."""
        return "" if self.key == self.text else self.key


TEN_KEY = "t"  # gives 10 on a scale from 0 (`0` gives 0 there; on a scale from 1, `0` gives 10)


def number_key(value: int, low: int) -> str:
    """The key that picks a numbered point: its digit; for 10, `0` on a scale that has no 0, else
    `TEN_KEY`; "" for other values (the arrow keys reach those)."""
    if 0 <= value <= 9:
        return str(value)
    if value == 10:
        return "0" if low > 0 else TEN_KEY
    return ""


def scale_points(criterion: LabelCriterion) -> list[Point] | None:
    """The buttons of a criterion's scale: its named points (each picked by its name's first letter
    when those differ: y / n, else by `number_key`), else its numbers when there are at most
    `MAX_POINTS` (picked by `number_key`), else None (a number field)."""
    values = range(criterion.low, criterion.high + 1)
    names = criterion.labels
    if names:
        initials = [name[:1].lower() for name in names]
        if not all(initial.isalpha() for initial in initials) or len(set(initials)) < len(initials):
            initials = [number_key(value, criterion.low) for value in values]
        return [Point(value, name, key) for value, name, key in zip(values, names, initials)]
    if criterion.high - criterion.low < MAX_POINTS:
        return [Point(value, str(value), number_key(value, criterion.low)) for value in values]
    return None


def question_title(criterion: LabelCriterion) -> str:
    """The words a criterion's question is shown under: its `title` where its form gives one (the
    criterion's name is the judge's rating's, which may be an internal name), else its name."""
    return criterion.shown_title


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
        named = bool(self.keys) or bool(options.raters)  # a new session with raters named is closed to joining
        try:
            self.new_keys = self.keys.add(options.raters)  # shown once, in each new rater's link
        except ValueError as exc:  # a look-alike of a rater's name
            raise LabellingError(f"{exc}: give that rater's name as it is written, or another name") from None
        self.records = Records()
        self.forms = Forms()
        self.secret = secrets.token_bytes(32)
        self._runs = scan_runs(self.root)
        self.plan = self._open_plan("closed" if named else "open")
        self.reopened = options.reopen and not joinable(self.plan, bool(self.keys))  # this start opened it
        if self.reopened:
            self.plan = self.plan.opened(self.plan_path)
        self.joinable = joinable(self.plan, bool(self.keys))
        self.positions = {item.signature(): n for n, item in enumerate(self.plan.items, start=1)}
        self._orders: dict[str, tuple[list[int], dict[int, int]]] = {}

    # planning
    def _open_plan(self, joining: str) -> Plan:
        """The session's plan, read, or made now (`joining`: whether people may join it, kept in it)."""
        if self.plan_path.is_file():
            plan = Plan.read(self.plan_path)
            if plan.session != self.name:
                raise LabellingError(f"{self.plan_path} is the plan of session {plan.session!r}, not {self.name!r}")
            if self.options.seed is not None and self.options.seed != plan.seed:
                raise LabellingError(
                    f"session {self.name!r} was planned with seed {plan.seed} "
                    f"({self.plan_path}); leave --seed out to continue it, or name a new session"
                )
            if self.options.items != "all" and self.options.items != plan.kinds:
                raise LabellingError(
                    f"session {self.name!r} was planned with items {plan.kinds!r}; leave "
                    "--label-items out to continue it, or name a new session"
                )
            if self.options.order is not None and self.options.order != plan.order:
                raise LabellingError(
                    f"session {self.name!r} was planned with order {plan.order!r}; leave "
                    "--label-order out to continue it, or name a new session"
                )
            return plan
        seed = self.options.seed if self.options.seed is not None else secrets.randbelow(2**31)
        repeated = duplicate_runs(self._runs)
        sources = [self._source(run) for run_id, run in sorted(self._runs.items()) if run_id not in repeated]
        items = plan_items([s for s in sources if s.keys], seed, self.options.items)
        if not items:
            raise LabellingError(f"nothing to label: no finished sample in the run folders under {self.root}")
        seen = {run_id: run.name for run_id, run in sorted(self._runs.items())}  # planned or not (re-scores)
        plan = Plan(
            self.name,
            seed,
            datetime.now(timezone.utc).isoformat(timespec="seconds"),
            self.options.items,
            seen,
            items,
            self.options.order or "plan",
            joining,
        )
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
            self._runs = scan_runs(self.root)
            found = self._runs.get(run_id)
        return found

    def available(self, item: PlanItem) -> bool:
        return all(run_id in self._runs for run_id in item.runs)

    def missing_runs(self) -> list[str]:
        """Run folders seen when planning that are gone (looked for afresh)."""
        self._runs = scan_runs(self.root)
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
        questions = [
            self._question(i, c, item, form) for i, c in enumerate(form.criteria) if c.paired or item.kind != "pair"
        ]
        return Shown(item, form, panels, questions, self._previous(item, form, rater))

    @staticmethod
    def _question(index: int, criterion: LabelCriterion, item: PlanItem, form: LabelForm) -> Question:
        if item.kind == "score":
            return Question(index, criterion, "score", question_title(criterion), scale_points(criterion))
        asked = form.criteria if item.kind == "compare" else [c for c in form.criteria if c.paired]
        question = form.pairwise or "Which is better?"
        title = f"{question} — {question_title(criterion)}" if len(asked) > 1 else question
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
                found[index] = (
                    label.preference if same or label.preference == "tie" else ("B" if label.preference == "A" else "A")
                )
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
        common: dict[str, Any] = {
            "sample_id": item.sample_id,
            "epoch": item.epoch,
            "rater": rater,
            "comment": comment,
            "labelled_at": now,
            "session": self.name,
        }
        labels = []
        for question in shown.questions:
            value, criterion = values[question.index], question.criterion
            if item.kind == "score":
                labels.append(Label(run=item.runs[0], criterion=criterion.name, score=int(value), **common))
            elif item.kind == "pair":
                a, b = item.sides
                labels.append(
                    Label.model_validate({"a": a, "b": b, "criterion": criterion.name, "preference": value, **common})
                )  # the answer as given: the label checks it
            else:
                first = "B" if item.flipped else "A"  # the side the record's first text is on
                score = (
                    (criterion.low + criterion.high) / 2
                    if value == "tie"
                    else (criterion.high if value == first else criterion.low)
                )
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

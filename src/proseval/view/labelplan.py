"""A labelling session's options and plan (`proseval view RUNS --label SESSION`).

A **session** is a plan of items made once, from the run folders under RUNS, and kept in
``SESSION.plan.json`` beside the labels file: the items in a random order drawn from a recorded
seed, and for each pair which answer is shown as A. Every rater works through the same order (or,
a plan made with the order ``shuffled``, an order of their own drawn from the seed and their name).

Items (the plan holds run ids; pages name an item only by its position in the plan):

- **score**: one answer of one run, scored on each criterion of the task's labelling form;
- **pair**: the answers of two runs of the same task to the same sample (and epoch), shown
  side by side as A and B (sides drawn per item from the seed), a preference (A, B or tie) per
  criterion;
- **compare**: a record that holds two texts to compare instead of one answer (`LabelForm.texts`,
  Revision Distance's chosen and rejected): the two texts on random sides, the choice recorded
  as a score on each criterion (high: the first text, low: the second, the middle: a tie).
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..reliability.labels import Label
from ..runtime.records import RunHeader
from ..runtime.runlog import RunFolder, RunFolderError
from .raters import COMPARED, same_name, spelled
from .runs import find_runs

__all__ = [
    "FoundRun",
    "ITEM_KINDS",
    "JOINING",
    "LabelOptions",
    "LabellingError",
    "ORDERS",
    "Plan",
    "PlanItem",
    "RunSource",
    "check_rater",
    "check_session",
    "duplicate_runs",
    "plan_items",
    "scan_runs",
]

ITEM_KINDS = ("all", "scores", "pairs")
ORDERS = ("plan", "shuffled")
JOINING = ("open", "closed")  # whether people may join a session under a name of their own
SESSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
PLAN_FORMAT = 1


class LabellingError(ValueError):
    """A session that cannot be opened (bad name, a plan made with another seed, nothing to label)."""


def check_session(name: str) -> str:
    """A session name: letters, digits, ``.``, ``_`` and ``-``, at most 64, not starting with a dot."""
    if not SESSION_NAME.match(name):
        raise LabellingError(
            f"session name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
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
    items it holds, whether the viewer serves the labelling pages only (no run pages and no
    agreement page: for raters) and whether to open the session to joining though it was planned
    closed (`reopen`)."""

    session: str
    raters: tuple[str, ...] = ()
    labels_file: Path | None = None
    seed: int | None = None
    items: str = "all"
    only: bool = False
    order: str | None = None  # a new session's order for each rater (`ORDERS`; default "plan")
    reopen: bool = False  # open the session to joining, also one planned closed (kept in its plan)

    def __post_init__(self) -> None:
        check_session(self.session)
        object.__setattr__(self, "raters", tuple(check_rater(name) for name in self.raters))
        for number, name in enumerate(self.raters):
            other = same_name(name, self.raters[:number])
            if other not in (None, name):
                apart = spelled(other, name)
                raise LabellingError(
                    f"raters {other!r} and {name!r} look alike ({COMPARED}"
                    f"{'; ' + apart if apart else ''}): give each person one name"
                )
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
        return {
            "kind": self.kind,
            "task": self.task,
            "id": self.sample_id,
            "epoch": self.epoch,
            "runs": list(self.runs),
            "flipped": self.flipped,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlanItem:
        return cls(
            str(data["kind"]),
            str(data["task"]),
            str(data["id"]),
            int(data["epoch"]),
            tuple(str(r) for r in data["runs"]),
            bool(data.get("flipped", False)),
        )


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
    joining: str | None = None  # `JOINING`, decided when the session is planned (None: a plan made before it was kept)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PLAN_FORMAT,
            "session": self.session,
            "seed": self.seed,
            "created_at": self.created_at,
            "items_kind": self.kinds,
            "order": self.order,
            **({"joining": self.joining} if self.joining is not None else {}),
            "runs": self.runs,
            "items": [item.to_json() for item in self.items],
        }

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
            joining = data.get("joining")
            if joining is not None and joining not in JOINING:
                raise ValueError(f"joining is {joining!r}, not one of {', '.join(JOINING)}")
            return cls(
                str(data["session"]),
                int(data["seed"]),
                str(data["created_at"]),
                str(data["items_kind"]),
                {str(k): str(v) for k, v in data["runs"].items()},
                [PlanItem.from_json(item) for item in data["items"]],
                str(data.get("order", "plan")),
                joining,
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise LabellingError(
                f"{path}: not a readable labelling plan ({exc}); move it away to plan the session afresh"
            ) from None

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

    def opened(self, path: Path) -> Plan:
        """The plan with its session open to joining, written over the one at `path` (its items,
        order and seed as they were): the one change a kept plan takes (`--reopen`)."""
        plan = replace(self, joining="open")
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        temporary.write_text(json.dumps(plan.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)
        return plan


@dataclass(frozen=True)
class FoundRun:
    run_id: str
    name: str
    path: Path
    header: RunHeader


def scan_runs(root: Path) -> dict[str, FoundRun]:
    found: dict[str, FoundRun] = {}
    for name, path in find_runs(root).items():
        try:
            header = RunFolder(path).read_header()
        except RunFolderError:
            continue
        found.setdefault(header.run_id, FoundRun(header.run_id, name, path, header))
    return found


def duplicate_runs(runs: dict[str, FoundRun]) -> set[str]:
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

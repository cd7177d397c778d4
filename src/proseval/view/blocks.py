"""A sample's own views, asked of its benchmark: the viewer imports no benchmark.

Each task may register a `views` hook (``@kit.task(..., views="module:attribute")``, and a
re-scoring scorer plug-in likewise) that turns a record into `ViewBlock`s: a RAVEL trajectory,
Meeseeks rounds, Revision Distance edits. The viewer calls the hooks of the run's task, checks
what they return against the few kinds its template draws (docs/viewer.md) and hands the
template plain, checked data; a hook that fails or returns what the template cannot draw leaves
a note on the page, never an error. Texts stay text: the template escapes every one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..core.views import ViewBlock
from ..registry import scorer_plugins, tasks
from ..runtime.records import RunHeader
from .runs import pretty

RAW_KEYS = ("raw", "raw_answer", "reply", "judge_reply", "judge_raw", "response")
INNER_KINDS = ("text", "diff", "marked", "kv", "table")  # the kinds a step or a round may hold
KINDS = (*INNER_KINDS, "steps", "rounds")
MAIN_KEY = {
    "text": "text",
    "diff": "segments",
    "marked": "segments",
    "kv": "items",
    "table": "rows",
    "steps": "steps",
    "rounds": "rounds",
}
_CLASS = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
Hook = Callable[[dict[str, Any]], Any]


class ViewDataError(ValueError):
    """A block the template cannot draw (an unknown shape of data)."""


def hooks_of(header: RunHeader) -> list[tuple[str, Hook]]:
    """The sample-view hooks of a run: its task's, then its re-scoring scorer plug-in's."""
    found: list[tuple[str, Hook]] = []
    entry = tasks().get(header.task)
    if entry is not None and entry.views is not None:
        found.append((f"task {header.task}", entry.views))
    plugin = (header.scorer_plugin or {}).get("name") if isinstance(header.scorer_plugin, dict) else None
    if plugin:
        scorer = scorer_plugins().get(plugin)
        if scorer is not None and scorer.views is not None:
            found.append((f"scorer {plugin}", scorer.views))
    return found


def sample_blocks(header: RunHeader, record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The checked blocks the hooks give for `record`, and a note for each hook or block that failed."""
    try:
        hooks = hooks_of(header)
    except Exception as exc:  # noqa: BLE001 - a broken registry must not break the page
        return [], [f"the benchmarks' sample views could not be looked up: {type(exc).__name__}: {exc}"]
    blocks: list[dict[str, Any]] = []
    problems: list[str] = []
    for label, hook in hooks:
        try:
            made = hook(record)
            if not isinstance(made, (list, tuple)):
                raise TypeError(f"it returned {type(made).__name__}, not a list of ViewBlock")
        except Exception as exc:  # noqa: BLE001 - a broken plug-in shows a note, never a 500
            problems.append(f"the sample view of {label} failed: {type(exc).__name__}: {exc}")
            continue
        for number, item in enumerate(made):
            try:
                block = check(item)
            except Exception as exc:  # noqa: BLE001 - one bad block, the others still drawn
                problems.append(
                    f"block {number + 1} of {label}'s sample view cannot be drawn: {type(exc).__name__}: {exc}"
                )
                continue
            if block not in blocks:  # a task's and its re-scorer's hook may both draw the same
                blocks.append(block)
    _anchor(blocks)
    return blocks, problems


def draws_turns(blocks: list[dict[str, Any]]) -> bool:
    """Whether a block draws the record's turns (then the page leaves out its plain list of them)."""
    return any(b["kind"] in ("steps", "rounds") for b in blocks)


def check(item: Any, inner: bool = False) -> dict[str, Any]:
    """A block as plain data in the shape the template draws; `ViewDataError` if it cannot be."""
    if isinstance(item, ViewBlock):
        kind, title, data = item.kind, item.title, item.data
    elif isinstance(item, Mapping) and "kind" in item:
        kind, title, data = item["kind"], item.get("title", ""), item.get("data")
    else:
        raise ViewDataError(f"{type(item).__name__} is not a ViewBlock")
    title = "" if title is None else str(title)
    if kind not in KINDS:
        return {
            "kind": "text",
            "title": title or str(kind),
            "data": {
                **_common({}),
                "folded": True,
                "text": pretty(data),
                "empty": None,
                "note": f"(a view of kind {kind!r}, which this viewer does not know: its data as JSON)",
            },
        }
    if inner and kind not in INNER_KINDS:
        raise ViewDataError(f"a {kind} block cannot be inside a step or a round")
    fields = dict(data) if isinstance(data, Mapping) else {MAIN_KEY[kind]: data}
    return {"kind": kind, "title": title, "data": {**_common(fields), **_CHECKS[kind](fields)}}


def _common(fields: Mapping[str, Any]) -> dict[str, Any]:
    note = fields.get("note")
    return {
        "note": None if note in (None, "") else str(note),
        "folded": bool(fields.get("folded")),
        "open": bool(fields.get("open")),
        "cls": _classes(fields.get("class")),
    }


def _classes(value: Any) -> str:
    """Extra CSS class names, with a leading space ("" for none); a word that is not a class name
    (letters, digits, - and _) is left out: a status read from a record can be anything."""
    names = [n for n in str(value or "").split() if _CLASS.match(n)]
    return " " + " ".join(names) if names else ""


def show(value: Any) -> str:
    """A value as the page shows it: text as it is, numbers short, "–" for none, data as JSON."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return pretty(value)


def _text(fields: Mapping[str, Any]) -> dict[str, Any]:
    value = fields.get("text")
    text = "" if value is None else pretty(value)
    empty = fields.get("empty")
    return {"text": text, "empty": str(empty) if empty and not text else None}


def _segments(fields: Mapping[str, Any]) -> dict[str, Any]:
    parts = fields.get("segments")
    if not isinstance(parts, (list, tuple)):
        raise ViewDataError("segments must be a list of (kind, text) pairs")
    out = []
    for part in parts:
        if not isinstance(part, (list, tuple)) or len(part) != 2:
            raise ViewDataError(f"segment {part!r} is not a (kind, text) pair")
        out.append((str(part[0]), "" if part[1] is None else str(part[1])))
    return {"segments": out}


def _kv(fields: Mapping[str, Any]) -> dict[str, Any]:
    items = fields.get("items")
    if isinstance(items, Mapping):
        items = list(items.items())
    if not isinstance(items, (list, tuple)):
        raise ViewDataError("items must be a list of (label, value) pairs or a dict")
    entries = []
    for item in items:
        if not isinstance(item, (list, tuple)) or len(item) not in (2, 3):
            raise ViewDataError(f"item {item!r} is not a (label, value) pair")
        entries.append((str(item[0]), show(item[1]), _classes(item[2]).strip() if len(item) == 3 else ""))
    return {"entries": entries}


def _cell(value: Any) -> dict[str, Any]:
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not isinstance(value, Mapping):
        return {"text": show(value), "num": numeric, "small": None, "quote": False, "fold": None, "pre": False}
    inner = value.get("text")
    fold = value.get("fold")
    return {
        "text": show(inner) if inner is not None or not (fold or value.get("pre")) else "",
        "num": isinstance(inner, (int, float)) and not isinstance(inner, bool),
        "small": None if value.get("small") in (None, "") else show(value["small"]),
        "quote": bool(value.get("quote")),
        "fold": None if fold in (None, "") else str(fold),
        "pre": bool(value.get("pre")),
    }


def _table(fields: Mapping[str, Any]) -> dict[str, Any]:
    columns, rows = fields.get("columns") or [], fields.get("rows")
    classes = fields.get("row_class") or []
    if not isinstance(columns, (list, tuple)) or not isinstance(rows, (list, tuple)):
        raise ViewDataError("a table needs columns (a list of names) and rows (a list of lists of cells)")
    if not isinstance(classes, (list, tuple)):
        raise ViewDataError("row_class must be a list, one class name (or None) per row")
    checked = []
    for number, row in enumerate(rows):
        if not isinstance(row, (list, tuple)):
            raise ViewDataError(f"row {number + 1} is not a list of cells")
        cls = _classes(classes[number]).strip() if number < len(classes) else ""
        checked.append({"cells": [_cell(c) for c in row], "cls": cls})
    return {"columns": [str(c) for c in columns], "rows": checked}


def _parts(key: str) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    def parts(fields: Mapping[str, Any]) -> dict[str, Any]:
        items = fields.get(key)
        if not isinstance(items, (list, tuple)):
            raise ViewDataError(f"{key} must be a list of {{title, status, badge, blocks}}")
        out = []
        for item in items:
            if not isinstance(item, Mapping):
                raise ViewDataError(f"each of {key} must be a dict with a title and blocks")
            status = item.get("status")
            badge = item.get("badge", status)
            inner = item.get("blocks") or []
            if not isinstance(inner, (list, tuple)):
                raise ViewDataError(f"the blocks of {key[:-1]} {item.get('title')!r} are not a list")
            out.append(
                {
                    "title": str(item.get("title") or ""),
                    "cls": _classes(status),
                    "badge": None if badge in (None, "") else str(badge),
                    "blocks": [check(b, inner=True) for b in inner],
                }
            )
        return {key: out}

    return parts


_CHECKS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "text": _text,
    "diff": _segments,
    "marked": _segments,
    "kv": _kv,
    "table": _table,
    "steps": _parts("steps"),
    "rounds": _parts("rounds"),
}


def _anchor(blocks: list[dict[str, Any]]) -> None:
    """Page ids: the first trajectory is #trajectory (its steps #step-N), the first rounds #rounds."""
    named: set[str] = set()
    for number, block in enumerate(blocks, 1):
        block["id"] = f"view-{number}"
        wanted = {"steps": "trajectory", "rounds": "rounds"}.get(block["kind"])
        first = wanted is not None and wanted not in named
        if wanted is not None:
            named.add(wanted)
        block["anchor"] = wanted if first else f"view-{number}-{block['kind']}"
        block["prefix"] = "" if first else f"view-{number}-"


def raw_answers(metadata: dict[str, Any]) -> list[tuple[str, str]]:
    """The judge's raw answers kept in a score's metadata (top level, or per criterion): the
    ``raw=`` of `Score.unscored` and the like, a convention of every benchmark's scores."""
    found = [(key, value) for key, value in metadata.items() if key in RAW_KEYS and isinstance(value, str)]
    for group in metadata.values():
        if isinstance(group, dict):
            for label, entry in group.items():
                if isinstance(entry, dict):
                    found += [(f"{label}: {k}", v) for k, v in entry.items() if k in RAW_KEYS and isinstance(v, str)]
    return found

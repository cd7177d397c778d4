"""Reading judge replies: one verdict per target from a JSON list (repaired when broken), and
the CF relevance verdict."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from proseval.benchmarks.longweave.judging.calls import JudgeCall
from proseval.benchmarks.longweave.judging.config import JudgedConfig
from proseval.kit import find_json_values, repair_json_value, strip_reasoning

BatchStatus = Literal["ok", "repaired", "partial", "unparsable", "no_reply"]


@dataclass(frozen=True)
class TargetVerdict:
    """The judge's verdict on one target; ``verdict`` None = unscored, ``reason`` says why."""

    target_id: int
    verdict: dict[str, bool] | None
    reason: str | None = None
    evidence: str | None = None

    @property
    def scored(self) -> bool:
        return self.verdict is not None


@dataclass(frozen=True)
class ParsedBatch:
    """The parsed reply to one :class:`JudgeCall`: one verdict per target id of the call."""

    target_ids: tuple[int, ...]
    verdicts: tuple[TargetVerdict, ...]
    status: BatchStatus
    notes: tuple[str, ...] = ()

    @property
    def unscored_ids(self) -> tuple[int, ...]:
        return tuple(v.target_id for v in self.verdicts if not v.scored)


@dataclass(frozen=True)
class _Schema:
    """Verdict fields in order; every later field is forced False when the first is False."""

    fields: tuple[str, ...]
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)


_SCHEMAS: dict[str, _Schema] = {
    "biog": _Schema(("covered",), {"covered": ("covered", "stated", "present")}),
    "sr": _Schema(("answered", "correct"), {"answered": ("answered",), "correct": ("correct",)}),
    "nw": _Schema(
        ("exists", "follows_rules"),
        {"exists": ("exists", "exists_in_article"), "follows_rules": ("follows_rules", "follows")},
    ),
}
# The verdict fields the judge gives per target of each judged task, in order (the first gates the others).
VERDICT_FIELDS: dict[str, tuple[str, ...]] = {task: schema.fields for task, schema in _SCHEMAS.items()}
_ID_KEYS = ("id", "target_id", "statement_id", "item")
_LIST_KEYS = ("verdicts", "results", "items", "answers", "evaluations")
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


def _as_bool(value: Any) -> bool | None:
    """A JSON boolean, 0/1, or the strings true/false/yes/no; anything else is None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return None


def _as_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        digits = value.strip().strip("[]#").strip()
        return int(digits) if digits.isdigit() else None
    return None


def _item_id(item: Any) -> int | None:
    if not isinstance(item, dict):
        return None
    for key in _ID_KEYS:
        if key in item:
            return _as_id(item[key])
    return None


def _as_list(value: Any) -> list[Any] | None:
    """The verdict list in a JSON value: the value itself, or a list under a known key."""
    if isinstance(value, dict):
        nested = [value[k] for k in _LIST_KEYS if isinstance(value.get(k), list)]
        value = nested[0] if nested else None
    if isinstance(value, list) and any(isinstance(x, (dict, bool)) for x in value):
        return value
    return None


def _as_items(value: Any) -> list[Any] | None:
    """Like :func:`_as_list`, but a lone object counts as a one-item list."""
    if isinstance(value, dict) and _as_list(value) is None:
        return [value]
    return _as_list(value)


def _find_items(text: str) -> tuple[list[Any] | None, bool]:
    """The verdict list in ``text`` and whether JSON repair produced it.

    In order: the first complete JSON list; a repaired list when it holds more items than
    the complete objects found (e.g. a list cut off before its closing bracket); the
    complete objects (one per target, e.g. one per line).
    """
    values = find_json_values(text)
    for value in values:
        items = _as_list(value)
        if items is not None:
            return items, False
    objects = [v for v in values if isinstance(v, dict)]
    repaired = _as_items(repair_json_value(text))
    if repaired is not None and len(repaired) > len(objects):
        return repaired, True
    return (objects, False) if objects else (None, False)


def _read_verdict(target_id: int, item: Any, schema: _Schema) -> TargetVerdict:
    """One item of the reply as a verdict (unscored when its fields are missing or invalid)."""
    if isinstance(item, bool) and len(schema.fields) == 1:
        return TargetVerdict(target_id, {schema.fields[0]: item})
    if not isinstance(item, dict):
        return TargetVerdict(target_id, None, f"reply item is not an object: {item!r:.60}")
    lowered = {str(k).strip().lower(): v for k, v in item.items()}
    values: dict[str, bool] = {}
    for position, name in enumerate(schema.fields):
        if position > 0 and values[schema.fields[0]] is False:
            values[name] = False  # gated: not stated / not answered / not found
            continue
        keys = [k for k in schema.aliases.get(name, (name,)) if k in lowered]
        parsed = _as_bool(lowered[keys[0]]) if keys else None
        if parsed is None:
            shown = repr(lowered[keys[0]]) if keys else "missing"
            return TargetVerdict(target_id, None, f"field '{name}' is {shown:.60}")
        values[name] = parsed
    evidence = lowered.get("evidence")
    if not isinstance(evidence, str):
        evidence = None
    return TargetVerdict(target_id, values, evidence=evidence)


def _unscored(ids: Sequence[int], reason: str) -> tuple[TargetVerdict, ...]:
    return tuple(TargetVerdict(i, None, reason) for i in ids)


def parse_reply(call: JudgeCall, reply: str | None) -> ParsedBatch:
    """Parse a judge reply to ``call``; ``reply`` None means the call failed.

    Reasoning blocks are removed, the first JSON value holding a verdict list is used
    (repaired if broken). Items are matched by ``id``; without ids they are matched by
    position, but only when their count equals the batch size. Unknown and repeated ids are
    ignored (the first verdict of an id wins). Targets left without a valid verdict are
    unscored, each with its reason.
    """
    ids = call.target_ids
    if reply is None:
        return ParsedBatch(ids, _unscored(ids, "judge call failed"), "no_reply")
    text = strip_reasoning(reply).text
    items, repaired = _find_items(text)
    if items is None:
        return ParsedBatch(ids, _unscored(ids, "judge reply has no usable JSON"), "unparsable")
    schema = _SCHEMAS[call.task]
    wanted = set(ids)
    notes: list[str] = []
    found: dict[int, TargetVerdict] = {}
    if all(_item_id(x) is None for x in items) and len(items) == len(ids):
        notes.append("items matched by position (no ids)")
        found = {i: _read_verdict(i, x, schema) for i, x in zip(ids, items)}
    else:
        for position, item in enumerate(items):
            item_id = _item_id(item)
            if item_id is None:
                notes.append(f"item {position} ignored: no id")
            elif item_id not in wanted:
                notes.append(f"item {position} ignored: unknown id {item_id}")
            elif item_id in found:
                notes.append(f"item {position} ignored: repeated id {item_id}")
            else:
                found[item_id] = _read_verdict(item_id, item, schema)
    verdicts = tuple(found.get(i, TargetVerdict(i, None, "missing from the judge reply")) for i in ids)
    if not any(v.scored for v in verdicts):
        status: BatchStatus = "unparsable"
    elif not all(v.scored for v in verdicts):
        status = "partial"
    else:
        status = "repaired" if repaired else "ok"
    return ParsedBatch(ids, verdicts, status, tuple(notes))


@dataclass(frozen=True)
class RelevanceVerdict:
    """CF gate verdict; ``relevant`` None = unscored (the sample must be reported unscored)."""

    relevant: bool | None
    status: Literal["ok", "repaired", "text", "defaulted", "unparsable", "no_reply"]
    reason: str | None = None


_CF_KEYS = ("relevant_and_complete", "is_relevant_and_complete")
_CF_TEXT = re.compile(r'"?(?:is_)?relevant_and_complete"?\s*[:=]\s*"?(true|false)\b', re.I)


def _cf_value(value: Any) -> bool | None:
    if isinstance(value, dict):
        lowered = {str(k).strip().lower(): v for k, v in value.items()}
        for key in _CF_KEYS:
            if key in lowered:
                return _as_bool(lowered[key])
    return None


def parse_cf_relevance(reply: str | None, config: JudgedConfig = JudgedConfig()) -> RelevanceVerdict:
    """The gate verdict from a judge reply (None = the call failed).

    JSON object first, then repaired JSON, then a ``relevant_and_complete: true|false``
    pattern in the text. Without a verdict: unscored, or relevant under the official config.
    """
    failure: Literal["no_reply", "unparsable"]
    if reply is None:
        failure, reason = "no_reply", "judge call failed"
    else:
        text = strip_reasoning(reply).text
        for value in find_json_values(text):
            verdict = _cf_value(value)
            if verdict is not None:
                return RelevanceVerdict(verdict, "ok")
        verdict = _cf_value(repair_json_value(text))
        if verdict is not None:
            return RelevanceVerdict(verdict, "repaired")
        match = _CF_TEXT.search(text)
        if match:
            return RelevanceVerdict(match.group(1).lower() == "true", "text")
        failure, reason = "unparsable", "judge reply holds no relevance verdict"
    if config.cf_unscored_relevant:
        return RelevanceVerdict(True, "defaulted", f"{reason}; counted as relevant (official)")
    return RelevanceVerdict(None, failure, reason)

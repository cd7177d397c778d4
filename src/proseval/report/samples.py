"""The report's sample lists: each sample's status, slice labels, scores and (clipped) texts."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from ..runtime.aggregate import flatten_scores
from ..runtime.records import SampleRecord
from .fmt import num
from .runs import ReportRun


@dataclass
class SampleRow:
    anchor: str
    id: str
    epoch: int
    status: str
    slices: list[str]
    scores: list[tuple[str, str]]  # metric, the text shown
    input: str = ""
    output: str = ""
    error: str = ""
    notes: list[str] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)  # the other roles' replies: (who, text)


def anchor(run: ReportRun, sample_id: str, epoch: int = 0) -> str:
    digest = hashlib.sha256(f"{sample_id}\0{epoch}".encode()).hexdigest()[:16]
    return f"r{run.index}-{digest}"


def clip(text: str, limit: int) -> str:
    if limit <= 0 or len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters; see samples.jsonl)"


def sample_rows(
    run: ReportRun, metrics: list[str], slice_keys: list[str], *, limit: int | None, forced: set[str], text_chars: int
) -> tuple[list[SampleRow], str]:
    """The run's samples, failed and unscored ones first; `limit` per run (None: all), plus `forced` ids."""

    def trouble(sample: Any) -> int:
        if sample.status != "ok":
            return 0
        return 1 if any(v is None for v in flatten_scores(sample).values()) else 2

    ordered = sorted(run.samples, key=trouble)  # stable: record order within each group
    kept = ordered if limit is None else ordered[:limit]
    kept += [s for s in ordered[len(kept) :] if s.id in forced]
    keys = {(s.id, s.epoch) for s in kept}
    records = {(r.id, r.epoch): r for r in run.records(keys)}
    rows = [
        _sample_row(run, records[(s.id, s.epoch)], metrics, slice_keys, text_chars)
        for s in kept
        if (s.id, s.epoch) in records
    ]
    note = ""
    if len(rows) < len(run.samples):
        note = (
            f"Showing {len(rows):,} of {len(run.samples):,} samples (failed and unscored ones first, then in "
            f"record order); every sample is in {run.path / 'samples.jsonl'}, and "
            "`proseval report --all-samples` includes them all."
        )
    return rows, note


def _sample_row(
    run: ReportRun, record: SampleRecord, metrics: list[str], slice_keys: list[str], text_chars: int
) -> SampleRow:
    flat: dict[str, float | None] = {}
    statuses: dict[str, tuple[str, str]] = {}
    for name, score in record.scores.items():
        subs = score.value.items() if isinstance(score.value, dict) else [(None, score.value)]
        for sub, value in subs:
            metric = name if sub is None else f"{name}.{sub}"
            flat[metric] = value
            statuses[metric] = (score.parse_status, score.explanation)
    scores = []
    notes = []
    for metric in metrics:
        if metric not in flat:
            scores.append((metric, ""))
        elif flat[metric] is None:
            status, why = statuses[metric]
            scores.append((metric, f"unscored ({status})"))
            notes.append(f"{metric} unscored ({status}): {why}")
        else:
            scores.append((metric, num(flat[metric])))
    if record.status != "ok":
        status = "failed" + (f" ({record.model_failure})" if record.model_failure else "")
    else:
        status = "ok" + (f", model failure: {record.model_failure}" if record.model_failure else "")
    prompt = (
        record.input
        if isinstance(record.input, str)
        else "\n\n".join(
            f"[{m.get('role', '?')}] {m.get('content', '')}" for m in record.input or [] if isinstance(m, dict)
        )
    )
    calls = [
        (
            f"{call.role}, turn {call.turn}" + (" (cached)" if call.cached else ""),
            clip(call.text or "" if call.error is None else f"error: {call.error}", text_chars),
        )
        for call in record.calls
    ]
    return SampleRow(
        anchor(run, record.id, record.epoch),
        record.id,
        record.epoch,
        status,
        [str(record.metadata.get(key, "")) for key in slice_keys],
        scores,
        clip(str(prompt or ""), text_chars),
        clip(record.state.output if record.state else "", text_chars),
        record.error or "",
        notes,
        calls,
    )

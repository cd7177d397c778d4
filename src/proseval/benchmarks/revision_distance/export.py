"""Drafts taken from another run: its candidate answers as a drafts file (a pure function of its records).

Each finished sample with a non-empty answer becomes one line: ``id`` (with ``#EPOCH`` when the
run has several epochs), ``draft`` (the answer), ``instruction`` and, when the sample has one,
``reference`` — read as the ``revision-distance`` scorer reads them (`scoring.reference_of`,
`scoring.instruction_of`). Failed samples and empty answers are left out and counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks.revision_distance.scoring import instruction_of, reference_of
from proseval.kit import Sample
from proseval.kit.runs import SampleRecord


@dataclass(frozen=True)
class Exported:
    rows: list[dict[str, Any]]
    failed: int  # samples that ended in an infrastructure failure
    empty: int  # samples whose answer was empty


def drafts_of(records: Iterable[SampleRecord]) -> Exported:
    records = list(records)
    several_epochs = any(record.epoch for record in records)
    rows: list[dict[str, Any]] = []
    failed = empty = 0
    for record in records:
        if record.status != "ok" or record.state is None:
            failed += 1
            continue
        if not record.state.output.strip():
            empty += 1
            continue
        sample = Sample(id=record.id, input=record.input if record.input is not None else "", target=record.target)
        row: dict[str, Any] = {
            "id": f"{record.id}#{record.epoch}" if several_epochs else record.id,
            "draft": record.state.output,
            "instruction": instruction_of(sample),
        }
        if (reference := reference_of(sample)) is not None:
            row["reference"] = reference
        rows.append(row)
    return Exported(rows, failed, empty)

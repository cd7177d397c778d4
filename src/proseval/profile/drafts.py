"""The drafts a benchmark measured on another's answers reads (Revision Distance on WritingBench),
kept in step with those answers: when a sample of the answering run is retried or resumed, its
draft is rewritten and its earlier measurement dropped, so that the next run measures the new
answer (and only it). The spend of dropped measurements stays in the run folder's usage log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..benchmarks.revision_distance.export import drafts_of
from ..runtime.runlog import RunFolder, write_json_atomic


def read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def stale_ids(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> set[str]:
    """Ids of the drafts `old` measured whose row is gone or differs in `new`."""
    now = {row["id"]: row for row in new}
    return {row["id"] for row in old if now.get(row["id"]) != row}


def sync_drafts(source: Path, output: Path, measured: Path) -> int:
    """Write the answers of the run `source` as the drafts file `output` when they changed, first
    dropping from the run folder `measured` the records of the drafts that changed; the number of
    drafts (0: no answer to measure, nothing written)."""
    new = drafts_of(RunFolder(source).iter_records()).rows
    old = read_rows(output)
    if not new or new == old:
        return len(new)
    stale = stale_ids(old, new)
    if stale:
        RunFolder(measured).drop_records({(sample_id, 0) for sample_id in stale})
    output.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(output, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in new))
    return len(new)

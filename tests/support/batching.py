"""Helpers shared by the batch-mode tests: scripted answers that depend on the request only (the
same in real time and in batches), a tiny WritingBench query file, and what a run decided."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from proseval.runtime.batch import BatchSettings
from proseval.runtime.runlog import RunFolder

ROOT = Path(__file__).resolve().parents[2]
FAST = BatchSettings(poll_initial=0.02, poll_max=0.05, settle=0.05)


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def wb_judge(body: dict) -> str:
    """A WritingBench judge: a score from 1 to 10 that depends on the prompt."""
    prompt = body["messages"][-1]["content"]
    return json.dumps({"score": _digest(prompt) % 10 + 1, "reason": "scripted"})


def write_queries(path: Path, n: int = 4) -> Path:
    checklist = [{"name": f"C{i}", "criteria_description": f"criterion {i}", "1-2": "a", "3-4": "b", "5-6": "c",
                  "7-8": "d", "9-10": "e"} for i in range(1, 6)]
    path.write_text("".join(json.dumps({"id": f"q{k}", "query": f"Write note number {k}.", "checklist": checklist})
                            + "\n" for k in range(n)))
    return path


def untimed(value):
    """`value` without the time measurements (a sandbox's seconds) that differ from run to run."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in ("seconds", "duration_s", "latency")}
    return [untimed(v) for v in value] if isinstance(value, list) else value


def records(folder: RunFolder) -> dict[tuple[str, int], dict]:
    """What a run decided per sample: status, state, scores and the judges' texts (no timings)."""
    found = {}
    for record in folder.iter_records():
        data = record.model_dump(include={"status", "state", "scores", "error", "model_failure"})
        # sorted: concurrent calls of a sample (one per criterion) are listed as they finish, in either mode
        data["calls"] = sorted((c.role, str(c.turn), c.text or "", c.error or "") for c in record.calls)
        data["usage"] = {role: u.model_dump() for role, u in record.usage.items()}
        found[(record.id, record.epoch)] = untimed(data)
    return found


def metrics(folder: RunFolder) -> dict:
    results = folder.read_results()
    return {"metrics": {k: v.model_dump() for k, v in results.metrics.items()}, "counts": results.counts.model_dump(),
            "extra": results.extra}

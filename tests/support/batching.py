"""Helpers shared by the batch-mode tests: scripted answers that depend on the request only (the
same in real time and in batches), a tiny WritingBench query file, and what a run decided."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
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
    checklist = [
        {
            "name": f"C{i}",
            "criteria_description": f"criterion {i}",
            "1-2": "a",
            "3-4": "b",
            "5-6": "c",
            "7-8": "d",
            "9-10": "e",
        }
        for i in range(1, 6)
    ]
    path.write_text(
        "".join(
            json.dumps({"id": f"q{k}", "query": f"Write note number {k}.", "checklist": checklist}) + "\n"
            for k in range(n)
        )
    )
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
    return {
        "metrics": {k: v.model_dump() for k, v in results.metrics.items()},
        "counts": results.counts.model_dump(),
        "extra": results.extra,
    }


# A WritingBench run with its judge in batch mode (at most 8 requests a batch), in a child process.
CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from proseval.planning import plan
    from proseval.runtime.batch import BatchSettings
    from proseval.runtime.options import RunOptions
    from proseval.runtime.roles import RoleRequest
    from proseval.runtime.runner import start_run

    url, queries, run_dir, judge = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
    request = RoleRequest(model="scripted/echo", roles={"judge": judge}, role_base_urls={"judge": [url]})
    planned = plan("writingbench", request, params={"queries": queries})
    options = RunOptions(display="none", batch_roles=("judge",), backoff_initial=0.01,
                         batch_settings=BatchSettings(poll_initial=0.02, poll_max=0.05, settle=0.05, max_requests=8))
    asyncio.run(start_run(planned.task, planned.bindings, options, run_dir=run_dir))
    """
)


def kill_while_polling(server, queries: Path, run_dir: Path, judge: str) -> None:
    """Run `CHILD` against a held batch double (no batch ends) and SIGKILL it once its 3 batches
    (20 judge calls, at most 8 a batch) are created and polled; nothing is recorded by then."""
    server.hold = True
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")])}
    child = subprocess.Popen([sys.executable, "-c", CHILD, server.base_url, str(queries), str(run_dir), judge], env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (server.creates == 3 and server.polls >= 6):
        assert child.poll() is None, "the child ended before it was killed"
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    assert server.creates == 3  # 8 + 8 + 4
    assert not (run_dir / "samples.jsonl").exists() or not (run_dir / "samples.jsonl").read_text().strip()
    server.hold = False

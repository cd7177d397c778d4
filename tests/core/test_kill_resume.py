"""A run killed with SIGKILL and resumed has every sample exactly once.

The fake server holds its answers after the first 60 requests until the run is killed, so the run
is killed in its middle on a machine of any speed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path

from proseval.runtime.options import RunOptions
from proseval.runtime.resume import resume_run
from proseval.runtime.runlog import RunFolder
from proseval.testing.fake_openai import FakeOpenAIServer, Reply
from support.core import make_task

ROOT = Path(__file__).resolve().parents[2]
ANSWERED = 60  # requests answered before the server holds the others
HANG_GUARD_S = 300  # only against a test that hangs: no outcome waits this long

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from proseval.runtime.options import RunOptions
    from proseval.runtime.runner import start_run
    from support.core import binding, make_task

    url, run_dir = sys.argv[1], Path(sys.argv[2])
    bindings = {"candidate": binding("openai-compatible/fake", base_urls=[url], concurrency=6)}
    asyncio.run(start_run(make_task(300), bindings, RunOptions(display="none"), run_dir=run_dir))
    """
)


def test_sigkill_then_resume_gives_each_sample_once(tmp_path):
    released = threading.Event()

    def held(index: int, body: dict) -> Reply:
        if index >= ANSWERED:
            released.wait(HANG_GUARD_S)  # the server's event loop waits: no answer until released
        return Reply()

    server = FakeOpenAIServer(latency=0.03, behaviour=held).start_in_thread()
    try:
        run_dir = tmp_path / "run"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")])}
        child = subprocess.Popen([sys.executable, "-c", CHILD, server.base_url, str(run_dir)], env=env)
        samples = run_dir / "samples.jsonl"
        deadline = time.monotonic() + HANG_GUARD_S
        # 60 answers, of which at most 6 in flight when the server holds: at least 40 samples end
        while not (samples.exists() and samples.read_bytes().count(b"\n") >= 40):
            assert child.poll() is None and time.monotonic() < deadline, "the run never wrote 40 samples"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(HANG_GUARD_S)
        released.set()
        killed_with = samples.read_bytes().count(b"\n")
        assert 40 <= killed_with <= ANSWERED, "the child must be killed mid-run"

        folder = RunFolder(run_dir)
        results = __import__("asyncio").run(
            resume_run(folder, make_task(300), RunOptions(display="none", out_dir=tmp_path))
        )
    finally:
        released.set()
        server.stop_thread()
    counted = Counter(r.id for r in folder.iter_scored())
    assert len(counted) == 300 and set(counted.values()) == {1}
    assert results.complete and results.counts.ok == 300
    # the resumed run sent only the requests the killed one had not finished
    assert len(server.requests) <= 300 + 6  # at most the in-flight requests of the killed run are repeated

"""Watching a run while it is written: the viewer reads the run folder of a real run in progress."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from pathlib import Path

from fastapi.testclient import TestClient

import proseval
from proseval.view import create_app


def test_a_running_evaluation_is_seen_as_it_goes(tmp_path: Path, scripts):
    gate = threading.Event()

    async def candidate(messages):
        if "lighthouse" in messages[-1]["content"]:  # one sample waits until the test lets it finish
            await asyncio.to_thread(gate.wait, 60)
        return "A short answer."

    roles = {"judge": scripts("live-judge", ['{"score": 6}'])}
    done: list[object] = []
    worker = threading.Thread(
        target=lambda: done.append(
            proseval.run(
                "demo",
                model=scripts("live-candidate", candidate),
                roles=roles,
                out=tmp_path / "runs",
                cache=False,
                limit=4,
            )
        )
    )
    worker.start()
    try:
        web = TestClient(create_app(tmp_path / "runs"), base_url="http://127.0.0.1")
        deadline = time.monotonic() + 60
        while True:
            listing = web.get("/").text
            if 'class="badge running"' in listing and re.search(r'<td class="n">3</td>', listing):
                break
            assert time.monotonic() < deadline, listing
            time.sleep(0.1)
        name = re.search(r'href="/runs/([^"]+)"', listing).group(1)
        page = web.get(f"/runs/{name}").text
        assert "No results yet" in page and "3 samples · page 1 of 1" in page
        assert web.get(f"/runs/{name}/samples/4").status_code == 404
    finally:
        gate.set()
        worker.join(60)
    assert done, "the run did not finish"
    page = web.get(f"/runs/{name}").text
    assert 'class="badge complete"' in page and "4 samples · page 1 of 1" in page and 'id="metrics"' in page
    assert "lighthouse" in web.get(f"/runs/{name}/samples/4").text

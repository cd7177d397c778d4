"""The embedded model's request timeout counts its generation, not its wait for the model.

The model generates one request at a time on one worker thread; requests queued behind others are
waiting, not failing. The generation itself is replaced by a stand-in that takes a set time in the
worker thread and stops early when told to (as llama.cpp is stopped between tokens), so no model
is loaded here.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from proseval.models.base import Completion, GenerateConfig, RetryableError
from proseval.models.local import _WORKER, EMBEDDED_NAME, LocalModel
from proseval.runtime.executor import RoleModel

MESSAGES = [{"role": "user", "content": "hi"}]


class StandIn:
    """`_generate_sync` taking `seconds` of the worker thread; notes which generations were stopped."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.stopped: list[bool] = []

    def __call__(self, messages, config, cancelled: threading.Event) -> Completion:
        stopped = cancelled.wait(self.seconds)  # True: told to stop before its time was up
        self.stopped.append(stopped)
        return Completion(text="done", model=EMBEDDED_NAME)


async def worker_idle() -> None:
    """Return once the model's worker thread has finished what it was given."""
    await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(_WORKER, lambda: None), 60)


@pytest.fixture
def models(monkeypatch):
    def make(seconds: float, count: int = 1) -> tuple[list[LocalModel], StandIn]:
        stand_in = StandIn(seconds)
        made = [LocalModel(EMBEDDED_NAME) for _ in range(count)]
        for model in made:
            monkeypatch.setattr(model, "_generate_sync", stand_in)
        return made, stand_in

    return make


async def test_requests_queued_behind_others_do_not_time_out(models):
    """Ten requests of 0.2 s each with a 0.6 s timeout: the last waits 1.8 s (more than the timeout
    and the executor's 1 s of slack over it), and none fails."""
    (candidate, judge), stand_in = models(0.2, count=2)  # two roles on one model share its one thread
    config = GenerateConfig(timeout=0.6)
    roles = [RoleModel(name, model, config, concurrency=5, max_attempts=1)
             for name, model in (("candidate", candidate), ("judge", judge))]
    began = time.perf_counter()
    done = await asyncio.gather(*(roles[i % 2].generate(MESSAGES, sample_id=str(i)) for i in range(10)))
    assert [c.text for c in done] == ["done"] * 10 and stand_in.stopped == [False] * 10
    assert time.perf_counter() - began >= 10 * 0.2  # one at a time: the later ones waited past the timeout
    assert sum(role.stats.retries + role.stats.errors for role in roles) == 0


async def test_a_generation_past_its_timeout_is_stopped_and_retryable(models):
    (model,), stand_in = models(30.0)
    with pytest.raises(RetryableError, match=r"no answer within 0\.3s of generation"):
        await asyncio.wait_for(model.generate(MESSAGES, GenerateConfig(timeout=0.3)), 60)  # 60 s: a hang guard
    await worker_idle()
    assert stand_in.stopped == [True]  # told to stop, long before its 30 s


async def test_a_cancelled_request_stops_its_generation(models):
    (model,), stand_in = models(30.0)
    request = asyncio.ensure_future(model.generate(MESSAGES, GenerateConfig(timeout=60)))
    await asyncio.sleep(0.2)
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    await worker_idle()
    assert stand_in.stopped == [True]

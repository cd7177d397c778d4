"""The embedded model's request timeout counts its generation, not its wait for the model.

The model generates one request at a time on one worker thread; requests queued behind others are
waiting, not failing. The generation itself is replaced by a stand-in that takes a set time in the
worker thread and stops early when told to (as llama.cpp is stopped between tokens), so no model
is loaded here.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from proseval.models.base import Completion, GenerateConfig, RetryableError
from proseval.models.local import _WORKER, EMBEDDED_NAME, LocalModel
from proseval.runtime.executor import RoleModel

MESSAGES = [{"role": "user", "content": "hi"}]


HANG_GUARD_S = 60  # only against a test that hangs: no outcome waits this long


class StandIn:
    """`_generate_sync` taking `seconds` of the worker thread (after `held` is set, when given);
    notes which generations were stopped. `started` is set as the first generation starts."""

    def __init__(self, seconds: float, held: threading.Event | None = None):
        self.seconds = seconds
        self.held = held
        self.started = threading.Event()
        self.stopped: list[bool] = []

    def __call__(self, messages, config, cancelled: threading.Event) -> Completion:
        self.started.set()
        if self.held is not None:
            self.held.wait(HANG_GUARD_S)
        stopped = cancelled.wait(self.seconds)  # True: told to stop before its time was up
        self.stopped.append(stopped)
        return Completion(text="done", model=EMBEDDED_NAME)


async def worker_idle() -> None:
    """Return once the model's worker thread has finished what it was given."""
    await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(_WORKER, lambda: None), HANG_GUARD_S)


@pytest.fixture
def models(monkeypatch):
    def make(seconds: float, count: int = 1, held: threading.Event | None = None) -> tuple[list[LocalModel], StandIn]:
        stand_in = StandIn(seconds, held)
        made = [LocalModel(EMBEDDED_NAME) for _ in range(count)]
        for model in made:
            monkeypatch.setattr(model, "_generate_sync", stand_in)
        return made, stand_in

    return make


async def test_requests_queued_behind_others_do_not_time_out(models):
    """Ten requests with a 1 s timeout, queued behind a generation that holds the model for 2.5 s
    at least (more than their timeout and the executor's 1 s of slack over it): none fails."""
    held = threading.Event()
    (candidate, judge), stand_in = models(0.0, count=2, held=held)  # two roles on one model share its thread
    holder = RoleModel("holder", candidate, GenerateConfig(timeout=HANG_GUARD_S), concurrency=1, max_attempts=1)
    config = GenerateConfig(timeout=1.0)
    roles = [
        RoleModel(name, model, config, concurrency=5, max_attempts=1)
        for name, model in (("candidate", candidate), ("judge", judge))
    ]
    holding = asyncio.ensure_future(holder.generate(MESSAGES, sample_id="held"))
    assert await asyncio.to_thread(stand_in.started.wait, HANG_GUARD_S)
    queued = [asyncio.ensure_future(roles[i % 2].generate(MESSAGES, sample_id=str(i))) for i in range(10)]
    await asyncio.sleep(2.5)  # at least this long: a busy machine only waits longer
    assert not any(request.done() for request in queued)  # waiting for the model, not failing
    held.set()
    done = await asyncio.wait_for(asyncio.gather(holding, *queued), HANG_GUARD_S)
    assert [c.text for c in done] == ["done"] * 11 and stand_in.stopped == [False] * 11
    assert sum(role.stats.retries + role.stats.errors for role in (holder, *roles)) == 0


async def test_a_generation_past_its_timeout_is_stopped_and_retryable(models):
    (model,), stand_in = models(30.0)
    with pytest.raises(RetryableError, match=r"no answer within 0\.3s of generation"):
        await asyncio.wait_for(model.generate(MESSAGES, GenerateConfig(timeout=0.3)), 60)  # 60 s: a hang guard
    await worker_idle()
    assert stand_in.stopped == [True]  # told to stop, long before its 30 s


async def test_a_cancelled_request_stops_its_generation(models):
    (model,), stand_in = models(30.0)
    request = asyncio.ensure_future(model.generate(MESSAGES, GenerateConfig(timeout=60)))
    assert await asyncio.to_thread(stand_in.started.wait, HANG_GUARD_S)  # generating
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    await worker_idle()
    assert stand_in.stopped == [True]

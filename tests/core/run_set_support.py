"""Tasks and scripted models for the evaluation-set tests, shared by the tests and their child process.

`register_all()` registers the `setunit` task (N single-turn samples, a judge's 1-10 score) and
the scripted models `set-m1` … `set-m4` (candidates) and `set-judge`; every call is counted per
model in `CALLS`, and the requests in flight across every run of the process in `IN_FLIGHT`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace

from pydantic import BaseModel, ConfigDict

from proseval import registry
from proseval.models.scripted import register_script, unregister_script
from support.core import make_task

CANDIDATES = ("set-m1", "set-m2", "set-m3", "set-m4")
JUDGE = "set-judge"
CALLS: Counter[str] = Counter()
IN_FLIGHT = {"now": 0, "peak": 0}
LATENCY = {"seconds": 0.0}


class UnitParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int = 12


def unit_task(params: UnitParams):
    return replace(make_task(params.n, judge=True, name="setunit"), headline="judge")


def _script(name: str, reply):
    async def answer(messages):
        CALLS[name] += 1
        IN_FLIGHT["now"] += 1
        IN_FLIGHT["peak"] = max(IN_FLIGHT["peak"], IN_FLIGHT["now"])
        try:
            if LATENCY["seconds"]:
                await asyncio.sleep(LATENCY["seconds"])
            return reply(messages)
        finally:
            IN_FLIGHT["now"] -= 1

    return answer


def _candidate(index: int):
    return lambda messages: " ".join(["word"] * (10 * index))  # model i writes 10·i words


def _judge(messages):
    words = len(messages[-1]["content"].split())
    return f'{{"score": {min(10, 1 + words // 12)}, "reason": "length"}}'  # longer answers score higher


def register_all(latency: float = 0.0) -> None:
    LATENCY["seconds"] = latency
    CALLS.clear()
    IN_FLIGHT.update(now=0, peak=0)
    if "setunit" not in registry._TASKS:
        registry.task("setunit", summary="N unit samples with a judge (tests)", params=UnitParams)(unit_task)
    for i, name in enumerate(CANDIDATES, start=1):
        register_script(name, _script(name, _candidate(i)))
    register_script(JUDGE, _script(JUDGE, _judge))


def unregister_all() -> None:
    registry._TASKS.pop("setunit", None)
    for name in (*CANDIDATES, JUDGE):
        unregister_script(name)

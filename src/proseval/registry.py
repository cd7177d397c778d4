"""The tasks proseval knows, by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .core.task import Task


@dataclass(frozen=True)
class TaskEntry:
    name: str
    summary: str
    factory: Callable[..., Task]


def _demo(**params: Any) -> Task:
    from .benchmarks.demo.task import make_task

    if params:
        raise ValueError(f"the demo task takes no parameters (got {', '.join(params)})")
    return make_task()


TASKS: dict[str, TaskEntry] = {
    "demo": TaskEntry("demo", "8 short bundled writing prompts: judge rating 1-10 + length adherence", _demo),
}


def get_task(name: str, params: dict[str, Any] | None = None) -> Task:
    if name not in TASKS:
        raise KeyError(f"unknown task {name!r}; available: {', '.join(sorted(TASKS))} (see: proseval list)")
    return TASKS[name].factory(**(params or {}))

"""The tasks proseval knows, by name, with the parameters each accepts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .benchmarks.longweave.params import LongWeaveParams
from .benchmarks.meeseeks.params import MeeseeksParams
from .benchmarks.writingbench.params import CriteriaParams, CurateParams, WritingBenchParams
from .core.task import Task


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class TaskEntry:
    name: str
    summary: str
    factory: Callable[[Any], Task]
    params: type[BaseModel] = NoParams
    render: Callable[[Any], list[Any]] | None = field(default=None)


def _demo(params: NoParams) -> Task:
    from .benchmarks.demo.task import make_task

    return make_task()


def _writingbench(params: WritingBenchParams) -> Task:
    from .benchmarks.writingbench.task import make_task

    return make_task(params)


def _writingbench_criteria(params: CriteriaParams) -> Task:
    from pathlib import Path

    from .benchmarks.writingbench.userdata import criteria_task

    return criteria_task(Path(params.in_file))


def _writingbench_curate(params: CurateParams) -> Task:
    from pathlib import Path

    from .benchmarks.writingbench.task import make_scorer
    from .benchmarks.writingbench.userdata import curate_task

    scorer = make_scorer(WritingBenchParams(judge_mode=params.judge_mode, judge_attempts=params.judge_attempts))
    return curate_task(Path(params.in_file), scorer)


def _longweave(params: LongWeaveParams) -> Task:
    from .benchmarks.longweave.task import make_task

    return make_task(params)


def _render_longweave(results: Any) -> list[Any]:
    from .benchmarks.longweave.render import render

    return render(results)


def _meeseeks(params: MeeseeksParams) -> Task:
    from .benchmarks.meeseeks.task import make_task

    return make_task(params)


def _render_meeseeks(results: Any) -> list[Any]:
    from .benchmarks.meeseeks.render import render

    return render(results)


def _render_writingbench(results: Any) -> list[Any]:
    from .benchmarks.writingbench.render import render

    return render(results)


TASKS: dict[str, TaskEntry] = {
    "demo": TaskEntry("demo", "8 short bundled writing prompts: judge rating 1-10 + length adherence", _demo),
    "writingbench": TaskEntry(
        "writingbench", "WritingBench v2: 1,000 queries x 5 query-specific criteria, judge scores 1-10",
        _writingbench, WritingBenchParams, _render_writingbench),
    "longweave": TaskEntry(
        "longweave", "LongWeave: 7 generated, verifiable long-writing tasks at 1k/2k/4k/8k words",
        _longweave, LongWeaveParams, _render_longweave),
    "meeseeks": TaskEntry(
        "meeseeks", "Meeseeks: multi-constraint instruction following; rule checks + Yes/No judge, "
        "feedback over up to 20 rounds", _meeseeks, MeeseeksParams, _render_meeseeks),
    "writingbench-criteria": TaskEntry(
        "writingbench-criteria", "write 5 WritingBench-style criteria for your own queries "
        "(see: proseval writingbench criteria)", _writingbench_criteria, CriteriaParams),
    "writingbench-curate": TaskEntry(
        "writingbench-curate", "score instruction/response pairs with generated criteria "
        "(see: proseval writingbench curate)", _writingbench_curate, CurateParams),
}


def register(entry: TaskEntry) -> None:
    TASKS[entry.name] = entry


def get_entry(name: str) -> TaskEntry:
    if name not in TASKS:
        raise KeyError(f"unknown task {name!r}; available: {', '.join(sorted(TASKS))} (see: proseval list)")
    return TASKS[name]


def format_validation_error(task: str, exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        where = "--" + "-".join(str(part) for part in error["loc"]).replace("_", "-") if error["loc"] else "parameters"
        message = "unknown parameter" if error["type"] == "extra_forbidden" else error["msg"]
        message = message.removeprefix("Value error, ")
        lines.append(f"{where}: {message}")
    return f"task {task}: " + "; ".join(lines) + f" (see: proseval describe {task})"


def get_task(name: str, params: dict[str, Any] | None = None) -> Task:
    """Build a task; parameters are validated by the task's own model and recorded on the task."""
    entry = get_entry(name)
    try:
        validated = entry.params.model_validate(params or {})
    except ValidationError as exc:
        raise ValueError(format_validation_error(name, exc)) from None
    task = entry.factory(validated)
    task.params = validated.model_dump(mode="json")
    return task

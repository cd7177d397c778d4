"""The Python API: `run` a task, `resume` and `read_run` a run folder. The CLI is a layer over it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .core.task import Task
from .models.base import GenerateConfig
from .planning import plan
from .registry import get_scorer_plugin, get_task
from .runtime.aggregate import flatten_scores
from .runtime.records import Results, RunHeader, SampleRecord
from .runtime.roles import RoleRequest
from .runtime.runlog import RunFolder, RunFolderError
from .runtime.options import RunOptions
from .runtime.rescore import replay_task
from .runtime.resume import resume_run
from .runtime.runner import start_run


@dataclass(frozen=True)
class Run:
    """A run folder, read: its header, its results (None while unfinished) and its records."""

    path: Path
    header: RunHeader
    results: Results | None

    def records(self) -> Iterator[SampleRecord]:
        """Every sample record, as written (texts included)."""
        return RunFolder(self.path).iter_records()

    def samples_df(self) -> Any:
        """One row per (sample, epoch): id, epoch, status, model failure, metadata and every score.

        Needs pandas (``pip install pandas``).
        """
        import pandas as pd

        rows = []
        for sample in RunFolder(self.path).unique_scored()[0]:
            rows.append({"id": sample.id, "epoch": sample.epoch, "status": sample.status,
                         "model_failure": sample.model_failure,
                         **{f"meta.{k}": v for k, v in sample.metadata.items() if isinstance(v, (str, int, float))},
                         **flatten_scores(sample)})
        return pd.DataFrame(rows)

    def metrics_df(self) -> Any:
        """The headline metrics: mean, CI, scored, unscored and failed counts per metric (pandas)."""
        import pandas as pd

        if self.results is None:
            raise RunFolderError(f"{self.path} has no results yet (unfinished run)")
        return pd.DataFrame([{"metric": name, **summary.model_dump()} for name, summary in self.results.metrics.items()])


def read_run(path: str | Path) -> Run:
    """Open a run folder (raises `RunFolderError` with a clear message if it is not one)."""
    folder = RunFolder(Path(path))
    header = folder.read_header()
    results = folder.read_results() if folder.has_results else None
    return Run(folder.path, header, results)


def with_scorer(task: Task, name: str, options: Mapping[str, Any] | None = None) -> Task:
    """`task` scored by the registered scorer `name` only (for a re-score of its stored answers):
    the scorer's roles and prompts replace the task's judge-side ones; generic metrics only."""
    plugin = get_scorer_plugin(name)
    factory, prompts = plugin.load()
    made = factory(**dict(options or {}))
    configs = {**task.role_configs, **{role: GenerateConfig(**values) for role, values in plugin.role_configs.items()}}
    return replace(task, scorers=[made], roles_required=("candidate", *plugin.roles), rescore_roles=plugin.roles,
                   role_configs=configs, reevaluate=None, aggregate=None, artifacts=None, prompts=dict(prompts),
                   scorer_plugin={"name": name, "options": dict(options or {})})


def task_of(folder: RunFolder) -> Task:
    """The task a run folder was started with: its parameters, its scorer, its prompt files, its replay source."""
    header = folder.read_header()
    built = get_task(header.task, header.task_params)
    if header.scorer_plugin:
        built = with_scorer(built, header.scorer_plugin["name"], header.scorer_plugin.get("options"))
    built = replace(built, prompts=folder.prompt_overrides(built.prompts))
    return replay_task(built, RunFolder(Path(header.rescored_from))) if header.rescored_from else built


def run(
    task: str | Task,
    *,
    model: str | None = None,
    roles: dict[str, str] | None = None,
    base_url: str | list[str] | None = None,
    params: dict[str, Any] | None = None,
    gen: dict[str, dict[str, Any]] | None = None,
    prompts: Mapping[str, str | Path] | None = None,
    preset: str | None = None,
    concurrency: int | None = None,
    limit: int | None = None,
    epochs: int = 1,
    seed: int | None = None,
    out: str | Path = "runs",
    run_dir: str | Path | None = None,
    cache: bool = True,
    display: str = "none",
) -> Run:
    """Run a task and return the finished run.

    `task` is a registered name (with `params`, validated by the task) or a `Task`; `model` is
    the candidate (``provider/model``), `roles` binds the other roles, `gen` sets generation
    settings per role (``{"judge": {"temperature": 0}}``), `prompts` replaces prompt templates
    by files (``{"judge": "my_judge.txt"}``), `preset` names a setup of the task (``"paper"``).
    Without `model`, every role uses the embedded
    model (a demonstration, not an evaluation).
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1 (got {limit})")
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1 (got {epochs})")
    urls = [base_url] if isinstance(base_url, str) else list(base_url or [])
    request = RoleRequest(model=model, roles=dict(roles or {}), base_urls=urls, concurrency=concurrency,
                          generation=dict(gen or {}))
    planned = plan(task, request, params=params, prompts=prompts, preset=preset)
    options = RunOptions(out_dir=Path(out), limit=limit, epochs=epochs, seed=seed, use_cache=cache,
                         display=display)  # type: ignore[arg-type]
    folder, _ = asyncio.run(start_run(planned.task, planned.bindings, options, demo=planned.demo,
                                      run_dir=Path(run_dir) if run_dir else None))
    return read_run(folder.path)


def resume(path: str | Path, *, retry_failed: bool = False, limit: int | None = None, cache: bool = True,
           display: str = "none") -> Run:
    """Continue a run folder with the configuration it was started with (see `proseval resume`)."""
    folder = RunFolder(Path(path))
    options = RunOptions(out_dir=folder.path.parent, use_cache=cache, display=display,  # type: ignore[arg-type]
                         retry_failed=retry_failed, limit=limit)
    asyncio.run(resume_run(folder, task_of(folder), options))
    return read_run(folder.path)

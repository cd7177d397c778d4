"""The Python API: `run` a task and `read_run` a run folder (the CLI does the same from the shell)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .core.task import Task
from .registry import get_task
from .runtime.aggregate import flatten_scores
from .runtime.records import Results, RunHeader, SampleRecord
from .runtime.roles import RoleRequest, resolve_roles
from .runtime.runlog import RunFolder, RunFolderError
from .runtime.runner import RunOptions, start_run


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
    results = folder.read_results() if (folder.path / "results.json").is_file() else None
    return Run(folder.path, header, results)


def run(
    task: str | Task,
    *,
    model: str | None = None,
    roles: dict[str, str] | None = None,
    base_url: str | list[str] | None = None,
    params: dict[str, Any] | None = None,
    gen: dict[str, dict[str, Any]] | None = None,
    concurrency: int | None = None,
    limit: int | None = None,
    epochs: int = 1,
    seed: int | None = None,
    out: str | Path = "runs",
    cache: bool = True,
    display: str = "none",
) -> Run:
    """Run a task and return the finished run.

    `task` is a registered name (with `params`, validated by the task) or a `Task`; `model` is
    the candidate (``provider/model``), `roles` binds the other roles, `gen` sets generation
    settings per role (``{"judge": {"temperature": 0}}``). Without `model`, every role uses the
    embedded model (a demonstration, not an evaluation).
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1 (got {limit})")
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1 (got {epochs})")
    built = get_task(task, params) if isinstance(task, str) else task
    urls = [base_url] if isinstance(base_url, str) else list(base_url or [])
    request = RoleRequest(model=model, roles=dict(roles or {}), base_urls=urls, concurrency=concurrency,
                          generation=dict(gen or {}))
    bindings, _, demo = resolve_roles(request, built.roles_required, built.role_configs)
    options = RunOptions(out_dir=Path(out), limit=limit, epochs=epochs, seed=seed, use_cache=cache,
                         display=display)  # type: ignore[arg-type]
    folder, _ = asyncio.run(start_run(built, bindings, options, demo=demo))
    return read_run(folder.path)

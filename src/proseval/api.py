"""The Python API: `run` a task, `resume` and `read_run` a run folder, `score` stored answers again,
and `agreement` between the judges of run folders. The CLI is a layer over it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core.prices import Prices, read_prices
from .core.prompt import override_prompts
from .core.task import Task
from .errors import UsageError
from .models.base import GenerateConfig, check_seed
from .planning import plan
from .registry import get_scorer_plugin, get_task
from .runtime.aggregate import flatten_scores
from .runtime.cost import CostMeter, meter_for, previous_spend
from .runtime.options import RunOptions
from .runtime.progress import Display
from .runtime.records import Results, RoleBinding, RunHeader, SampleRecord
from .runtime.rescore import replay_task, rescore_run
from .runtime.resume import resume_run
from .runtime.roles import RoleRequest, resolve_roles
from .runtime.runlog import RunFolder, RunFolderError
from .runtime.runner import start_run

if TYPE_CHECKING:
    from .reliability.card import Analysis


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
            rows.append(
                {
                    "id": sample.id,
                    "epoch": sample.epoch,
                    "status": sample.status,
                    "model_failure": sample.model_failure,
                    **{f"meta.{k}": v for k, v in sample.metadata.items() if isinstance(v, (str, int, float))},
                    **flatten_scores(sample),
                }
            )
        return pd.DataFrame(rows)

    def metrics_df(self) -> Any:
        """The headline metrics: mean, CI, scored, unscored and failed counts per metric (pandas)."""
        import pandas as pd

        if self.results is None:
            raise RunFolderError(f"{self.path} has no results yet (unfinished run)")
        return pd.DataFrame(
            [{"metric": name, **summary.model_dump()} for name, summary in self.results.metrics.items()]
        )


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
    return replace(
        task,
        scorers=[made],
        roles_required=("candidate", *plugin.roles),
        rescore_roles=plugin.roles,
        role_configs=configs,
        reevaluate=None,
        aggregate=None,
        artifacts=None,
        prompts=dict(prompts),
        scorer_plugin={"name": name, "options": dict(options or {})},
    )


def task_of(folder: RunFolder) -> Task:
    """The task a run folder was started with: its parameters, its scorer, its prompt files, its replay source."""
    header = folder.read_header()
    built = get_task(header.task, header.task_params)
    if header.scorer_plugin:
        built = with_scorer(built, header.scorer_plugin["name"], header.scorer_plugin.get("options"))
    built = replace(built, prompts=folder.prompt_overrides(built.prompts))
    return replay_task(built, RunFolder(Path(header.rescored_from))) if header.rescored_from else built


def rescore_setup(
    source: RunFolder,
    request: RoleRequest,
    *,
    prompts: Mapping[str, Path] | None = None,
    scorer: str | None = None,
    scorer_options: Mapping[str, Any] | None = None,
    swap_order: bool = False,
) -> tuple[Task, dict[str, RoleBinding], list[str]]:
    """The task and role bindings of a re-score of `source`: its task (with `scorer` instead of the
    task's own, or with the judge's texts in the other order for `swap_order`), the prompts it ran
    with and `prompts` over them, its own judge-side roles with `request`'s over them. Returns the
    warnings of role resolution too; raises UsageError for what cannot be re-scored so."""
    header = source.read_header()
    task = get_task(header.task, header.task_params)
    if swap_order:
        if task.swap_param is None:
            raise UsageError(
                f"{header.task} shows its judge no two texts whose order could be swapped (no position to probe)"
            )
        if header.task_params.get(task.swap_param) == "swapped":
            raise UsageError(
                f"{source.path} was judged with the order swapped already; re-score the run it was made from"
            )
        task = get_task(header.task, {**header.task_params, task.swap_param: "swapped"})
    if scorer is not None:
        task = with_scorer(task, scorer, scorer_options)
    else:
        task = replace(task, prompts=source.prompt_overrides(task.prompts))
    task = replace(task, prompts=override_prompts(task.prompts, dict(prompts or {}), task.name))
    if "candidate" in request.roles:
        raise UsageError("re-scoring keeps the stored candidate outputs; bind only other roles")
    rebound, warnings, _ = resolve_roles(request, tuple(request.roles), task.role_configs, allow_demo=False)
    kept = {r: b for r, b in header.roles.items() if r != "candidate" and r in task.roles_required}
    bindings = {**kept, **rebound}
    missing = [r for r in task.roles_required if r != "candidate" and r not in bindings]
    if missing:
        raise UsageError(f"the task needs the role(s) {', '.join(missing)}: add --role ROLE=PROVIDER/MODEL")
    return task, bindings, warnings


def score(
    path: str | Path,
    *,
    roles: dict[str, str] | None = None,
    gen: dict[str, dict[str, Any]] | None = None,
    repeats: int = 0,
    swap_order: bool = False,
    out: str | Path | None = None,
    cache: bool = True,
    display: Display = "none",
) -> list[Run]:
    """Judge the answers stored in a run folder again (see `proseval score`): with other judges
    (`roles`), the same judge `repeats` more times (repeats 1..N, each with its own cache entries
    and seeds), or with the judge's two texts swapped. Returns the new run(s)."""
    source = RunFolder(Path(path))
    request = RoleRequest(
        model=None, roles=dict(roles or {}), base_urls=[], concurrency=None, generation=dict(gen or {})
    )
    task, bindings, _ = rescore_setup(source, request, swap_order=swap_order)
    options = RunOptions(out_dir=Path(out) if out is not None else source.path.parent, use_cache=cache, display=display)
    made = []
    for repeat in range(1, repeats + 1) if repeats else (0,):
        folder, _ = asyncio.run(rescore_run(source, task, bindings, replace(options, repeat=repeat)))
        made.append(read_run(folder.path))
    return made


def agreement(
    paths: Sequence[str | Path],
    *,
    labels: str | Path | None = None,
    prices: str | Path | None = None,
    seed: int = 0,
    panel: str = "mean",
    data_dir: str | Path | None = None,
) -> Analysis:
    """Judge the judges of these run folders (see `proseval agreement`): evaluator cards, agreement
    between judges and with human `labels`, consistency, bias, cost, and the judges read as a panel
    (an item's panel score: the `panel` of the verdicts that scored, "mean" or "median"). `data_dir`
    is the benchmark's data, needed only for runs made before runs recorded their verdicts."""
    from .reliability.analysis import analyse  # scipy: imported by the analysis only
    from .reliability.labels import read_labels

    return analyse(
        [Path(p) for p in paths],
        labels=read_labels(Path(labels)) if labels is not None else None,
        prices=read_prices(Path(prices)) if prices is not None else None,
        seed=seed,
        panel=panel,
        data_dir=Path(data_dir) if data_dir is not None else None,
    )


def _cost_meter(
    prices: str | Path | Prices | None,
    max_cost: float | None,
    estimate_output: Mapping[str, int] | None,
    bindings: Sequence[RoleBinding],
    *,
    previous: float = 0.0,
) -> CostMeter | None:
    """The meter of `run`, `resume` and `run_set` (proseval docs many-models, Cost): None without prices;
    `max_cost` needs prices, and a price for every bound model. Raises UsageError before anything is sent."""
    if max_cost is not None and prices is None:
        raise UsageError(
            "max_cost needs prices (a prices file, or a Prices): the price of each model, in the "
            "currency the limit is in"
        )
    if max_cost is not None and not max_cost > 0:
        raise UsageError(f"max_cost must be a positive amount (got {max_cost})")
    low = {
        role: n for role, n in (estimate_output or {}).items() if isinstance(n, bool) or not isinstance(n, int) or n < 1
    }
    if low:
        raise UsageError(f"estimate_output: each role's tokens must be a whole number of at least 1 (got {low})")
    if prices is None:
        return None
    loaded = prices if isinstance(prices, Prices) else read_prices(Path(prices))
    return meter_for(
        loaded,
        [b.spec for b in bindings],
        limit=max_cost,
        estimates=estimate_output,
        previous=previous,
        source="the prices" if isinstance(prices, Prices) else str(prices),
    )


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
    display: Display = "none",
    batch: Sequence[str] = (),
    prices: str | Path | Prices | None = None,
    max_cost: float | None = None,
    estimate_output: Mapping[str, int] | None = None,
    probe: bool = True,
) -> Run:
    """Run a task and return the finished run.

    `task` is a registered name (with `params`, validated by the task) or a `Task`; `model` is
    the candidate (``provider/model``), `roles` binds the other roles, `gen` sets generation
    settings per role (``{"judge": {"temperature": 0}}``), `prompts` replaces prompt templates
    by files (``{"judge": "my_judge.txt"}``), `preset` names a setup of the task (``"paper"``).
    Without `model`, every role uses the embedded
    model (a demonstration, not an evaluation). `batch` names roles whose requests go through the
    provider's batch API (``["judge"]``; proseval docs many-models, Batch mode). `prices` (a prices file
    or a `Prices`) records the spend per role in the results; `max_cost` stops starting new work at
    that spend, in the prices' currency: the run is returned incomplete (`results.complete` is
    False) and `resume` with a higher limit continues it; `estimate_output` states the output
    tokens per role its requests are reserved at (proseval docs many-models, Cost). `probe` sends every
    remote model one short request first, so that a wrong name, key or setting stops the run
    before anything is paid for (proseval docs models).
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1 (got {limit})")
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1 (got {epochs})")
    if seed is not None:
        check_seed(seed, name="seed")
    urls = [base_url] if isinstance(base_url, str) else list(base_url or [])
    request = RoleRequest(
        model=model, roles=dict(roles or {}), base_urls=urls, concurrency=concurrency, generation=dict(gen or {})
    )
    planned = plan(task, request, params=params, prompts=prompts, preset=preset)
    meter = _cost_meter(prices, max_cost, estimate_output, list(planned.bindings.values()))
    options = RunOptions(
        out_dir=Path(out),
        limit=limit,
        epochs=epochs,
        seed=seed,
        use_cache=cache,
        display=display,
        batch_roles=tuple(batch),
        cost=meter,
        probe=probe,
    )
    folder, _ = asyncio.run(
        start_run(
            planned.task, planned.bindings, options, demo=planned.demo, run_dir=Path(run_dir) if run_dir else None
        )
    )
    return read_run(folder.path)


def resume(
    path: str | Path,
    *,
    retry_failed: bool = False,
    limit: int | None = None,
    cache: bool = True,
    display: Display = "none",
    prices: str | Path | Prices | None = None,
    max_cost: float | None = None,
    estimate_output: Mapping[str, int] | None = None,
) -> Run:
    """Continue a run folder with the configuration it was started with (see `proseval resume`);
    `max_cost` limits the run's whole spend, its earlier sessions' included (see `run`)."""
    folder = RunFolder(Path(path))
    meter = _cost_meter(
        prices,
        max_cost,
        estimate_output,
        list(folder.read_header().roles.values()),
        previous=previous_spend(folder.read_usage()),
    )
    options = RunOptions(
        out_dir=folder.path.parent, use_cache=cache, display=display, retry_failed=retry_failed, limit=limit, cost=meter
    )
    asyncio.run(resume_run(folder, task_of(folder), options))
    return read_run(folder.path)


def run_set(
    path: str | Path,
    *,
    max_runs: int | None = None,
    retry_failed: bool = False,
    cache: bool | None = None,
    display: Display = "none",
    prices: str | Path | Prices | None = None,
    max_cost: float | None = None,
    estimate_output: Mapping[str, int] | None = None,
) -> Any:
    """Run the evaluation set declared in the YAML file `path` (see `proseval run-set` and
    proseval docs many-models): every missing run is started, finished ones are skipped, unfinished ones
    resumed, at most `max_runs` at once, sharing the file's endpoint limits. Returns a
    `runtime.sets.SetResult` (each member's state and results, one ranking per task entry by its
    headline metric); a failed member is reported there, not raised, and `set.json` is written
    into the set folder (`proseval run-set` also writes `report.html`). A bad file or member
    option raises before anything is sent or written. `prices`, `max_cost` and `estimate_output`
    (as for `run`; each over the set file's key of the same name) price and limit the spend of all
    members together, counted from what their run folders recorded; members stopped at the limit
    are `stopped`, and running the set again with a higher limit continues them."""
    from .commandline.sets import plan_set
    from .runtime.loop import run_async
    from .runtime.sets import recorded_spend, run_set_async

    setplan = plan_set(Path(path), max_runs=max_runs, use_cache=cache)
    keys = setplan.file
    meter = _cost_meter(
        prices if prices is not None else keys.prices,
        max_cost if max_cost is not None else keys.max_cost,
        estimate_output if estimate_output is not None else keys.estimate_output,
        [b for m in setplan.members for b in m.bindings.values()],
        previous=recorded_spend(setplan),
    )
    return run_async(run_set_async(setplan, display=display, retry_failed=retry_failed, cost=meter))

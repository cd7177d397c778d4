"""`proseval run TASK`: start a run (or continue one with --resume)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..commandline.console import errors, fail
from ..commandline.cost import (
    DryRunOpt,
    EstimateOutputOpt,
    MaxCostOpt,
    PricesOpt,
    cost_request,
    dry_run,
    stop_if_limited,
)
from ..commandline.envfile import load_env_file
from ..commandline.options import (
    ROLE_DEFAULTS,
    BatchOpt,
    ConfigOpt,
    DisplayOpt,
    ModelOpt,
    NoCacheOpt,
    NoProbeOpt,
    PresetOpt,
    RoleArgs,
    with_role_options,
)
from ..commandline.requests import checked, display_mode, first, prompt_files
from ..commandline.running import execute_plan, exit_if_failed, report_run
from ..models.base import check_seed
from ..planning import plan
from ..runtime.config import load_run_config
from ..runtime.options import RunOptions
from .common import check_counts, check_option_values, requested_config, resume_folder, task_params_from
from .panel import bind_panel, judge_panel, parse_panel

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
@with_role_options
def run(
    ctx: typer.Context,
    task: Optional[str] = typer.Argument(
        None,
        help="Task name (see: proseval list); its own options (see: proseval describe TASK) follow as --name value.",
    ),
    model: Optional[str] = ModelOpt,
    roles: RoleArgs = ROLE_DEFAULTS,  # --role, --base-url, ... --prompt (`with_role_options`)
    preset: Optional[str] = PresetOpt,
    param: Optional[list[str]] = typer.Option(None, "--param", "-T", help="KEY=VALUE task parameter. Repeatable."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", help="Run only the first N samples."),
    seed: Optional[int] = typer.Option(
        None, "--seed", help="Seed sent to every model (and used for bootstrap CIs): 0 to 2**63-1."
    ),
    epochs: Optional[int] = typer.Option(None, "--epochs", help="Repeat every sample N times."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder that holds run folders (default: runs)."),
    run_dir: Optional[Path] = typer.Option(None, "--run-dir", help="Exact run folder to create."),
    resume: Optional[Path] = typer.Option(None, "--resume", help="Continue this run folder instead of starting anew."),
    force: bool = typer.Option(False, "--force", help="With --resume: continue despite a configuration change."),
    no_cache: Optional[bool] = NoCacheOpt,
    no_probe: bool = NoProbeOpt,
    display: Optional[str] = DisplayOpt,
    config: Optional[Path] = ConfigOpt,
    panel: Optional[list[str]] = typer.Option(
        None,
        "--panel",
        help="ROLE=PROVIDER/MODEL[@URL]: after the run, judge "
        "its answers again with this judge too (repeatable): a panel of the "
        "run's own judge and these, each judge's scores kept in a run folder of "
        "its own, the panel's scores and agreement in RUN-panel/. A panel judge "
        "has the run judge's settings, seed and (same provider, no @URL) "
        "endpoints; see proseval docs judging-judges.",
    ),
    panel_score: str = typer.Option(
        "mean",
        "--panel-score",
        help="An item's panel score: the mean or median of the verdicts of the judges that scored it.",
    ),
    dry_run_: bool = DryRunOpt,
    prices: Optional[Path] = PricesOpt,
    max_cost: Optional[float] = MaxCostOpt,
    estimate_output: Optional[list[str]] = EstimateOutputOpt,
    batch: Optional[list[str]] = BatchOpt,
) -> None:
    """Run a task and print its results table."""
    load_env_file()
    check_counts(limit=limit, epochs=epochs)
    if out is not None and run_dir is not None:
        fail("give --out (the folder that holds run folders) or --run-dir (the exact run folder), not both")
    check_option_values(roles.base_url, roles.role_base_url, max_cost)
    if seed is not None:
        check_seed(seed, name="--seed")
    cfg = load_run_config(config)
    cost = cost_request(prices, max_cost, estimate_output, cfg if config is not None else None)
    members = checked(lambda: parse_panel(panel))
    if panel_score not in ("mean", "median"):
        fail(f"--panel-score must be mean or median, not {panel_score!r}")
    if resume is not None:
        if members:
            fail(
                "--panel goes with a new run; for a finished run: proseval score RUN --role ROLE=... then "
                "proseval agreement"
            )
        changes = any(
            [
                task,
                model,
                roles.role,
                roles.base_url,
                roles.role_base_url,
                roles.gen,
                param,
                ctx.args,
                seed is not None,
                epochs is not None,
                config,
                roles.prompt,
                preset,
            ]
        )
        requested = None
        if changes:
            requested = requested_config(
                task,
                ctx.args,
                param,
                config,
                model,
                roles.role,
                roles.base_url,
                roles.role_base_url,
                roles.concurrency,
                roles.role_concurrency,
                roles.gen,
                resume,
                seed=seed,
                epochs=epochs,
                prompt=roles.prompt,
                preset=preset,
            )
        return resume_folder(
            resume,
            force=force,
            no_cache=bool(no_cache),
            display=display,
            limit=limit,
            requested=requested,
            cost=cost,
            dry_run=dry_run_,
            batch=batch,
            probe=not no_probe,
        )
    task_name = task or cfg.task
    if not task_name:
        fail("name a task, e.g. proseval run demo (see: proseval list)")
    params = task_params_from(param or [], cfg, list(ctx.args))
    request = checked(lambda: roles.request(cfg, model))
    if dry_run_ and members:
        fail("--panel goes with a run, not with --dry-run")
    planned = checked(
        lambda: plan(
            task_name, request, params=params, prompts=prompt_files(roles.prompt, cfg), preset=preset or cfg.preset
        )
    )
    if dry_run_:
        for warning in planned.warnings:
            errors.print(f"[bold yellow]warning:[/] {warning}", highlight=False)
        dry_run(
            planned.task,
            planned.bindings,
            cost,
            limit=first(limit, cfg.limit),
            epochs=first(epochs, cfg.epochs, 1),
            batch_roles=tuple(batch or cfg.batch),
        )
        return
    options = RunOptions(
        out_dir=Path(first(out, cfg.out, "runs")),
        limit=first(limit, cfg.limit),
        seed=first(seed, cfg.seed),
        epochs=first(epochs, cfg.epochs, 1),
        use_cache=not first(no_cache, cfg.no_cache, False),
        display=display_mode(first(display, cfg.display)),
        max_attempts=first(cfg.max_attempts, RunOptions.max_attempts),
        batch_roles=tuple(batch or cfg.batch),
        probe=not no_probe,
    )
    judges = bind_panel(members, planned, request, options.seed)  # before the run sends anything
    folder, results = execute_plan(planned, options, run_dir=run_dir, cost=cost)
    report_run(folder, results)
    stop_if_limited(options.cost, folder, results, cost)
    if judges:
        judge_panel(folder.path, judges, options, panel_score)
    exit_if_failed(results)

"""What `run`, `resume` and `score` share beyond the command-line kit (`proseval.commandline`):
task options from flags, count checks, the configuration `run --resume` asks for, resuming a folder."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

from ..api import task_of
from ..commandline.console import fail
from ..commandline.cost import CostRequest, run_spend, stop_if_limited
from ..commandline.cost import dry_run as dry_run_estimate
from ..commandline.requests import checked, display_mode, prompt_files, role_request
from ..commandline.running import exit_if_failed, report_run, run_in_loop
from ..core.prices import finite_amount
from ..core.prompt import override_prompts
from ..errors import UsageError
from ..models.urls import check_url
from ..planning import plan
from ..runtime.config import RunConfig, load_run_config
from ..runtime.options import RunOptions
from ..runtime.resume import resume_run
from ..runtime.roles import RoleError, parse_assignments, parse_value
from ..runtime.runlog import RunFolder


def task_params_from(items: list[str], cfg: RunConfig, extra: list[str]) -> dict[str, Any]:
    """Task parameters from the YAML file, `-T KEY=VALUE` and task options such as `--data-dir X`."""
    params = dict(cfg.params)
    given = {k.replace("-", "_"): parse_value(v) for k, v in parse_assignments(items, "-T").items()}
    options = task_options(extra)
    for key in sorted(set(given) & set(options)):
        if given[key] != options[key]:
            raise RoleError(
                f"{key} is given twice (-T {key}={given[key]}, --{key.replace('_', '-')} {options[key]}): give it once"
            )
    params.update(given)
    params.update(options)
    return params


def task_options(args: list[str]) -> dict[str, Any]:
    """`--judge-mode batched --strict --length=1k` → {"judge_mode": "batched", "strict": True, "length": "1k"}."""
    options: dict[str, Any] = {}
    position = 0
    while position < len(args):
        token = args[position]
        if not token.startswith("--") or token == "--":
            raise RoleError(f"unexpected argument {token!r}; task options look like --name value")
        name, sep, value = token[2:].partition("=")
        if not sep:
            following = args[position + 1] if position + 1 < len(args) else None
            if following is not None and not following.startswith("--"):
                value, position = following, position + 1
            else:
                value = "true"
        options[name.replace("-", "_")] = parse_value(value)
        position += 1
    return options


def check_counts(**values: Optional[int]) -> None:
    """--limit and --epochs are counts: at least 1, checked before anything else."""
    for name, value in values.items():
        if value is not None and value < 1:
            fail(f"--{name} must be at least 1 (got {value})")


def check_option_values(
    base_url: Optional[list[str]], role_base_url: Optional[list[str]], max_cost: Optional[float]
) -> None:
    """--base-url and --role-base-url ROLE=URL checked where they enter (`models.urls`), and
    --max-cost a finite amount (`core.prices.finite_amount`): before anything is made or sent."""
    for url in base_url or []:
        check_url(url, "--base-url")
    for item in role_base_url or []:
        role, _, url = item.partition("=")
        check_url(url, f"--role-base-url {role}")
    if max_cost is not None:
        try:
            finite_amount(max_cost)
        except ValueError as exc:
            raise UsageError(f"--max-cost {exc}") from None


def requested_config(
    task: Optional[str],
    extra: list[str],
    param,
    config,
    model,
    role,
    base_url,
    role_base_url,
    concurrency,
    role_concurrency,
    gen,
    resume: Path,
    *,
    seed: Optional[int],
    epochs: Optional[int],
    prompt: Optional[list[str]] = None,
    preset: Optional[str] = None,
) -> tuple[Any, dict[str, Any]]:
    """The task and role bindings the options of `run --resume` describe, to compare with the run's."""
    header = RunFolder(resume).read_header()
    for name, asked, recorded in (("seed", seed, header.seed), ("epochs", epochs, header.epochs)):
        if asked is not None and asked != recorded:
            fail(
                f"--{name} {asked}: {resume} was run with {name} {recorded}, which a resume cannot change; "
                "start a new run"
            )
    cfg = load_run_config(config)
    params = task_params_from(param or [], cfg, list(extra))
    request = checked(
        lambda: role_request(cfg, model, role, base_url, role_base_url, concurrency, role_concurrency, gen)
    )
    name = task or cfg.task or header.task
    chosen = preset or cfg.preset or (header.preset or {}).get("name")
    planned = checked(lambda: plan(name, request, params=params, preset=chosen))
    kept = RunFolder(resume).prompt_overrides(planned.task.prompts)  # the run's own prompt files
    files = prompt_files(prompt, cfg)
    the_task = replace(planned.task, prompts=checked(lambda: override_prompts(kept, files, name)))
    return the_task, planned.bindings


def resume_folder(
    path: Path,
    *,
    force: bool,
    no_cache: bool,
    display: Optional[str],
    limit: Optional[int],
    retry_failed: bool = False,
    requested: Optional[tuple[Any, dict[str, Any]]] = None,
    cost: Optional[CostRequest] = None,
    dry_run: bool = False,
    batch: Optional[list[str]] = None,
    probe: bool = True,
) -> None:
    """Continue the run in `path` (with the task and bindings `run --resume` asked for, if any) and print it;
    with `dry_run`, only estimate what continuing it would send (`commandline.cost`)."""
    folder = RunFolder(path)
    the_task, bindings = requested if requested else (task_of(folder), None)
    if dry_run:
        header = folder.read_header()
        done = {(s.id, s.epoch) for s in folder.iter_scored() if not (retry_failed and s.needs_retry)}
        dry_run_estimate(
            the_task,
            bindings if bindings is not None else header.roles,
            cost or CostRequest(),
            limit=limit if limit is not None else header.limit,
            epochs=header.epochs,
            done=done,
            label=header.run_id,
            batch_roles=tuple(batch or header.batch),
        )
        return
    options = RunOptions(
        out_dir=path.parent,
        use_cache=not no_cache,
        display=display_mode(display),
        force=force,
        retry_failed=retry_failed,
        limit=limit,
        batch_roles=tuple(batch or ()),
        probe=probe,
    )
    if cost is not None:  # the limit counts what the run's earlier sessions recorded as spent
        header = folder.read_header()
        roles = bindings if bindings is not None else header.roles
        options.cost = cost.meter(roles.values(), previous=run_spend(folder))
    results = run_in_loop(resume_run(folder, the_task, options, bindings))
    report_run(folder, results)
    if cost is not None:
        stop_if_limited(options.cost, folder, results, cost)
    exit_if_failed(results)

"""What the commands share: consoles, common options, configuration files, role requests, errors.

Benchmark command groups use these too (`proseval.cli.common`), so that every command reads
options, reports errors and prints results the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.console import Console

from ..api import plan, task_of
from ..core.prompt import override_prompts
from ..errors import ProsevalError, UsageError
from ..registry import tasks
from ..report.tables import print_results
from ..runtime.config import RunConfig, load_run_config
from ..runtime.loop import run_async
from ..runtime.roles import RoleError, RoleRequest, nest_generation, parse_assignments, parse_value
from ..runtime.runlog import RunFolder
from ..runtime.runner import RunOptions, resume_run, start_run
from .boundary import errors, print_error

console = Console()

ModelOpt = typer.Option(None, "--model", "-m", help="Candidate model, PROVIDER/MODEL (e.g. openai/gpt-4o-mini, "
                        "openai-compatible/qwen2.5-7b, local/smollm2-135m).")
RoleOpt = typer.Option(None, "--role", "-r", help="Bind a role: ROLE=PROVIDER/MODEL, e.g. judge=openai/gpt-4o-mini. Repeatable.")
BaseUrlOpt = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint; repeat to spread requests over replicas.")
RoleBaseUrlOpt = typer.Option(None, "--role-base-url", help="ROLE=URL: endpoint for one role only. Repeatable.")
ConcurrencyOpt = typer.Option(None, "--concurrency", "-c", help="Requests in flight per role (default: 16 remote, 1 local).")
RoleConcurrencyOpt = typer.Option(None, "--role-concurrency", help="ROLE=N: concurrency for one role. Repeatable.")
GenOpt = typer.Option(None, "--gen", "-g", help="ROLE.PARAM=VALUE generation setting, e.g. candidate.max_tokens=2048, "
                      "judge.temperature=0, candidate.top_k=20, candidate.timeout=1800; ROLE.extra.KEY=VALUE sends a "
                      "provider-specific field as given. Only what is set is sent. Repeatable.")
ConfigOpt = typer.Option(None, "--config", help="YAML file mirroring these options (flags win).")
DisplayOpt = typer.Option(None, "--display", help="Progress display: rich, plain (log lines) or none.")
NoCacheOpt = typer.Option(None, "--no-cache", help="Neither read nor write the response cache.", show_default=False)
PresetOpt = typer.Option(None, "--preset", help="A named setup of the task, e.g. paper or official (see: proseval "
                         "describe TASK); your own options and -g settings win over it.")
PromptOpt = typer.Option(None, "--prompt", help="NAME=FILE: send the text of FILE as the task's prompt NAME "
                         "(see: proseval describe TASK). Repeatable.")



def fail(message: str, code: int = 2) -> NoReturn:
    """Print one `error:` line and exit with `code` (2: a usage error)."""
    print_error(message)
    raise typer.Exit(code)


def first(*values: Any) -> Any:
    """The first value that is set (not None): a flag, then the config file's, then a default."""
    return next((value for value in values if value is not None), None)


def as_config(cfg: RunConfig | Mapping[str, Any]) -> RunConfig:
    """A `RunConfig`, or a mapping of its keys (`{}`: nothing set)."""
    return cfg if isinstance(cfg, RunConfig) else RunConfig.model_validate(cfg)


def generation_settings(items: list[str]) -> dict[str, dict[str, Any]]:
    """`-g ROLE.PARAM=VALUE` flags as settings per role, each value read as YAML."""
    return nest_generation((k, parse_value(v)) for k, v in parse_assignments(items, "--gen").items())


def counts_by_role(items: list[str], what: str) -> dict[str, int]:
    """`ROLE=N` flags as whole numbers."""
    counts = {}
    for role, text in parse_assignments(items, what).items():
        value = parse_value(text)
        if not isinstance(value, int) or isinstance(value, bool):
            raise RoleError(f"{what} {role}={text}: N must be a whole number")
        counts[role] = value
    return counts


def role_request(cfg: RunConfig | Mapping[str, Any], model, role, base_url, role_base_url, concurrency,
                 role_concurrency, gen) -> RoleRequest:
    """The role bindings, endpoints, concurrency and generation settings asked for: each flag
    replaces the config file's value of the same key."""
    config = as_config(cfg)
    role_urls: dict[str, list[str]] = {}
    for item in role_base_url or []:
        name, _, url = item.partition("=")
        role_urls.setdefault(name, []).append(url)
    return RoleRequest(
        model=model or config.model,
        roles=parse_assignments(role, "--role") if role else dict(config.role),
        base_urls=list(base_url or config.base_url),
        role_base_urls=role_urls or {name: list(urls) for name, urls in config.role_base_url.items()},
        concurrency=first(concurrency, config.concurrency),
        role_concurrency=(counts_by_role(role_concurrency, "--role-concurrency") if role_concurrency
                          else dict(config.role_concurrency)),
        generation=generation_settings(gen) if gen else config.generation(),
    )


def prompt_files(prompt: Optional[list[str]], cfg: RunConfig | Mapping[str, Any]) -> dict[str, Path]:
    """--prompt NAME=FILE (or `prompts:` in the YAML file), each file checked to exist."""
    items = parse_assignments(prompt, "--prompt") if prompt else as_config(cfg).prompt
    files = {name: Path(path) for name, path in items.items()}
    for name, path in files.items():
        if not path.is_file():
            fail(f"--prompt {name}={path}: no such file")
    return files


def display_mode(value: Optional[str]) -> str:
    if value is None:
        return "rich" if sys.stderr.isatty() else "plain"
    if value not in ("rich", "plain", "none"):
        fail(f"--display must be rich, plain or none (got {value!r})")
    return value


def run_in_loop(coro: Any) -> Any:
    try:
        return run_async(coro)
    except KeyboardInterrupt:
        errors.print("[yellow]interrupted: finished samples are saved; continue with proseval resume RUN_DIR[/]")
        raise typer.Exit(130) from None


def task_tables(task_name: str, results: Any) -> list[Any]:
    entry = tasks().get(task_name)
    return entry.render(results) if entry is not None and entry.render is not None else []


def report_run(folder: RunFolder, results: Any) -> None:
    header = folder.read_header()
    print_results(console, header, results, task_tables(header.task, results))
    console.print(f"run folder: {folder.path}")


def task_params_from(items: list[str], cfg: RunConfig, extra: list[str]) -> dict[str, Any]:
    """Task parameters from the YAML file, `-T KEY=VALUE` and task options such as `--data-dir X`."""
    params = dict(cfg.params)
    params.update({k.replace("-", "_"): parse_value(v) for k, v in parse_assignments(items, "-T").items()})
    params.update(task_options(extra))
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


def requested_config(task: Optional[str], extra: list[str], param, config, model, role, base_url, role_base_url,
                      concurrency, role_concurrency, gen, resume: Path, *, seed: Optional[int],
                      epochs: Optional[int], prompt: Optional[list[str]] = None,
                      preset: Optional[str] = None) -> tuple[Any, dict[str, Any]]:
    """The task and role bindings the options of `run --resume` describe, to compare with the run's."""
    header = RunFolder(resume).read_header()
    for name, asked, kept in (("seed", seed, header.seed), ("epochs", epochs, header.epochs)):
        if asked is not None and asked != kept:
            fail(f"--{name} {asked}: {resume} was run with {name} {kept}, which a resume cannot change; "
                  "start a new run")
    cfg = load_run_config(config)
    params = task_params_from(param or [], cfg, list(extra))
    request = checked(lambda: role_request(cfg, model, role, base_url, role_base_url, concurrency, role_concurrency,
                                          gen))
    name = task or cfg.task or header.task
    chosen = preset or cfg.preset or (header.preset or {}).get("name")
    planned = checked(lambda: plan(name, request, params=params, preset=chosen))
    kept = RunFolder(resume).prompt_overrides(planned.task.prompts)  # the run's own prompt files
    files = prompt_files(prompt, cfg)
    the_task = replace(planned.task, prompts=checked(lambda: override_prompts(kept, files, name)))
    return the_task, planned.bindings


def checked(build: Any) -> Any:
    """`build()`; a plain KeyError, ValueError or TypeError (a task's own check of its options) is a usage error."""
    try:
        return build()
    except ProsevalError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise UsageError(str(exc).strip("'\"")) from exc


def execute(task_name: str, params: dict[str, Any], request: RoleRequest, options: RunOptions,
            run_dir: Optional[Path] = None, prompts: Optional[dict[str, Path]] = None,
            preset: Optional[str] = None) -> tuple[RunFolder, Any]:
    """Build the task, check the roles and prompts (before any call), run it."""
    planned = checked(lambda: plan(task_name, request, params=params, prompts=prompts, preset=preset))
    for warning in planned.warnings:
        errors.print(f"[bold yellow]warning:[/] {warning}", highlight=False)
    return run_in_loop(start_run(planned.task, planned.bindings, options, demo=planned.demo, run_dir=run_dir))


def resume_folder(path: Path, *, force: bool, no_cache: bool, display: Optional[str], limit: Optional[int],
            retry_failed: bool = False, requested: Optional[tuple[Any, dict[str, Any]]] = None) -> None:
    folder = RunFolder(path)
    the_task, bindings = requested if requested else (task_of(folder), None)
    options = RunOptions(out_dir=path.parent, use_cache=not no_cache, display=display_mode(display), force=force,
                         retry_failed=retry_failed, limit=limit)
    report_run(folder, run_in_loop(resume_run(folder, the_task, options, bindings)))

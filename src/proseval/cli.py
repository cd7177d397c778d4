"""Command-line interface: `proseval list | run | resume | score | show | cache`."""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any, Optional

import typer
import yaml
from dotenv import load_dotenv
from rich.console import Console
from rich.markup import escape

from .doctor import COMPONENTS
from .models.base import FatalError
from .registry import command_groups, generate_commands, get_entry, get_task, load_errors, tasks
from .report.tables import print_results
from .runtime.cache import ResponseCache
from .runtime.loop import run_async
from .runtime.roles import RoleError, RoleRequest, parse_assignments, resolve_roles
from .runtime.runlog import RunFolder, RunFolderError
from .runtime.secrets import scrub
from .runtime.runner import ConfigMismatchError, RunOptions, replay_task, rescore_run, resume_run, start_run

app = typer.Typer(
    help="Evaluate how well large language models write.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
cache_app = typer.Typer(help="Inspect or clear the response cache.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")

console = Console()
errors = Console(stderr=True)

ModelOpt = typer.Option(None, "--model", "-m", help="Candidate model, PROVIDER/MODEL (e.g. openai/gpt-4o-mini, "
                        "openai-compatible/qwen2.5-7b, local/smollm2-135m).")
RoleOpt = typer.Option(None, "--role", "-r", help="Bind a role: ROLE=PROVIDER/MODEL, e.g. judge=openai/gpt-4o-mini. Repeatable.")
BaseUrlOpt = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint; repeat to spread requests over replicas.")
RoleBaseUrlOpt = typer.Option(None, "--role-base-url", help="ROLE=URL: endpoint for one role only. Repeatable.")
ConcurrencyOpt = typer.Option(None, "--concurrency", "-c", help="Requests in flight per role (default: 16 remote, 1 local).")
RoleConcurrencyOpt = typer.Option(None, "--role-concurrency", help="ROLE=N: concurrency for one role. Repeatable.")
GenOpt = typer.Option(None, "--gen", "-g", help="ROLE.PARAM=VALUE generation setting, e.g. candidate.max_tokens=2048, "
                      "judge.temperature=0. Repeatable.")
ConfigOpt = typer.Option(None, "--config", help="YAML file mirroring these options (flags win).")
DisplayOpt = typer.Option(None, "--display", help="Progress display: rich, plain (log lines) or none.")
NoCacheOpt = typer.Option(None, "--no-cache", help="Neither read nor write the response cache.", show_default=False)


def _fail(message: str, code: int = 2) -> None:
    errors.print(f"[bold red]error:[/] {escape(scrub(message))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _load_config(path: Optional[Path]) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        _fail(f"cannot read {path}: {exc}")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        _fail(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}")
    if not isinstance(data, dict):
        _fail(f"{path}: expected a mapping of option names to values")
    known = {"task", "model", "role", "roles", "base_url", "role_base_url", "concurrency", "role_concurrency",
             "gen", "limit", "seed", "out", "display", "no_cache", "params", "epochs", "max_attempts"}
    unknown = sorted(set(data) - known)
    if unknown:
        _fail(f"{path}: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return data


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, dict):
        return [f"{k}={v}" for k, v in value.items()]
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _pick(flag: Any, config: dict[str, Any], key: str, default: Any = None) -> Any:
    if flag not in (None, []):
        return flag
    return config.get(key, default)


def _parse_value(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def _generation(items: list[str]) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for key, value in parse_assignments(items, "--gen").items():
        role, dot, param = key.partition(".")
        if not dot:
            raise RoleError(f"--gen {key}={value} must look like ROLE.PARAM=VALUE")
        result.setdefault(role, {})[param] = _parse_value(value)
    return result


def _role_request(cfg: dict[str, Any], model, role, base_url, role_base_url, concurrency, role_concurrency, gen) -> RoleRequest:
    roles = parse_assignments(_as_list(role) or _as_list(cfg.get("role") or cfg.get("roles")), "--role")
    role_urls: dict[str, list[str]] = {}
    for item in _as_list(role_base_url) or _as_list(cfg.get("role_base_url")):
        name, _, url = item.partition("=")
        role_urls.setdefault(name, []).append(url)
    return RoleRequest(
        model=_pick(model, cfg, "model"),
        roles=roles,
        base_urls=_as_list(base_url) or _as_list(cfg.get("base_url")),
        role_base_urls=role_urls,
        concurrency=_pick(concurrency, cfg, "concurrency"),
        role_concurrency={k: int(v) for k, v in parse_assignments(
            _as_list(role_concurrency) or _as_list(cfg.get("role_concurrency")), "--role-concurrency").items()},
        generation=_generation(_as_list(gen) or _as_list(cfg.get("gen"))),
    )


def _display(value: Optional[str]) -> str:
    if value is None:
        return "rich" if sys.stderr.isatty() else "plain"
    if value not in ("rich", "plain", "none"):
        _fail(f"--display must be rich, plain or none (got {value!r})")
    return value


def _run_async(coro: Any) -> Any:
    try:
        return run_async(coro)
    except KeyboardInterrupt:
        errors.print("[yellow]interrupted: finished samples are saved; continue with proseval resume RUN_DIR[/]")
        raise typer.Exit(130) from None


def _task_tables(task_name: str, results: Any) -> list[Any]:
    entry = tasks().get(task_name)
    return entry.render(results) if entry is not None and entry.render is not None else []


def _report(folder: RunFolder, results: Any) -> None:
    header = folder.read_header()
    print_results(console, header, results, _task_tables(header.task, results))
    console.print(f"run folder: {folder.path}")


def _params(items: list[str], cfg: dict[str, Any], extra: list[str]) -> dict[str, Any]:
    """Task parameters from the YAML file, `-T KEY=VALUE` and task options such as `--data-dir X`."""
    params = dict(cfg.get("params") or {})
    params.update({k.replace("-", "_"): _parse_value(v) for k, v in parse_assignments(items, "-T").items()})
    params.update(_task_options(extra))
    return params


def _task_options(args: list[str]) -> dict[str, Any]:
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
        options[name.replace("-", "_")] = _parse_value(value)
        position += 1
    return options


@app.command("list")
def list_tasks() -> None:
    """List the tasks proseval can run."""
    from rich.table import Table

    table = Table(title="Tasks")
    table.add_column("task")
    table.add_column("what it is")
    for entry in tasks().values():
        table.add_row(entry.name, entry.summary)
    console.print(table)
    for problem in load_errors:
        errors.print(f"[bold yellow]warning:[/] {escape(problem)}", highlight=False, soft_wrap=True)


@app.command("describe")
def describe(task: str = typer.Argument(..., help="Task name.")) -> None:
    """Show a task's options (pass them to run as --name value)."""
    from rich.table import Table

    try:
        entry = get_entry(task)
    except KeyError as exc:
        _fail(str(exc).strip("'\""))
    console.print(f"[bold]{entry.name}[/]: {entry.summary}")
    fields = entry.params.model_fields
    if not fields:
        console.print("This task has no options.")
        return
    table = Table(title="Options", title_justify="left")
    for column in ("option", "type", "default", "meaning"):
        table.add_column(column)
    for name, info in fields.items():
        default = "required" if info.is_required() else repr(info.get_default(call_default_factory=True))
        cells = ("--" + name.replace("_", "-"), _type_label(info.annotation), default, info.description or "")
        table.add_row(*map(escape, cells))
    console.print(table)


def _type_label(annotation: Any) -> str:
    """A reader's name for an option type: `int`, `str | None`, `batched | per-criterion`, `list[str]`."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(map(str, args))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_label(arg) for arg in args)
    if origin is not None:
        return f"{getattr(origin, '__name__', origin)}[{', '.join(map(_type_label, args))}]"
    return "None" if annotation is type(None) else getattr(annotation, "__name__", str(annotation))


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(
    ctx: typer.Context,
    task: Optional[str] = typer.Argument(None, help="Task name (see: proseval list); its own options (see: "
                                         "proseval describe TASK) follow as --name value."),
    model: Optional[str] = ModelOpt,
    role: Optional[list[str]] = RoleOpt,
    base_url: Optional[list[str]] = BaseUrlOpt,
    role_base_url: Optional[list[str]] = RoleBaseUrlOpt,
    concurrency: Optional[int] = ConcurrencyOpt,
    role_concurrency: Optional[list[str]] = RoleConcurrencyOpt,
    gen: Optional[list[str]] = GenOpt,
    param: Optional[list[str]] = typer.Option(None, "--param", "-T", help="KEY=VALUE task parameter. Repeatable."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", help="Run only the first N samples."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed sent to every model (and used for bootstrap CIs)."),
    epochs: Optional[int] = typer.Option(None, "--epochs", help="Repeat every sample N times."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder that holds run folders (default: runs)."),
    run_dir: Optional[Path] = typer.Option(None, "--run-dir", help="Exact run folder to create."),
    resume: Optional[Path] = typer.Option(None, "--resume", help="Continue this run folder instead of starting anew."),
    force: bool = typer.Option(False, "--force", help="With --resume: continue despite a configuration change."),
    no_cache: Optional[bool] = NoCacheOpt,
    display: Optional[str] = DisplayOpt,
    config: Optional[Path] = ConfigOpt,
) -> None:
    """Run a task and print its results table."""
    load_dotenv(Path.cwd() / ".env")
    _check_counts(limit=limit, epochs=epochs)
    if resume is not None:
        changes = any([task, model, role, base_url, role_base_url, gen, param, ctx.args, seed is not None,
                       epochs is not None, config])
        requested = None
        if changes:
            requested = _requested_config(task, ctx.args, param, config, model, role, base_url, role_base_url,
                                          concurrency, role_concurrency, gen, resume, seed=seed, epochs=epochs)
        return _resume(resume, force=force, no_cache=bool(no_cache), display=display, limit=limit,
                       requested=requested)
    cfg = _load_config(config)
    task_name = task or cfg.get("task")
    if not task_name:
        _fail("name a task, e.g. proseval run demo (see: proseval list)")
    params = _params(param or [], cfg, list(ctx.args))
    request = _safe(lambda: _role_request(cfg, model, role, base_url, role_base_url, concurrency, role_concurrency,
                                          gen))
    options = RunOptions(
        out_dir=Path(_pick(out, cfg, "out", "runs")),
        limit=_pick(limit, cfg, "limit"),
        seed=_pick(seed, cfg, "seed"),
        epochs=int(_pick(epochs, cfg, "epochs", 1)),
        use_cache=not _pick(no_cache, cfg, "no_cache", False),
        display=_display(_pick(display, cfg, "display")),
        max_attempts=int(cfg.get("max_attempts", 6)),
    )
    folder, results = execute(task_name, params, request, options, run_dir=run_dir)
    _report(folder, results)


def _check_counts(**values: Optional[int]) -> None:
    """--limit and --epochs are counts: at least 1, checked before anything else."""
    for name, value in values.items():
        if value is not None and value < 1:
            _fail(f"--{name} must be at least 1 (got {value})")


def _requested_config(task: Optional[str], extra: list[str], param, config, model, role, base_url, role_base_url,
                      concurrency, role_concurrency, gen, resume: Path, *, seed: Optional[int],
                      epochs: Optional[int]) -> tuple[Any, dict[str, Any]]:
    """The task and role bindings the options of `run --resume` describe, to compare with the run's."""
    try:
        header = RunFolder(resume).read_header()
    except RunFolderError as exc:
        _fail(str(exc))
    for name, asked, kept in (("seed", seed, header.seed), ("epochs", epochs, header.epochs)):
        if asked is not None and asked != kept:
            _fail(f"--{name} {asked}: {resume} was run with {name} {kept}, which a resume cannot change; "
                  "start a new run")
    cfg = _load_config(config)
    params = _params(param or [], cfg, list(extra))
    request = _safe(lambda: _role_request(cfg, model, role, base_url, role_base_url, concurrency, role_concurrency,
                                          gen))
    the_task = _safe(lambda: get_task(task or cfg.get("task") or header.task, params))
    bindings, _, _ = _safe(lambda: resolve_roles(request, the_task.roles_required, the_task.role_configs))
    return the_task, bindings


def _safe(build: Any) -> Any:
    try:
        return build()
    except (KeyError, ValueError, TypeError) as exc:
        _fail(str(exc).strip("'\""))


def execute(task_name: str, params: dict[str, Any], request: RoleRequest, options: RunOptions,
            run_dir: Optional[Path] = None) -> tuple[RunFolder, Any]:
    """Build the task, check the roles (before any call), run it; errors become clear messages."""
    the_task = _safe(lambda: get_task(task_name, params))
    bindings, warnings, demo = _safe(lambda: resolve_roles(request, the_task.roles_required, the_task.role_configs))
    for warning in warnings:
        errors.print(f"[bold yellow]warning:[/] {warning}", highlight=False)
    try:
        return _run_async(start_run(the_task, bindings, options, demo=demo, run_dir=run_dir))
    except (FatalError, FileExistsError, RunFolderError) as exc:
        _fail(str(exc))


def _resume(path: Path, *, force: bool, no_cache: bool, display: Optional[str], limit: Optional[int],
            retry_failed: bool = False, requested: Optional[tuple[Any, dict[str, Any]]] = None) -> None:
    folder = RunFolder(path)
    try:
        header = folder.read_header()
        the_task, bindings = requested if requested else (get_task(header.task, header.task_params), None)
        if header.rescored_from:
            the_task = replay_task(the_task, RunFolder(Path(header.rescored_from)))
        options = RunOptions(out_dir=path.parent, use_cache=not no_cache, display=_display(display), force=force,
                             retry_failed=retry_failed, limit=limit)
        results = _run_async(resume_run(folder, the_task, options, bindings))
    except (RunFolderError, ConfigMismatchError, FatalError, KeyError) as exc:
        _fail(str(exc).strip("'\""))
    _report(folder, results)


@app.command("resume")
def resume_cmd(
    run_dir: Path = typer.Argument(..., help="Run folder to continue."),
    force: bool = typer.Option(False, "--force", help="Continue even if the task or model configuration changed."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Also run again the samples that failed."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", help="Extend or shrink the run's sample limit."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the response cache."),
    display: Optional[str] = DisplayOpt,
) -> None:
    """Continue an interrupted run: only samples without a finished record are run."""
    load_dotenv(Path.cwd() / ".env")
    _check_counts(limit=limit)
    _resume(run_dir, force=force, no_cache=no_cache, display=display, limit=limit, retry_failed=retry_failed)


@app.command("score")
def score_cmd(
    run_dir: Path = typer.Argument(..., help="Run folder whose stored outputs are scored again."),
    role: Optional[list[str]] = RoleOpt,
    base_url: Optional[list[str]] = BaseUrlOpt,
    role_base_url: Optional[list[str]] = RoleBaseUrlOpt,
    concurrency: Optional[int] = ConcurrencyOpt,
    role_concurrency: Optional[list[str]] = RoleConcurrencyOpt,
    gen: Optional[list[str]] = GenOpt,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for the new run folder (default: beside RUN_DIR)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the response cache."),
    display: Optional[str] = DisplayOpt,
) -> None:
    """Re-score a run's stored outputs with other judge-like roles; the candidate is not called."""
    load_dotenv(Path.cwd() / ".env")
    source = RunFolder(run_dir)
    warnings: list[str] = []
    try:
        header = source.read_header()
        the_task = get_task(header.task, header.task_params)
        request = _role_request({}, None, role, base_url, role_base_url, concurrency, role_concurrency, gen)
        if "candidate" in request.roles:
            _fail("re-scoring keeps the stored candidate outputs; bind only other roles")
        if not request.roles:
            _fail("name the role(s) to re-score with, e.g. --role judge=openai/gpt-4o-mini")
        rebound, warnings, _ = resolve_roles(request, tuple(request.roles), the_task.role_configs, allow_demo=False)
        bindings = {**{r: b for r, b in header.roles.items() if r != "candidate"}, **rebound}
        missing = [r for r in the_task.roles_required if r != "candidate" and r not in bindings]
        if missing:
            _fail(f"the task needs the role(s) {', '.join(missing)}: add --role ROLE=PROVIDER/MODEL")
        options = RunOptions(out_dir=out or run_dir.parent, use_cache=not no_cache, display=_display(display))
        folder, results = _run_async(rescore_run(source, the_task, bindings, options))
    except (RunFolderError, RoleError, FatalError, KeyError, ValueError) as exc:
        _fail(str(exc).strip("'\""))
    for warning in warnings:
        errors.print(f"[bold yellow]warning:[/] {warning}", highlight=False)
    _report(folder, results)


@app.command()
def show(run_dir: Path = typer.Argument(..., help="Run folder.")) -> None:
    """Print a run's results tables."""
    folder = RunFolder(run_dir)
    try:
        header = folder.read_header()
        results = folder.read_results()
    except RunFolderError as exc:
        _fail(str(exc))
    print_results(console, header, results, _task_tables(header.task, results))


@cache_app.command("stats")
def cache_stats() -> None:
    """Where the cache is, how many responses it holds and its size."""
    cache = ResponseCache()
    stats = cache.stats()
    cache.close()
    console.print(f"cache: {stats['path']}\nentries: {stats['entries']:,}\nsize on disk: {stats['file_bytes']:,} bytes")


@cache_app.command("clear")
def cache_clear(yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation.")) -> None:
    """Delete every cached response."""
    cache = ResponseCache()
    if not yes and not typer.confirm(f"Delete all cached responses in {cache.path}?"):
        raise typer.Exit(1)
    removed = cache.clear()
    cache.close()
    console.print(f"removed {removed:,} cached responses")


@app.command()
def doctor(
    require: Optional[list[str]] = typer.Option(
        None, "--require", help=f"A component that must work here ({', '.join(COMPONENTS)}); repeatable. "
        "Exit status 1 if it does not."),
    no_model: bool = typer.Option(False, "--no-model", help="Do not load and run the embedded model."),
) -> None:
    """What a bug report needs: versions, CPU, llama.cpp build, extras, sandbox; checks each part."""
    from rich.table import Table

    from .doctor import exit_status, run_checks

    required = set(require or [])
    unknown = required - set(COMPONENTS)
    if unknown:
        _fail(f"unknown component(s) for --require: {', '.join(sorted(unknown))} (choose from {', '.join(COMPONENTS)})")
    checks = run_checks(run_model=not no_model)
    table = Table(show_header=True, header_style="bold", box=None)
    table.add_column("check")
    table.add_column("status")
    table.add_column("detail", overflow="fold")
    colours = {"ok": "green", "warn": "yellow", "fail": "bold red", "info": "dim"}
    for check in checks:
        table.add_row(check.name, f"[{colours[check.status]}]{check.status}[/]", escape(check.detail))
    console.print(table)
    raise typer.Exit(exit_status(checks, required))


@app.command()
def schema(out: Path = typer.Option(Path("docs/schema"), "--out", "-o", help="Folder to write the schemas to.")) -> None:
    """Write the JSON Schemas of header.json, samples.jsonl records and results.json."""
    from .runtime.schema import export_schemas

    for path in export_schemas(out):
        console.print(f"wrote {path}")


generate_app = typer.Typer(help="Write benchmark datasets: generated samples or items expanded from a template.",
                           no_args_is_help=True)
app.add_typer(generate_app, name="generate")


for _name, _load in command_groups().items():
    app.add_typer(_load(), name=_name)
for _name, _load in generate_commands().items():
    generate_app.command(_name)(_load())


def main() -> None:  # pragma: no cover - entry point
    app()

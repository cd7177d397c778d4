"""`proseval score RUN_DIR`: score stored answers again with other roles."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from dotenv import load_dotenv
from rich.markup import escape

from ..api import with_scorer
from ..commandline.console import console, errors, fail
from ..commandline.options import (
    BaseUrlOpt,
    ConcurrencyOpt,
    DisplayOpt,
    GenOpt,
    PromptOpt,
    RoleBaseUrlOpt,
    RoleConcurrencyOpt,
    RoleOpt,
)
from ..commandline.requests import checked, display_mode, prompt_files, role_request
from ..commandline.running import report_run, run_in_loop
from ..core.prompt import override_prompts
from ..core.task import Task
from ..registry import get_task, scorer_plugins
from ..runtime.records import RoleBinding
from ..runtime.roles import parse_assignments, parse_value, resolve_roles
from ..runtime.runlog import RunFolder
from ..runtime.options import RunOptions
from ..runtime.rescore import rescore_run
from .app import app


@app.command("score")
def score_cmd(
    run_dir: Optional[Path] = typer.Argument(None, help="Run folder whose stored outputs are scored again."),
    role: Optional[list[str]] = RoleOpt,
    base_url: Optional[list[str]] = BaseUrlOpt,
    role_base_url: Optional[list[str]] = RoleBaseUrlOpt,
    concurrency: Optional[int] = ConcurrencyOpt,
    role_concurrency: Optional[list[str]] = RoleConcurrencyOpt,
    gen: Optional[list[str]] = GenOpt,
    prompt: Optional[list[str]] = PromptOpt,
    scorer: Optional[str] = typer.Option(None, "--scorer", help="Score with this registered scorer instead of the "
                                         "task's own (e.g. revision-distance; see: proseval score --list-scorers)."),
    scorer_option: Optional[list[str]] = typer.Option(None, "--scorer-option", "-O", help="KEY=VALUE option of "
                                                      "--scorer, e.g. setting=reference-free. Repeatable."),
    list_scorers: bool = typer.Option(False, "--list-scorers", help="List the registered scorers and exit."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder for the new run folder (default: beside RUN_DIR)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the response cache."),
    display: Optional[str] = DisplayOpt,
) -> None:
    """Re-score a run's stored outputs with other judge-like roles or prompts; the candidate is not called."""
    if list_scorers:
        for entry in scorer_plugins().values():
            console.print(f"[bold]{escape(entry.name)}[/] (roles: {', '.join(entry.roles)}): {escape(entry.summary)}")
        return
    if run_dir is None:
        fail("name the run folder to re-score (see: proseval score --help)")
    load_dotenv(Path.cwd() / ".env")
    source = RunFolder(run_dir)
    files = prompt_files(prompt, {})
    header = source.read_header()

    def rebound_task() -> tuple[Task, dict[str, RoleBinding], list[str]]:
        the_task = get_task(header.task, header.task_params)
        if scorer is not None:
            options = {k.replace("-", "_"): parse_value(v)
                       for k, v in parse_assignments(scorer_option or [], "--scorer-option").items()}
            the_task = with_scorer(the_task, scorer, options)
        elif scorer_option:
            fail("--scorer-option goes with --scorer")
        else:
            the_task = replace(the_task, prompts=source.prompt_overrides(the_task.prompts))
        the_task = replace(the_task, prompts=override_prompts(the_task.prompts, files, the_task.name))
        request = role_request({}, None, role, base_url, role_base_url, concurrency, role_concurrency, gen)
        if "candidate" in request.roles:
            fail("re-scoring keeps the stored candidate outputs; bind only other roles")
        if not request.roles and not files and scorer is None:
            fail("name the role(s) or prompt(s) to re-score with, e.g. --role judge=openai/gpt-4o-mini")
        rebound, warnings, _ = resolve_roles(request, tuple(request.roles), the_task.role_configs, allow_demo=False)
        kept = {r: b for r, b in header.roles.items() if r != "candidate" and r in the_task.roles_required}
        bindings = {**kept, **rebound}
        missing = [r for r in the_task.roles_required if r != "candidate" and r not in bindings]
        if missing:
            fail(f"the task needs the role(s) {', '.join(missing)}: add --role ROLE=PROVIDER/MODEL")
        return the_task, bindings, warnings

    the_task, bindings, warnings = checked(rebound_task)
    options = RunOptions(out_dir=out or run_dir.parent, use_cache=not no_cache, display=display_mode(display))
    folder, results = run_in_loop(rescore_run(source, the_task, bindings, options))
    for warning in warnings:
        errors.print(f"[bold yellow]warning:[/] {warning}", highlight=False)
    report_run(folder, results)

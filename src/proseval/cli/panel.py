"""Judge panels: after a run, its answers judged again by each further judge, read as one panel.

A panel judge is bound as the run's own judge of its role is, with the model replaced: the same
generation settings (the task's, the preset's, `-g ROLE.…`), the run's seed and the same
concurrency options. Its endpoints: its own (`--panel ROLE=PROVIDER/MODEL@URL[,URL…]`); else,
when it has the provider of the run's judge, that judge's; else the run's `--base-url` for an
openai-compatible judge; else its provider's default. Every panel judge is bound and its model
built (keys, scripts, model files, endpoints, settings) before the run sends anything.

A panel judge whose re-score did not complete — samples failed (every call of the judge failing
leaves its scores unscored and the re-score `failed_samples`), or stopped at the cost limit — makes
the command end with that outcome's exit status (4, or 3), saying which judge, why, and how to run
it again; the panel's analysis is written first, over what was judged.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path

import typer
from rich.markup import escape

from ..api import rescore_setup
from ..commandline.console import console, errors
from ..commandline.running import report_run, run_in_loop
from ..errors import UsageError
from ..models.base import FatalError, ModelError
from ..models.spec import REMOTE_PROVIDERS, parse_model_spec
from ..planning import Plan
from ..runtime.loop import run_async
from ..runtime.options import RunOptions
from ..runtime.outcome import exit_status, reasons_text
from ..runtime.records import Results, RoleBinding
from ..runtime.rescore import rebindable_roles, rescore_run
from ..runtime.roles import RoleError, RoleRequest, check_base_url, concurrency_for, parse_assignments
from ..runtime.runlog import RunFolder, write_json_atomic
from ..runtime.runner import build_checked, seeded_config

# MODEL@URL: the first `@` followed by a URL's scheme (a model name may hold an `@`, a URL its credentials)
_OWN_URLS = re.compile(r"(?P<spec>.*?)@(?P<urls>[A-Za-z][A-Za-z0-9+.-]*://.*)")


@dataclass(frozen=True)
class PanelJudge:
    """One `--panel` value: the role it judges in, its model, and its own endpoints (none: inherited)."""

    role: str
    spec: str
    base_urls: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        """How messages name it (without its endpoints, which may hold credentials)."""
        return f"--panel {self.role}={self.spec}"


def parse_panel(items: list[str] | None) -> list[PanelJudge]:
    """`--panel ROLE=PROVIDER/MODEL[@URL[,URL…]]` values, their spelling checked; raises UsageError."""
    judges = []
    for item in items or []:
        ((role, value),) = parse_assignments([item], "--panel").items()
        own = _OWN_URLS.fullmatch(value)
        spec, urls = (own["spec"], own["urls"]) if own else (value, "")
        judge = PanelJudge(role, spec.strip(), tuple(url.strip() for url in urls.split(",") if url.strip()))
        try:
            provider = parse_model_spec(judge.spec).provider
        except ValueError as exc:
            raise UsageError(f"{judge.flag}: {exc}") from None
        if judge.base_urls and provider not in REMOTE_PROVIDERS:
            raise UsageError(
                f"{judge.flag}: a {provider} model has no endpoint (only {', '.join(REMOTE_PROVIDERS)} "
                "models take @URL)"
            )
        for url in judge.base_urls:
            check_base_url(url, f"{judge.flag}:")
        judges.append(judge)
    return judges


def panel_urls(judge: PanelJudge, main: RoleBinding, request: RoleRequest) -> list[str]:
    """A panel judge's endpoints (the module's rule)."""
    provider = parse_model_spec(judge.spec).provider
    if judge.base_urls:
        return list(judge.base_urls)
    if provider == parse_model_spec(main.spec).provider:
        return list(main.base_urls)
    return list(request.base_urls) if provider == "openai-compatible" else []


def bind_panel(
    judges: list[PanelJudge], planned: Plan, request: RoleRequest, seed: int | None
) -> list[tuple[PanelJudge, RoleBinding]]:
    """Each panel judge with its binding (the module's rule), its role one a re-score of the task
    can bind, its model built and its settings checked by its provider: before the run starts."""
    allowed = [role for role in rebindable_roles(planned.task) if role in planned.bindings]
    bound = []
    for judge in judges:
        if judge.role not in allowed:
            raise RoleError(
                f"{judge.flag}: a panel judges {planned.task.name}'s answers again in the role(s) "
                f"{', '.join(allowed) or '(none)'}, not {judge.role}"
            )
        main = planned.bindings[judge.role]
        spec = parse_model_spec(judge.spec, panel_urls(judge, main, request))
        binding = main.model_copy(
            update={
                "spec": spec.spec,
                "base_urls": list(spec.base_urls),
                "concurrency": concurrency_for(request, judge.role, spec.provider),
            }
        )
        bound.append((judge, seeded_config(binding, seed)))
    if bound:
        run_async(_check_models(bound))
    return bound


async def _check_models(bound: list[tuple[PanelJudge, RoleBinding]]) -> None:
    for judge, binding in bound:
        try:
            model = build_checked(binding, judge.flag)
        except ModelError as exc:  # a missing key, script, model file or endpoint, said of the panel judge
            raise FatalError(f"{judge.flag}: {exc}") from None
        await model.aclose()


def judge_panel(
    run_dir: Path, judges: list[tuple[PanelJudge, RoleBinding]], options: RunOptions, aggregate: str = "mean"
) -> Path:
    """Re-judge the run's answers with each bound panel judge (a re-score folder each beside the run,
    so every judge's scores are kept), then write the panel's analysis to `<run>-panel/`; returns that
    folder, or ends the command with the outcome of a re-score that did not complete (module text)."""
    source = RunFolder(run_dir)
    task, kept, _ = rescore_setup(source, RoleRequest())
    judged = [run_dir]
    unfinished: list[tuple[PanelJudge, Path, Results]] = []
    for judge, binding in judges:
        console.print(f"[bold]panel: {judge.role}={judge.spec}[/]", highlight=False)
        folder, results = run_in_loop(
            rescore_run(source, task, {**kept, judge.role: binding}, replace(options, repeat=0, out_dir=run_dir.parent))
        )
        report_run(folder, results)
        judged.append(folder.path)
        if results.final_outcome() != "complete":
            unfinished.append((judge, folder.path, results))
    from ..reliability.analysis import analyse  # scipy: imported when a panel is read, not for every run
    from ..reliability.render import print_analysis

    analysis = analyse(judged, panel=aggregate)
    print_analysis(analysis, console)
    out = run_dir.parent / f"{run_dir.name}-panel"
    out.mkdir(exist_ok=True)
    write_json_atomic(out / "results.json", analysis.model_dump_json(indent=2))
    write_json_atomic(out / "panel.jsonl", "".join(i.model_dump_json() + "\n" for i in analysis.panel_items))
    again = f"proseval agreement {' '.join(shlex.quote(str(p)) for p in judged)}"
    console.print(f"panel: {out} (again with other options: {again})", highlight=False)
    if unfinished:
        for judge, folder, results in unfinished:
            errors.print(
                f"[bold red]{escape(panel_failure(judge, folder, results, again))}[/]", highlight=False, soft_wrap=True
            )
        raise typer.Exit(min(exit_status(results.final_outcome()) for _, _, results in unfinished))
    return out


def panel_failure(judge: PanelJudge, folder: Path, results: Results, again: str) -> str:
    """Why a panel judge's re-score did not complete, and how to finish it."""
    counts = results.counts
    if results.final_outcome() == "stopped":
        what = f"stopped before its end ({counts.finished} of {counts.total} samples judged)"
        fix = f"proseval resume {shlex.quote(str(folder))} with a higher --max-cost"
    else:
        reasons = reasons_text(counts.failure_reasons)
        what = f"{results.retryable_failures} of {counts.total} samples failed" + (f": {reasons}" if reasons else "")
        fix = f"proseval resume {shlex.quote(str(folder))} --retry-failed"
    return (
        f"panel judge {judge.flag}: {what}; the panel lacks its verdicts there. Judge them again with: {fix}, "
        f"then: {again}"
    )

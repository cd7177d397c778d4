"""Judge panels: after a run, its answers judged again by each further judge, read as one panel."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..api import rescore_setup
from ..commandline.console import console
from ..errors import UsageError
from ..commandline.running import report_run, run_in_loop
from ..reliability.analysis import analyse
from ..reliability.render import print_analysis
from ..runtime.options import RunOptions
from ..runtime.rescore import rescore_run
from ..models.spec import parse_model_spec
from ..runtime.roles import RoleRequest, parse_assignments
from ..runtime.runlog import RunFolder, write_json_atomic


def parse_panel(items: list[str] | None) -> list[tuple[str, str]]:
    """`--panel ROLE=PROVIDER/MODEL` values, checked before any request; raises UsageError."""
    members = []
    for item in items or []:
        (role, spec), = parse_assignments([item], "--panel").items()
        try:
            parse_model_spec(spec, [])  # a malformed binding is refused now, not after the run
        except ValueError as exc:
            raise UsageError(f"--panel {item}: {exc}") from None
        members.append((role, spec))
    return members


def judge_panel(run_dir: Path, members: list[tuple[str, str]], options: RunOptions, aggregate: str = "mean") -> Path:
    """Re-judge the run's answers with each member (a re-score folder each, so every judge's
    scores are kept), then write the panel's analysis to `<run>-panel/`; returns that folder."""
    source = RunFolder(run_dir)
    judged = [run_dir]
    for role, spec in members:
        console.print(f"[bold]panel: {role}={spec}[/]", highlight=False)
        request = RoleRequest(model=None, roles={role: spec}, base_urls=[], concurrency=None, generation={})
        task, bindings, _ = rescore_setup(source, request)
        folder, results = run_in_loop(rescore_run(source, task, bindings, replace(options, repeat=0)))
        report_run(folder, results)
        judged.append(folder.path)
    analysis = analyse(judged, panel=aggregate)
    print_analysis(analysis, console)
    out = run_dir.parent / f"{run_dir.name}-panel"
    out.mkdir(exist_ok=True)
    write_json_atomic(out / "results.json", analysis.model_dump_json(indent=2))
    write_json_atomic(out / "panel.jsonl", "".join(i.model_dump_json() + "\n" for i in analysis.panel_items))
    console.print(f"panel: {out} (again with other options: proseval agreement "
                  f"{' '.join(str(p) for p in judged)})", highlight=False)
    return out

"""`proseval resume RUN_DIR`: continue an interrupted run."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..commandline.cost import DryRunOpt, EstimateOutputOpt, MaxCostOpt, PricesOpt, cost_request
from ..commandline.envfile import load_env_file
from ..commandline.options import DisplayOpt, NoProbeOpt
from .common import check_counts, resume_folder

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command("resume")
def resume_cmd(
    run_dir: Path = typer.Argument(..., help="Run folder to continue."),
    force: bool = typer.Option(False, "--force", help="Continue even if the task or model configuration changed."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Also run again the samples that failed."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", help="Extend or shrink the run's sample limit."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the response cache."),
    no_probe: bool = NoProbeOpt,
    display: Optional[str] = DisplayOpt,
    dry_run: bool = DryRunOpt,
    prices: Optional[Path] = PricesOpt,
    max_cost: Optional[float] = MaxCostOpt,
    estimate_output: Optional[list[str]] = EstimateOutputOpt,
) -> None:
    """Continue an interrupted run: only samples without a finished record are run."""
    load_env_file()
    check_counts(limit=limit)
    cost = cost_request(prices, max_cost, estimate_output)
    resume_folder(
        run_dir,
        force=force,
        no_cache=no_cache,
        display=display,
        limit=limit,
        retry_failed=retry_failed,
        cost=cost,
        dry_run=dry_run,
        probe=not no_probe,
    )

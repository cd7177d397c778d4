"""`proseval ravel show RUN` (an episode step by step) and `proseval ravel plot RUN...` (per-model charts)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from proseval.kit.charts import chart
from proseval.kit.runs import RunFolder

app = typer.Typer(no_args_is_help=True)  # its help: the summary it is registered with


@app.command()
def show(
    run: Path = typer.Argument(..., help="a ravel run folder"),
    sample: str | None = typer.Option(None, "--sample", "-s", help="episode id (default: the first)"),
) -> None:
    """Replay one episode: each decision, its outcome, what it changed, and the tool's answer."""
    from proseval.benchmarks.ravel.env import Step

    records = [r for r in RunFolder(run).iter_records() if sample is None or r.id == sample]
    if not records:
        raise typer.BadParameter(f"no episode {sample!r} in {run}")
    record = records[0]
    if record.state is None:
        typer.echo(f"{record.id}: failed ({record.error})")
        raise typer.Exit(1)
    typer.echo(f"episode {record.id} — {record.state.metadata.get('termination')}")
    for turn in record.state.turns:
        step = Step.model_validate(turn)
        where = f" section {step.section_id}" if step.section_id is not None else ""
        outcome = step.outcome + (f" ({step.failure})" if step.failure else "")
        typer.echo(
            f"[{step.step:>3}] {step.action or '(invalid)'}{where}: {outcome}"
            + (f" — {step.error}" if step.error else "")
        )
        if step.diff:
            typer.echo(f"      changed: {step.diff}")
        if step.tool is not None:
            typer.echo(f"      {step.tool.role} ({step.tool.bound_to}): {step.tool.reply[:200]!r}")
    typer.echo("\n" + (record.state.output or "(no manuscript)"))


@app.command()
def plot(
    runs: list[Path] = typer.Argument(..., help="ravel run folders (one series per policy model)"),
    out: Path = typer.Option(Path("."), "--out", "-o", help="folder for the PNG files"),
) -> None:
    """Paragraph lifecycles and score over steps, one series per run's policy model; prints each
    run's Fig. 4 Δ_med (median completion − median first-draft step) and the cross-run shift of
    its median completion step from the first run's."""
    from proseval.benchmarks.ravel.report import curve_drawer, fig4_caption, lifecycle_drawer, median_shifts

    lifecycles, curves = {}, {}
    for path in runs:
        folder = RunFolder(path)
        header = folder.read_header()
        summary = (folder.read_results().extra.get("ravel") if folder.has_results else None) or {}
        label = header.roles["candidate"].spec
        if header.task_params.get("protocol", "agent") != "agent":
            label += f" [{header.task_params['protocol']}]"
        if label in lifecycles:  # two runs of one model: keep both series, named by their folders
            label += f" ({path.name})"
        lifecycles[label] = summary.get("lifecycles", [])
        curves[label] = summary.get("score_curve", [])
    out.mkdir(parents=True, exist_ok=True)
    shifts = median_shifts(lifecycles)
    for row in shifts:
        median = "—" if row["completion_median"] is None else f"{row['completion_median']:g}"
        shift = row["completion_median_shift_vs_first"]
        shift = "" if shift is None else f"; cross-run shift from the first run's: {shift:+g}"
        typer.echo(
            f"{row['label']}: {fig4_caption(row)}; median completion step over all {row['sections']} "
            f"sections {median}{shift}"
        )
    (out / "ravel_lifecycle_medians.json").write_text(
        json.dumps(shifts, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    for name, drawer in (
        ("ravel_lifecycles.png", lifecycle_drawer(lifecycles)),
        ("ravel_score_curve.png", curve_drawer(curves)),
    ):
        png = chart(drawer) if drawer is not None else None
        if png:
            (out / name).write_bytes(png)
            typer.echo(f"wrote {out / name}")
        else:
            typer.echo(f"{name}: nothing to draw (no section was drafted or reviewed in these runs)")

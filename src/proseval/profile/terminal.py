"""The profile in the terminal: the benchmark table, the paired differences, the rankings, and
whether the papers' figures are comparable."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..report.fmt import num
from .comparable import verdict_line
from .report import Dimension, Profile, ranking_text, units_text


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None else f"[{num(low)}, {num(high)}]"


def rows_table(profile: Profile) -> Table:
    table = Table(
        title=f"Writing profile (size {profile.size}): one scale per benchmark, never averaged", title_justify="left"
    )
    for name in (
        "benchmark",
        "model",
        "metric",
        "mean",
        "95% CI",
        "n",
        "unscored",
        "failed",
        "model failures",
        "requests",
        "cost",
        "time",
    ):
        table.add_column(
            name,
            justify="left" if name in ("benchmark", "model", "metric", "model failures") else "right",
            overflow="fold",
        )
    lower = {d.benchmark for d in profile.dimensions if d.lower_is_better}
    for r in profile.rows:
        if r.state in ("skipped", "not run", "unfinished"):
            table.add_row(escape(r.benchmark), escape(r.model), f"[yellow]{r.state}[/]", *[""] * 9)
            continue
        metric = (
            (r.metric or "")
            + (f" ({r.unit})" if r.unit else "")
            + (", lower is better" if r.benchmark in lower else "")
        )
        failures = ", ".join(f"{k} {v}" for k, v in sorted(r.model_failures.items()) if v)
        table.add_row(
            escape(r.benchmark),
            escape(r.model),
            escape(metric),
            num(r.mean),
            _interval(r.ci_low, r.ci_high),
            str(r.n),
            str(r.unscored),
            f"[red]{r.failed}[/]" if r.failed else "0",
            escape(failures),
            f"{r.requests:,}",
            "" if r.cost is None else f"{r.cost:.4f} {r.currency or ''}",
            "" if r.seconds is None else f"{r.seconds:.0f}s",
        )
    return table


def differences_table(profile: Profile) -> Table:
    table = Table(
        title="Paired differences (each model minus the first, on the samples both scored)", title_justify="left"
    )
    for name in ("benchmark", "difference", "paired", "mean", "95% CI", "p", "verdict", "note"):
        table.add_column(name, justify="right" if name in ("paired", "mean", "95% CI", "p") else "left")
    for d in profile.differences:
        table.add_row(
            escape(d.benchmark),
            escape(f"{d.model} − {d.baseline}"),
            str(d.paired),
            num(d.diff),
            _interval(d.ci_low, d.ci_high),
            num(d.p_value),
            escape(d.verdict),
            escape(d.note or ""),
        )
    return table


def figures_table(d: Dimension) -> Table:
    """The profile's figures at the paper's granularity, with the range of the paper's own models
    in the same columns (their figures one by one are in profile.html)."""
    slices = list(dict.fromkeys(f.slice for f in d.figures))
    unit = d.paper_unit.unit if d.paper_unit else (d.unit or "unit not stated")
    table = Table(title=f"{d.benchmark} at the paper's granularity ({unit})", title_justify="left")
    table.add_column("model")
    for name in slices:
        table.add_column(name, justify="right")
    cells: dict[str, dict[str, str]] = {}
    for f in d.figures:
        label = f.model + "".join(f", {k} {v}" for k, v in list(f.by.items())[1:])  # the first: the paper's slice
        cells.setdefault(label, {})[f.slice] = num(f.mean) + (
            f" {_interval(f.ci_low, f.ci_high)}" if f.ci_low is not None else ""
        )
    for label, by_slice in cells.items():
        table.add_row(escape(label), *[by_slice.get(name, "—") for name in slices])
    if d.paper_unit is not None:
        first = next(r for r in d.references if r.unit == d.paper_unit.unit)
        ranges = []
        for name in slices:
            numbers = [
                r.number
                for r in d.references
                if r.slice == name and (r.table, r.metric) == (first.table, first.metric) and r.number is not None
            ]
            ranges.append(f"{num(min(numbers))} – {num(max(numbers))}" if numbers else "—")
        if any(r != "—" for r in ranges):  # else the paper prints other slices: its figures are in profile.html
            table.add_row(
                f"the paper's {len({r.model for r in d.references})} models, {first.table} {first.metric} "
                "(lowest – highest)",
                *ranges,
            )
    return table


def print_profile(profile: Profile, console: Console | None = None) -> None:
    from ..commandline.console import console as default

    out = console or default
    out.print(rows_table(profile))
    if profile.differences:
        out.print(differences_table(profile))
    if len(profile.models) > 1:
        for d in profile.dimensions:
            if d.ranking:
                out.print(
                    f"tiers in {escape(d.benchmark)} ({escape(d.dimension)}): {escape(ranking_text(d))}",
                    highlight=False,
                )
        out.print(
            "a model is in a better tier than another only where their paired difference's 95% interval "
            "excludes 0; models in one tier are not shown to differ",
            highlight=False,
        )
    for d in profile.dimensions:
        if d.comparability is not None and d.references:
            if d.figures:
                out.print(figures_table(d))
            colour = "green" if d.comparability.comparable else "yellow"
            out.print(
                f"[{colour}]{escape(verdict_line(d.benchmark, d.comparability))}[/]; {escape(units_text(d))}",
                highlight=False,
            )
    for name, reason in profile.skipped.items():
        out.print(f"[yellow]skipped {escape(name)}:[/] {escape(reason)}", highlight=False)

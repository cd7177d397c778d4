"""The report's charts: the benchmark's own (its PNG files, or its `artifacts` hook) and generic
per-slice bars across runs, as PNG data URIs."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..commandline.units import headed, metric_units
from ..plots import chart, ci_errors
from ..registry import get_task, tasks
from .runs import ReportRun, metric_names


@dataclass(frozen=True)
class Figure:
    title: str
    uri: str


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


Point = tuple[float | None, float | None, float | None]  # mean, CI low, CI high


def slice_figures(runs: Sequence[ReportRun]) -> list[Figure]:
    """A grouped bar chart per slice key and metric (one bar per run, 95% CI whiskers)."""
    figures = []
    for key in dict.fromkeys(k for run in runs for k in run.results.slices):
        labels = list(dict.fromkeys(label for run in runs for label in run.results.slices.get(key, {})))
        units = metric_units(runs[0].header.task, metric_names(runs))  # the runs of one task
        for metric in metric_names(runs):
            series: list[tuple[str, list[Point]]] = []
            for run in runs:
                groups = run.results.slices.get(key, {})
                summaries = [groups.get(label, {}).get(metric) for label in labels]
                series.append(
                    (
                        f"{run.model} ({run.header.run_id})",
                        [(s.mean, s.ci_low, s.ci_high) if s is not None else (None, None, None) for s in summaries],
                    )
                )
            if all(mean is None for _, points in series for mean, _, _ in points):
                continue
            width = min(12.0, max(5.0, 0.5 * len(labels) * len(runs) + 2))
            png = chart(_bars(labels, series, headed(metric, units[metric])), size=(width, 3.6))
            if png is not None:
                figures.append(Figure(f"{metric} by {key}", data_uri(png)))
    return figures


def _bars(labels: list[str], series: list[tuple[str, list[Point]]], metric: str) -> Any:
    width = 0.8 / max(1, len(series))
    tilt = len(labels) > 4

    def draw(axes: Any) -> None:
        for position, (name, points) in enumerate(series):
            shown = [(m, lo, hi) if m is not None else (0.0, None, None) for m, lo, hi in points]
            xs = [i + (position - (len(series) - 1) / 2) * width for i in range(len(labels))]
            axes.bar(xs, [m for m, _, _ in shown], width, yerr=ci_errors(shown), capsize=2, label=name)
        axes.set_xticks(range(len(labels)))
        axes.set_xticklabels(labels, rotation=30 if tilt else 0, ha="right" if tilt else "center", fontsize="small")
        axes.set_ylabel(metric)
        axes.grid(axis="y", alpha=0.3)

    return draw


def benchmark_figures(run: ReportRun) -> tuple[list[Figure], list[str]]:
    """The charts the benchmark drew for this run: its PNG files, or drawn again by its `artifacts` hook."""
    files = sorted(run.path.glob("*.png"))
    if files:
        return [Figure(f.stem.replace("_", " "), data_uri(f.read_bytes())) for f in files], []
    if run.header.task not in tasks():  # a task built in Python, not registered: nothing to redraw with
        return [], []
    try:
        made = get_task(run.header.task, run.header.task_params)
        produced = made.artifacts(run.results) if made.artifacts is not None else {}
    except Exception as exc:  # the task's data may be missing here: the report goes on without its charts
        return [], [f"the benchmark's charts could not be drawn again ({type(exc).__name__}: {exc})"]
    return [
        Figure(Path(name).stem.replace("_", " "), data_uri(content))
        for name, content in sorted(produced.items())
        if name.endswith(".png") and isinstance(content, bytes)
    ], []

"""A run's headline at the paper's granularity: one figure per slice the paper prints (C3EBench's
tasks, LongWeave's tasks), from the run's own per-slice tables, in the paper's unit where the
headline converts to it; and beside them the slices the paper leaves open (C3EBench's languages),
recomputed from the run's records with the run's bootstrap."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, Field

from ..core.results import Results
from ..runtime.aggregate import bootstrap_ci, epoch_means, flatten_scores
from ..runtime.runlog import RunFolder
from .comparable import PaperSetting
from .references import PaperUnit


class Figure(BaseModel):
    """One model's headline over one slice of its run, in `unit`."""

    model: str
    slice: str = Field(description="the paper's label of the slice (`overall`: every item)")
    by: dict[str, str] = Field(
        default_factory=dict,
        description="the run's slice values it covers, e.g. {task: cloze, language: en}; empty: every item",
    )
    mean: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    unit: str | None = None


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def paper_figures(
    model: str,
    run_dir: Path,
    results: Results,
    setting: PaperSetting,
    converted: PaperUnit | None,
    unit: str | None,
    *,
    seed: int = 0,
) -> list[Figure]:
    """`model`'s figures at the paper's granularity (`setting.by`; overall when the paper prints one
    figure), then per `setting.also_by` within each slice."""
    headline = results.headline or ""
    factor = converted.factor if converted else 1.0
    shown = converted.unit if converted else unit
    if not setting.by:
        summary = results.metrics.get(headline)
        if summary is None:
            return []
        return [
            Figure(
                model=model,
                slice="overall",
                mean=_scaled(summary.mean, factor),
                ci_low=_scaled(summary.ci_low, factor),
                ci_high=_scaled(summary.ci_high, factor),
                n=summary.n_scored,
                unit=shown,
            )
        ]
    made: list[Figure] = []
    table = results.slices.get(setting.by, {})
    for label, theirs in setting.slices.items():
        summary = table.get(theirs, {}).get(headline)
        if summary is not None:
            made.append(
                Figure(
                    model=model,
                    slice=label,
                    by={setting.by: theirs},
                    mean=_scaled(summary.mean, factor),
                    ci_low=_scaled(summary.ci_low, factor),
                    ci_high=_scaled(summary.ci_high, factor),
                    n=summary.n_scored,
                    unit=shown,
                )
            )
    if setting.also_by:
        made += _crossed(model, run_dir, headline, setting, factor, shown, seed)
    return made


def _crossed(
    model: str, run_dir: Path, headline: str, setting: PaperSetting, factor: float, unit: str | None, seed: int
) -> list[Figure]:
    """The paper's slices split by each `also_by` key, from the run's records (each sample's mean
    over its epochs, as the run's own tables)."""
    assert setting.by is not None
    labels = {theirs: label for label, theirs in setting.slices.items()}
    groups: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for sample in epoch_means(RunFolder(run_dir).unique_scored()[0]):
        value = flatten_scores(sample).get(headline) if sample.status == "ok" else None
        part = str(sample.metadata.get(setting.by, ""))
        if value is None or part not in labels:
            continue
        for key in setting.also_by:
            groups[(part, key, str(sample.metadata.get(key, "(none)")))].append(float(value))
    made = []
    order = list(labels)
    for (part, key, level), values in sorted(groups.items(), key=lambda g: (order.index(g[0][0]), g[0][1:])):
        low, high = bootstrap_ci(values, seed=seed)
        made.append(
            Figure(
                model=model,
                slice=labels[part],
                by={setting.by: part, key: level},
                mean=math.fsum(values) / len(values) * factor,
                ci_low=_scaled(low, factor),
                ci_high=_scaled(high, factor),
                n=len(values),
                unit=unit,
            )
        )
    return made

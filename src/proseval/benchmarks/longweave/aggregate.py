"""LongWeave aggregation: task × length cells, task and overall averages, bootstrap CIs.

The official summary's shape: ``Task/<len>`` = mean over the cell's samples; ``Task/Avg`` =
unweighted mean of the task's length cells; ``Overall/<len>`` = mean over the tasks at that
length; ``Overall/Avg`` = mean over all task × length cells (not over samples). Cells without
any usable sample are skipped, as the official code skips NaN. The sample-weighted task mean
of the official metric report is given too (``tasks_pooled``).

Each record is one sample's primary score with a status:

* ``ok``: scored; ``score`` is its value;
* ``empty``: the candidate answered with nothing (a model failure). proseval scores it 0
  (:func:`aggregate`); the official code drops it (:func:`aggregate_official_drop`);
* ``failed``: the candidate's call failed after retries (an infrastructure failure): excluded
  from every mean and counted, under both policies, and retryable with
  ``proseval resume --retry-failed``; never a 0;
* ``unscored``: the judge or evaluator could not decide; excluded and counted under both.

Confidence intervals are percentile bootstraps that resample samples within each cell
(stratified), so every average's CI respects the cell structure; numpy, seeded per cell.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from proseval.benchmarks.longweave.generators.params import LENGTHS, TASKS
from proseval.kit.charts import chart, ci_errors

Status = Literal["ok", "empty", "failed", "unscored"]
Policy = Literal["proseval", "official_drop"]
STATUSES: tuple[str, ...] = ("ok", "empty", "failed", "unscored")


@dataclass(frozen=True)
class Outcome:
    """One sample's primary score; ``score`` is only read when ``status`` is ``ok``."""

    task: str
    length: str
    score: float | None
    status: Status = "ok"


def as_outcome(item: Outcome | Mapping[str, Any], position: int = 0) -> Outcome:
    """Validate one record (a dataclass or a dict with task, length, score, status).

    Without ``status``, a dict is ``ok`` when it has a score and ``unscored`` otherwise.
    """
    if isinstance(item, Outcome):
        task, length, score, status = item.task, item.length, item.score, item.status
    elif isinstance(item, Mapping):
        missing = [k for k in ("task", "length") if k not in item]
        if missing:
            raise ValueError(f"record {position}: missing {', '.join(missing)}")
        task, length, score = item["task"], item["length"], item.get("score")
        status = item.get("status", "unscored" if score is None else "ok")
    else:
        kind = type(item).__name__
        raise ValueError(f"record {position}: expected a mapping or Outcome, got {kind}")
    if not isinstance(task, str) or not task or not isinstance(length, str) or not length:
        raise ValueError(f"record {position}: task and length must be non-empty strings")
    if status not in STATUSES:
        raise ValueError(f"record {position}: status {status!r} is not one of {STATUSES}")
    if status == "ok":
        if not isinstance(score, (int, float)) or isinstance(score, bool) or not math.isfinite(score):
            raise ValueError(f"record {position}: status 'ok' needs a finite score, got {score!r}")
        score = float(score)
    else:
        score = None
    return Outcome(task, length, score, status)


@dataclass(frozen=True)
class Cell:
    """One task × length cell. ``n_used`` samples enter the mean."""

    task: str
    length: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n_used: int
    n_ok: int
    n_empty: int
    n_failed: int
    n_unscored: int


@dataclass(frozen=True)
class Average:
    """A mean over cells (or, pooled, over their samples), with its bootstrap CI."""

    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n_cells: int
    n_samples: int


@dataclass(frozen=True)
class LongWeaveReport:
    policy: Policy
    confidence: float
    cells: tuple[Cell, ...]
    tasks: dict[str, Average]  # Task/Avg: unweighted mean of the length cells (official summary)
    tasks_pooled: dict[str, Average]  # sample-weighted over lengths (official metric report)
    lengths: dict[str, Average]  # Overall/<len>: mean over tasks
    overall: Average  # Overall/Avg: mean over all cells
    counts: dict[str, int]

    def cell(self, task: str, length: str) -> Cell | None:
        return next((c for c in self.cells if c.task == task and c.length == length), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "confidence": self.confidence,
            "cells": [asdict(c) for c in self.cells],
            "tasks": {k: asdict(v) for k, v in self.tasks.items()},
            "tasks_pooled": {k: asdict(v) for k, v in self.tasks_pooled.items()},
            "lengths": {k: asdict(v) for k, v in self.lengths.items()},
            "overall": asdict(self.overall),
            "counts": dict(self.counts),
        }


def _order(known: Sequence[str], present: Iterable[str]) -> list[str]:
    """Known names in their canonical order, then the others sorted."""
    present = set(present)
    return [k for k in known if k in present] + sorted(present - set(known))


def _resampled_means(values: np.ndarray, resamples: int, seed: int, key: str) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples of ``values`` (seeded by seed and cell)."""
    rng = np.random.default_rng([seed, zlib.crc32(key.encode())])
    idx = rng.integers(0, values.size, size=(resamples, values.size))
    return values[idx].mean(axis=1)


def _interval(draws: np.ndarray | None, confidence: float) -> tuple[float | None, float | None]:
    if draws is None:
        return None, None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(low), float(high)


def aggregate(
    records: Iterable[Outcome | Mapping[str, Any]],
    *,
    policy: Policy = "proseval",
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> LongWeaveReport:
    """Cell, task, length and overall means with bootstrap CIs (none when n_bootstrap is 0).

    policy ``proseval``: empty answers score 0; ``official_drop``: they are left out, as in the
    official code. Failed calls and unscored samples are left out (and counted) under both.
    """
    if n_bootstrap < 0:
        raise ValueError(f"n_bootstrap must be >= 0, got {n_bootstrap}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    outcomes = [as_outcome(item, k) for k, item in enumerate(records)]
    groups: dict[tuple[str, str], list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault((outcome.task, outcome.length), []).append(outcome)
    tasks = _order(TASKS, (t for t, _ in groups))
    lengths = _order(LENGTHS, (n for _, n in groups))

    cells: list[Cell] = []
    draws: dict[tuple[str, str], np.ndarray] = {}  # bootstrap means of cells with data
    for task in tasks:
        for length in lengths:
            members = groups.get((task, length))
            if not members:
                continue
            count = {s: sum(o.status == s for o in members) for s in STATUSES}
            used = [o.score for o in members if o.status == "ok"]
            if policy == "proseval":
                used += [0.0] * count["empty"]
            values = np.asarray(used, dtype=float)
            mean = float(values.mean()) if values.size else None
            low = high = None
            if values.size and n_bootstrap:
                draws[task, length] = _resampled_means(values, n_bootstrap, seed, f"{task}@{length}")
                low, high = _interval(draws[task, length], confidence)
            cells.append(
                Cell(
                    task,
                    length,
                    mean,
                    low,
                    high,
                    values.size,
                    count["ok"],
                    count["empty"],
                    count["failed"],
                    count["unscored"],
                )
            )

    by_key = {(c.task, c.length): c for c in cells}

    def average(keys: list[tuple[str, str]], pooled: bool = False) -> Average:
        scored = [by_key[k] for k in keys if k in by_key and by_key[k].mean is not None]
        n_samples = sum(c.n_used for c in scored)
        if not scored:
            return Average(None, None, None, 0, 0)
        weights = np.asarray([c.n_used if pooled else 1 for c in scored], dtype=float)
        means = np.asarray([c.mean for c in scored])
        mean = float(np.dot(weights, means) / weights.sum())
        low = high = None
        if n_bootstrap:
            stacked = np.stack([draws[c.task, c.length] for c in scored])
            low, high = _interval(weights @ stacked / weights.sum(), confidence)
        return Average(mean, low, high, len(scored), n_samples)

    every = [(c.task, c.length) for c in cells]
    return LongWeaveReport(
        policy=policy,
        confidence=confidence,
        cells=tuple(cells),
        tasks={t: average([(t, n) for n in lengths]) for t in tasks},
        tasks_pooled={t: average([(t, n) for n in lengths], pooled=True) for t in tasks},
        lengths={n: average([(t, n) for t in tasks]) for n in lengths},
        overall=average(every),
        counts={
            "samples": len(outcomes),
            **{s: sum(o.status == s for o in outcomes) for s in STATUSES},
        },
    )


def aggregate_official_drop(records: Iterable[Outcome | Mapping[str, Any]], **options: Any) -> LongWeaveReport:
    """The official averaging: empty answers are dropped instead of scoring 0."""
    return aggregate(records, policy="official_drop", **options)


def score_by_length_png(report: LongWeaveReport, *, title: str = "LongWeave") -> bytes | None:
    """Score against length, one line per task with CI whiskers, as PNG bytes.

    Returns None, with a warning, when matplotlib (``proseval[plot]``) is not installed.
    """
    lengths = _order(LENGTHS, (c.length for c in report.cells))

    def draw(axes) -> None:
        for task in report.tasks:
            points = [
                (x, cell)
                for x, n in enumerate(lengths)
                if (cell := report.cell(task, n)) is not None and cell.mean is not None
            ]
            if points:
                axes.errorbar(
                    [x for x, _ in points],
                    [c.mean for _, c in points],
                    yerr=ci_errors([(c.mean, c.ci_low, c.ci_high) for _, c in points]),
                    marker="o",
                    capsize=3,
                    label=task,
                )
        axes.set_xticks(range(len(lengths)), lengths)
        axes.set_ylim(0, 1.05)
        axes.set_xlabel("length")
        axes.set_ylabel(f"mean score ({round(report.confidence * 100)}% bootstrap CI)")
        axes.set_title(f"{title} ({report.policy})")

    return chart(draw)

"""Generic aggregation: mean of every score with bootstrap CIs, overall and per slice."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from .records import Counts, MetricSummary, ScoredSample


def bootstrap_ci(
    values: Sequence[float], *, resamples: int = 1000, level: float = 0.95, seed: int = 0
) -> tuple[float | None, float | None]:
    """Percentile bootstrap CI of the mean (seeded, so results are reproducible)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return None, None
    if data.size == 1:
        return float(data[0]), float(data[0])
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // data.size)  # bound memory for large runs
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        idx = rng.integers(0, data.size, size=(stop - start, data.size))
        means[start:stop] = data[idx].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def flatten_scores(sample: ScoredSample) -> dict[str, float | None]:
    """`{"score": 0.5, "cf": {"style": 0.9}}` → `{"score": 0.5, "cf.style": 0.9}`."""
    flat: dict[str, float | None] = {}
    for name, score in sample.scores.items():
        if isinstance(score.value, dict):
            for sub, value in score.value.items():
                flat[f"{name}.{sub}"] = value
        else:
            flat[name] = score.value
    return flat


def summarize(samples: Sequence[ScoredSample], *, seed: int = 0) -> dict[str, MetricSummary]:
    values: dict[str, list[float]] = defaultdict(list)
    unscored: dict[str, int] = defaultdict(int)
    failed = sum(1 for s in samples if s.status == "error")
    for sample in samples:
        if sample.status != "ok":
            continue
        for name, value in flatten_scores(sample).items():
            if value is None:
                unscored[name] += 1
            else:
                values[name].append(float(value))
    result: dict[str, MetricSummary] = {}
    for name in sorted(set(values) | set(unscored)):
        scored = values.get(name, [])
        low, high = bootstrap_ci(scored, seed=seed)
        result[name] = MetricSummary(
            mean=float(np.mean(scored)) if scored else None,
            ci_low=low,
            ci_high=high,
            n_scored=len(scored),
            n_unscored=unscored.get(name, 0),
            n_failed=failed,
        )
    return result


def summarize_slices(
    samples: Sequence[ScoredSample], keys: Iterable[str], *, seed: int = 0
) -> dict[str, dict[str, dict[str, MetricSummary]]]:
    tables: dict[str, dict[str, dict[str, MetricSummary]]] = {}
    for key in keys:
        groups: dict[str, list[ScoredSample]] = defaultdict(list)
        for sample in samples:
            groups[str(sample.metadata.get(key, "(none)"))].append(sample)
        tables[key] = {label: summarize(group, seed=seed) for label, group in sorted(groups.items())}
    return tables


def count(samples: Sequence[ScoredSample], total: int) -> Counts:
    ok = sum(1 for s in samples if s.status == "ok")
    unscored = sum(
        1 for s in samples if s.status == "ok" and any(v is None for v in flatten_scores(s).values())
    )
    return Counts(total=total, finished=len(samples), ok=ok, failed=len(samples) - ok, unscored=unscored)

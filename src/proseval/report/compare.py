"""Paired comparison of two runs of one task on the samples both scored.

For each metric, the difference B − A is taken per sample (each sample's mean over its epochs),
over the samples scored in both runs; its mean comes with a paired bootstrap CI (samples
resampled together) and a two-sided sign-flip permutation p-value, both seeded and computed
over the differences sorted, so the result does not depend on record order. Samples that only
one run scored, or that failed in either, are counted, never paired.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..runtime.aggregate import bootstrap_rng, canonical_order, flatten_scores
from ..runtime.records import ScoredSample

RESAMPLES = 10_000


@dataclass(frozen=True)
class MetricDiff:
    metric: str
    paired: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    only_a: int = 0
    only_b: int = 0


@dataclass(frozen=True)
class SampleDiff:
    id: str
    a: float
    b: float

    @property
    def change(self) -> float:
        return self.b - self.a


@dataclass
class Comparison:
    metrics: list[MetricDiff]
    slices: dict[str, dict[str, list[MetricDiff]]] = field(default_factory=dict)
    changed: list[SampleDiff] = field(default_factory=list)
    metric: str | None = None  # the one `changed` is ranked by


def per_sample_values(samples: Iterable[ScoredSample]) -> tuple[dict[str, dict[str, float]], dict[str, dict]]:
    """{sample id: {metric: mean over epochs}} over finished samples, and each id's metadata (of its
    first finished epoch): records taken in (sample id, epoch) order, whatever order they were written in."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    metadata: dict[str, dict] = {}
    for sample in canonical_order(samples):
        if sample.status != "ok":
            continue
        metadata.setdefault(sample.id, sample.metadata)
        for name, value in flatten_scores(sample).items():
            if value is not None:
                sums[sample.id][name].append(float(value))
    return {i: {m: sum(v) / len(v) for m, v in by.items()} for i, by in sums.items()}, metadata


def _sign_flipped_sums(data: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """RESAMPLES sums of `data` with each value's sign flipped at random (probability 1/2, independently).

    The signs are random bits drawn eight to a byte; each group of eight values has a table of its
    signed sum under every byte, so a resample costs one look-up per eight values.
    """
    groups = (data.size + 7) // 8
    padded = np.zeros(groups * 8)
    padded[: data.size] = data  # padding adds 0 whatever its sign
    signs = 1.0 - 2.0 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1)  # (256, 8)
    table = padded.reshape(groups, 8) @ signs.T  # (groups, 256)
    drawn = rng.integers(0, 256, size=(RESAMPLES, groups), dtype=np.uint8)
    columns = np.arange(groups)
    return np.concatenate([table[columns, part].sum(axis=1) for part in np.array_split(drawn, _chunks(data.size))])


def _chunks(n: int) -> int:
    """How many blocks of resamples keep a block of n-wide rows near 2 million values (bounded memory)."""
    return max(1, -(-RESAMPLES * n // 2_000_000))


def paired_stats(diffs: np.ndarray, *, seed: int = 0) -> tuple[float | None, float | None, float | None]:
    """(CI low, CI high, p-value) of the mean of paired differences."""
    if diffs.size == 0:
        return None, None, None
    data = np.sort(diffs)
    if diffs.size == 1:  # no interval from one pair; both signs are as likely, so p = 1
        return None, None, 1.0
    rng = bootstrap_rng(seed)
    # drawn block by block (the same draws as all at once), so memory stays bounded for large runs
    means = np.concatenate([data[rng.integers(0, data.size, size=(len(rows), data.size))].mean(axis=1)
                            for rows in np.array_split(np.arange(RESAMPLES), _chunks(data.size))])
    low, high = np.percentile(means, [2.5, 97.5])
    observed = abs(data.mean())
    flipped = np.abs(_sign_flipped_sums(data, rng)) / data.size
    p_value = (1 + int(np.sum(flipped >= observed - 1e-12))) / (RESAMPLES + 1)
    return float(low), float(high), float(p_value)


def compare_values(a: Mapping[str, Mapping[str, float]], b: Mapping[str, Mapping[str, float]],
                   metrics: Iterable[str], *, seed: int = 0) -> list[MetricDiff]:
    result = []
    for metric in metrics:
        in_a = {i for i, values in a.items() if metric in values}
        in_b = {i for i, values in b.items() if metric in values}
        both = sorted(in_a & in_b)
        diffs = np.array([b[i][metric] - a[i][metric] for i in both])
        low, high, p_value = paired_stats(diffs, seed=seed)
        result.append(MetricDiff(
            metric, len(both),
            float(np.mean([a[i][metric] for i in both])) if both else None,
            float(np.mean([b[i][metric] for i in both])) if both else None,
            float(diffs.mean()) if both else None, low, high, p_value,
            only_a=len(in_a - in_b), only_b=len(in_b - in_a)))
    return result


def compare_runs(samples_a: Iterable[ScoredSample], samples_b: Iterable[ScoredSample], *,
                 slice_keys: Iterable[str] = (), metric: str | None = None, top: int = 10,
                 seed: int = 0) -> Comparison:
    """The comparison of run B against run A (B − A)."""
    a, meta = per_sample_values(samples_a)
    b, meta_b = per_sample_values(samples_b)
    meta = {**meta_b, **meta}
    metrics = sorted({m for values in (*a.values(), *b.values()) for m in values})
    comparison = Comparison(compare_values(a, b, metrics, seed=seed))
    for key in slice_keys:
        groups: dict[str, set[str]] = defaultdict(set)
        for sample_id, values in meta.items():
            if isinstance(values.get(key), (str, int, float, bool)):
                groups[str(values[key])].add(sample_id)
        comparison.slices[key] = {
            label: compare_values({i: a[i] for i in ids if i in a}, {i: b[i] for i in ids if i in b}, metrics,
                                  seed=seed)
            for label, ids in sorted(groups.items())
        }
    paired = [d for d in comparison.metrics if d.paired]
    # by default the samples of the metric that changed most clearly (smallest p-value; the first on ties)
    chosen = metric or (min(paired, key=lambda d: d.p_value).metric if paired else None)
    if chosen is not None:
        pairs = [SampleDiff(i, a[i][chosen], b[i][chosen]) for i in sorted(set(a) & set(b))
                 if chosen in a[i] and chosen in b[i]]
        comparison.changed = sorted(pairs, key=lambda d: (-abs(d.change), d.id))[:top]
        comparison.metric = chosen
    return comparison

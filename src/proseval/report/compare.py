"""Paired comparison of two runs of one task on the samples both scored: overall, per slice, and
the samples that changed most (the statistics: `runtime.paired`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..runtime.paired import MetricDiff, compare_values, per_sample_values
from ..runtime.records import ScoredSample


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


def compare_runs(
    samples_a: Iterable[ScoredSample],
    samples_b: Iterable[ScoredSample],
    *,
    slice_keys: Iterable[str] = (),
    metric: str | None = None,
    top: int = 10,
    seed: int = 0,
) -> Comparison:
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
            label: compare_values(
                {i: a[i] for i in ids if i in a}, {i: b[i] for i in ids if i in b}, metrics, seed=seed
            )
            for label, ids in sorted(groups.items())
        }
    paired = [d for d in comparison.metrics if d.paired]
    # by default the samples of the metric that changed most clearly (smallest p-value; the first on ties)
    chosen = metric or (
        min(paired, key=lambda d: d.p_value if d.p_value is not None else float("inf")).metric if paired else None
    )
    if chosen is not None:
        pairs = [
            SampleDiff(i, a[i][chosen], b[i][chosen])
            for i in sorted(set(a) & set(b))
            if chosen in a[i] and chosen in b[i]
        ]
        comparison.changed = sorted(pairs, key=lambda d: (-abs(d.change), d.id))[:top]
        comparison.metric = chosen
    return comparison

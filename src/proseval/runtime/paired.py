"""Paired statistics of two runs' per-sample values, on the samples both scored, and the tiers
they give.

For each metric, the difference B − A is taken per sample (each sample's mean over its epochs),
over the samples scored in both runs; its mean comes with a paired bootstrap CI (samples
resampled together) and a two-sided sign-flip permutation p-value, both seeded and computed
over the differences sorted, so the result does not depend on record order. Samples that only
one run scored, or that failed in either, are counted, never paired.

Tiers: a run *beats* another when the 95% interval of their difference excludes 0 on its side; a
run's tier is 1 + the number of runs that beat it. Runs in one tier are not shown to differ,
whatever their means; the rule reads each pair once, so the tiers do not depend on the order the
runs are given in (the bootstrap is seeded). Used by `compare`, the report's leaderboard, the
evaluation set's rankings and the profile.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .aggregate import bootstrap_rng, canonical_order, flatten_scores
from .records import ScoredSample

RESAMPLES = 10_000
Values = Mapping[str, Mapping[str, float]]  # sample id -> metric -> the sample's mean over its epochs


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
    means = np.concatenate(
        [
            data[rng.integers(0, data.size, size=(len(rows), data.size))].mean(axis=1)
            for rows in np.array_split(np.arange(RESAMPLES), _chunks(data.size))
        ]
    )
    low, high = np.percentile(means, [2.5, 97.5])
    observed = abs(data.mean())
    flipped = np.abs(_sign_flipped_sums(data, rng)) / data.size
    p_value = (1 + int(np.sum(flipped >= observed - 1e-12))) / (RESAMPLES + 1)
    return float(low), float(high), float(p_value)


def compare_values(
    a: Mapping[str, Mapping[str, float]], b: Mapping[str, Mapping[str, float]], metrics: Iterable[str], *, seed: int = 0
) -> list[MetricDiff]:
    result = []
    for metric in metrics:
        in_a = {i for i, values in a.items() if metric in values}
        in_b = {i for i, values in b.items() if metric in values}
        both = sorted(in_a & in_b)
        diffs = np.array([b[i][metric] - a[i][metric] for i in both])
        low, high, p_value = paired_stats(diffs, seed=seed)
        result.append(
            MetricDiff(
                metric,
                len(both),
                float(np.mean([a[i][metric] for i in both])) if both else None,
                float(np.mean([b[i][metric] for i in both])) if both else None,
                float(diffs.mean()) if both else None,
                low,
                high,
                p_value,
                only_a=len(in_a - in_b),
                only_b=len(in_b - in_a),
            )
        )
    return result


def higher(diff: MetricDiff) -> str | None:
    """ "A" or "B": the run whose values are higher, when the interval of B − A excludes 0; else None."""
    if diff.ci_low is not None and diff.ci_low > 0:
        return "B"
    if diff.ci_high is not None and diff.ci_high < 0:
        return "A"
    return None


def verdict(diff: MetricDiff) -> str:
    """`higher` in words: "B higher", "A higher", or "no difference shown" (a tie)."""
    side = higher(diff)
    return "no difference shown" if side is None else f"{side} higher"


def tiers(values: Sequence[Values], metric: str, *, lower_is_better: bool = False, seed: int = 0) -> list[int]:
    """Each run's tier on `metric` (1 is best): 1 + the runs that beat it with an interval excluding 0."""
    beaten = [0] * len(values)
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            (diff,) = compare_values(values[i], values[j], [metric], seed=seed)
            side = higher(diff)
            if side is not None:
                better_is_b = (side == "B") != lower_is_better
                beaten[i if better_is_b else j] += 1
    return [1 + n for n in beaten]

"""Generic aggregation: mean of every score with bootstrap CIs, overall and per slice."""

from __future__ import annotations

import math
from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TypeGuard

import numpy as np

from ..core.score import Score
from .outcome import count_reasons, reason_key
from .records import Counts, MetricSummary, ScoredSample


def bootstrap_rng(seed: int) -> np.random.Generator:
    """The bootstrap's generator of a run's seed. New runs take seeds from 0 to 2**63 - 1 only
    (`models.base.check_seed`), but a run folder written before that check may hold any whole
    number: it is taken modulo 2**64 (a seed in range is kept as it is), since numpy takes no
    negative seed."""
    return np.random.default_rng(seed % 2**64)


def bootstrap_ci(
    values: Sequence[float], *, resamples: int = 1000, level: float = 0.95, seed: int = 0
) -> tuple[float | None, float | None]:
    """Percentile bootstrap CI of the mean, seeded and over the sorted values, so that the same
    scores give the same interval whatever order the samples finished in; none for fewer than two
    values (one value would give a zero-width interval that says nothing)."""
    data = np.sort(np.asarray(values, dtype=float))
    if data.size < 2:
        return None, None
    rng = bootstrap_rng(seed)
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


class _Tally:
    """Scored values and unscored counts per metric, for one group of samples."""

    def __init__(self) -> None:
        self.values: dict[str, array] = defaultdict(lambda: array("d"))
        self.unscored: dict[str, int] = defaultdict(int)
        self.failed = 0

    def add(self, sample: ScoredSample, flat: dict[str, float | None]) -> None:
        if sample.status != "ok":
            self.failed += 1
            return
        for name, value in flat.items():
            if value is None:
                self.unscored[name] += 1
            else:
                self.values[name].append(float(value))

    def summary(self, seed: int) -> dict[str, MetricSummary]:
        result: dict[str, MetricSummary] = {}
        for name in sorted(set(self.values) | set(self.unscored)):
            scored = self.values.get(name, array("d"))
            low, high = bootstrap_ci(scored, seed=seed)
            result[name] = MetricSummary(
                mean=math.fsum(scored) / len(scored) if len(scored) else None,  # exact: any record order
                ci_low=low,
                ci_high=high,
                n_scored=len(scored),
                n_unscored=self.unscored.get(name, 0),
                n_failed=self.failed,
            )
        return result


class Accumulator:
    """One pass over the records: overall metrics, per-slice metrics and counts.

    Keeps only numbers (no texts, no record objects), so memory stays small however many
    samples a run has.
    """

    def __init__(self, slice_keys: Iterable[str] = ()):
        self.slice_keys = tuple(slice_keys)
        self.overall = _Tally()
        self.slices: dict[str, dict[str, _Tally]] = {key: defaultdict(_Tally) for key in self.slice_keys}
        self.finished = self.ok = self.unscored = 0
        self.model_failures: dict[str, int] = defaultdict(int)
        self.failure_reasons: list[str] = []
        self.scoring_failed = 0

    def add(self, sample: ScoredSample) -> None:
        flat = flatten_scores(sample)
        self.finished += 1
        if sample.model_failure:
            self.model_failures[sample.model_failure] += 1
        if sample.status == "ok":
            self.ok += 1
            self.unscored += any(v is None for v in flat.values()) or any(
                score.parse_status == "partial" for score in sample.scores.values()
            )
            failed = sample.failed_scores
            if failed:
                self.scoring_failed += 1
                self.failure_reasons.extend({reason_key(f"{name}: {why}") for name, why in failed.items()})
        elif sample.retryable_failure:
            self.failure_reasons.append(reason_key(sample.error))
        self.overall.add(sample, flat)
        for key in self.slice_keys:
            self.slices[key][str(sample.metadata.get(key, "(none)"))].add(sample, flat)

    def metrics(self, seed: int = 0) -> dict[str, MetricSummary]:
        return self.overall.summary(seed)

    def slice_tables(self, seed: int = 0) -> dict[str, dict[str, dict[str, MetricSummary]]]:
        return {
            key: {label: tally.summary(seed) for label, tally in sorted(groups.items())}
            for key, groups in self.slices.items()
        }

    def counts(self, total: int) -> Counts:
        return Counts(
            total=total,
            finished=self.finished,
            ok=self.ok,
            failed=self.finished - self.ok,
            unscored=self.unscored,
            model_failures=dict(sorted(self.model_failures.items())),
            scoring_failed=self.scoring_failed,
            failure_reasons=count_reasons(self.failure_reasons),
        )


def canonical_order(samples: Iterable[ScoredSample]) -> list[ScoredSample]:
    """The records in (sample id, epoch) order, not the order they finished in, so that figures
    computed over them (means, resamplings, a task's own tables) depend on the scores alone."""
    return sorted(samples, key=lambda sample: (sample.id, sample.epoch))


def epoch_means(samples: Iterable[ScoredSample]) -> list[ScoredSample]:
    """One sample per id (in id order) whose scores are the means of its epochs' scored values.

    A score unscored in every epoch stays unscored; a sample that failed in every epoch stays
    failed. Confidence intervals are then over samples, the independent units.
    """
    groups: dict[str, list[ScoredSample]] = {}
    for sample in canonical_order(samples):
        groups.setdefault(sample.id, []).append(sample)
    means = []
    for sample_id, group in groups.items():
        ok = [s for s in group if s.status == "ok"]
        if not ok:
            means.append(group[0])
            continue
        values: dict[str, list[float]] = {}
        for sample in ok:
            for name, value in flatten_scores(sample).items():
                values.setdefault(name, [])
                if value is not None:
                    values[name].append(float(value))
        scores = {
            name: Score(
                value=float(np.mean(scored)) if scored else None, parse_status="ok" if scored else "not_applicable"
            )
            for name, scored in values.items()
        }
        means.append(ScoredSample(id=sample_id, epoch=0, status="ok", metadata=ok[0].metadata, scores=scores))
    return means


def mean_tree(trees: Sequence[object]) -> object:
    """Element-wise mean of structurally equal JSON-like values (numbers averaged, None skipped).

    Dicts are merged key by key, lists position by position; anything else (text, booleans,
    structures that differ) is taken from the first value.
    """
    first = trees[0]
    dicts = [t for t in trees if isinstance(t, dict)]
    if len(dicts) == len(trees):
        return {k: mean_tree([t[k] for t in dicts if k in t]) for k in dicts[0]}
    lists = [t for t in trees if isinstance(t, list)]
    if len(lists) == len(trees) and len({len(t) for t in lists}) == 1:
        return [mean_tree([t[i] for t in lists]) for i in range(len(lists[0]))]
    numbers = [t for t in trees if _is_number(t)]
    if numbers and all(t is None or _is_number(t) for t in trees):
        return float(np.mean(numbers))
    return first


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

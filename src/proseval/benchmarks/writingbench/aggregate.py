"""proseval's WritingBench aggregation: the official metric definitions, with unscored criteria.

Definitions (the official ones, see ``aggregate_official`` for the bit-exact replica of the
official script and its quirks):

* per query, S(q) = mean of its scored evaluations over all its criteria;
  per criterion, s(q, c) = mean of its scored evaluations;
* ``overall`` = mean over every scored evaluation of every query (a score-level average);
* ``domain1`` / ``domain2`` / ``lang`` / ``requirement_R`` = mean of S(q) over the slice's
  scored queries;
* ``requirement_C`` = mean of s(q, c) over the requirement's queries and the criteria its
  ``_C`` file names for them (a criterion-level average).

Differences from the official script (listed as deviations in the docs): every query counts
once (the input holds one record per query); an unscored evaluation is left out of every
mean and counted, never 0; an empty slice is None, also for R/C (the script writes 0); the
domain2 order is fixed (alphabetical within domain1).

Every slice carries counts of scored and unscored queries and criteria, and a percentile
bootstrap confidence interval over queries (numpy, seeded per slice).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from proseval.benchmarks.writingbench.data import DOMAIN1_LABELS, LANGUAGES, REQUIREMENTS, WritingBench
from proseval.benchmarks.writingbench.scorefile import ScoreLine
from proseval.kit import parse_score

SliceKind = Literal["overall", "domain1", "domain2", "lang", "requirement_R", "requirement_C"]


class QueryScores(BaseModel):
    """The judge scores of one query: criterion name → one entry per evaluation (None = unscored)."""

    model_config = ConfigDict(frozen=True)

    index: int
    scores: dict[str, tuple[int | None, ...]]


class SliceResult(BaseModel):
    """One number of the report, with its counts and confidence interval."""

    model_config = ConfigDict(frozen=True)

    kind: SliceKind
    label: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    queries_scored: int
    queries_unscored: int
    criteria_scored: int
    criteria_unscored: int


class Report(BaseModel):
    """All slices in display order, plus S(q) per query (None = no scored criterion)."""

    model_config = ConfigDict(frozen=True)

    slices: tuple[SliceResult, ...]
    per_query: dict[int, float | None]
    n_bootstrap: int
    confidence: float
    seed: int

    def get(self, kind: SliceKind, label: str | None = None) -> SliceResult:
        for item in self.slices:
            if item.kind == kind and (label is None or item.label == label):
                return item
        raise KeyError((kind, label))

    def of_kind(self, kind: SliceKind) -> list[SliceResult]:
        return [item for item in self.slices if item.kind == kind]


@dataclass(frozen=True)
class _Criterion:
    total: float  # sum of scored evaluations
    scored: int  # number of scored evaluations

    @property
    def mean(self) -> float | None:
        return self.total / self.scored if self.scored else None


def _per_criterion(result: QueryScores, bench: WritingBench) -> dict[str, _Criterion]:
    """Totals per criterion of the query's checklist; missing criteria have no scored evaluation."""
    if result.index not in bench:
        raise ValueError(f"index {result.index} is not in the benchmark (scores from another data version?)")
    names = bench.query(result.index).criterion_names
    unknown = sorted(set(result.scores) - set(names))
    if unknown:
        raise ValueError(f"index {result.index}: criteria {unknown} are not in this query's checklist")
    totals = {}
    for name in names:
        values = [value for value in result.scores.get(name, ()) if value is not None]
        totals[name] = _Criterion(float(math.fsum(values)), len(values))
    return totals


@dataclass(frozen=True)
class _Unit:
    """One query's contribution to a slice: value = Σ numerator / Σ denominator over units."""

    numerator: float
    denominator: int
    criteria_scored: int
    criteria_unscored: int


def _slice(
    kind: SliceKind, label: str, units: Sequence[_Unit], n_bootstrap: int, confidence: float, seed: int
) -> SliceResult:
    scored = [unit for unit in units if unit.denominator > 0]
    value = ci_low = ci_high = None
    if scored:
        numerators = np.array([unit.numerator for unit in scored])
        denominators = np.array([unit.denominator for unit in scored], dtype=float)
        value = math.fsum(numerators) / math.fsum(denominators)
        if n_bootstrap > 0 and len(scored) > 1:  # one query has no interval
            rng = np.random.default_rng([seed, zlib.crc32(f"{kind}/{label}".encode())])
            draws = rng.integers(0, len(scored), size=(n_bootstrap, len(scored)))
            stats = numerators[draws].sum(axis=1) / denominators[draws].sum(axis=1)
            alpha = (1 - confidence) / 2
            ci_low, ci_high = (float(x) for x in np.quantile(stats, [alpha, 1 - alpha]))
    return SliceResult(
        kind=kind,
        label=label,
        value=value,
        ci_low=ci_low,
        ci_high=ci_high,
        queries_scored=len(scored),
        queries_unscored=len(units) - len(scored),
        criteria_scored=sum(unit.criteria_scored for unit in units),
        criteria_unscored=sum(unit.criteria_unscored for unit in units),
    )


def _counts(criteria: Mapping[str, _Criterion], names: Iterable[str]) -> tuple[int, int]:
    """(scored, unscored) criteria among ``names``; a criterion is scored if any evaluation is."""
    flags = [criteria[name].scored > 0 for name in names]
    return sum(flags), len(flags) - sum(flags)


def aggregate(
    results: Iterable[QueryScores],
    bench: WritingBench,
    *,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Report:
    """Aggregate one model's scores (one record per query) into the report slices."""
    per_query: dict[int, dict[str, _Criterion]] = {}
    for result in results:
        if result.index in per_query:
            raise ValueError(f"index {result.index} appears twice; deduplicate the scores first")
        per_query[result.index] = _per_criterion(result, bench)

    s_values: dict[int, float | None] = {}
    micro: dict[int, _Unit] = {}  # score-level: every scored evaluation weighs the same
    query_mean: dict[int, _Unit] = {}  # query-level: S(q) weighs the same for every query
    for index, criteria in per_query.items():
        total = math.fsum(c.total for c in criteria.values())
        count = sum(c.scored for c in criteria.values())
        s_values[index] = total / count if count else None
        counts = _counts(criteria, criteria)
        micro[index] = _Unit(total, count, *counts)
        query_mean[index] = _Unit(s_values[index] or 0.0, int(count > 0), *counts)

    def make(kind: SliceKind, label: str, units: Sequence[_Unit]) -> SliceResult:
        return _slice(kind, label, units, n_bootstrap, confidence, seed)

    def by_label(kind: Literal["domain1", "domain2", "lang"], labels: Iterable[str]) -> list[SliceResult]:
        groups: dict[str, list[_Unit]] = {label: [] for label in labels}
        for index, unit in query_mean.items():
            groups[getattr(bench.query(index), kind) or "unknown"].append(unit)
        return [make(kind, label, units) for label, units in groups.items()]

    queries = [bench.query(index) for index in per_query]
    domain1_of = {query.domain2: query.domain1 for query in queries}
    domain2_labels = sorted(domain1_of, key=lambda label: (DOMAIN1_LABELS.index(domain1_of[label]), label))
    languages = [*LANGUAGES, *(["unknown"] if any(query.lang is None for query in queries) else [])]
    slices = [make("overall", "all", list(micro.values()))]
    slices += by_label("domain1", DOMAIN1_LABELS)
    slices += by_label("domain2", domain2_labels)
    slices += by_label("lang", languages)
    for dim in REQUIREMENTS:
        subset = bench.requirements[dim]
        present = [index for index in subset.indices if index in per_query]
        slices.append(make("requirement_R", dim, [query_mean[index] for index in present]))
        c_units = []
        for index in present:
            names = subset.criteria[index]
            means = [per_query[index][name].mean for name in names]
            scored = [mean for mean in means if mean is not None]
            c_units.append(_Unit(math.fsum(scored), len(scored), *_counts(per_query[index], names)))
        slices.append(make("requirement_C", dim, c_units))
    return Report(slices=tuple(slices), per_query=s_values, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)


def scores_from_lines(lines: Sequence[ScoreLine]) -> tuple[list[QueryScores], list[int]]:
    """Turn official score-file lines into one record per query, for :func:`aggregate`.

    A repeated index keeps its last line (the official resume re-judges and re-appends the
    last record); the repeated indices are returned so that callers can warn. Each judge
    score is validated as in judging: anything but a whole number 1–10 becomes unscored.
    """
    last: dict[int, ScoreLine] = {}
    repeated: list[int] = []
    for line in lines:
        if line.index in last and line.index not in repeated:
            repeated.append(line.index)
        last[line.index] = line
    records = [
        QueryScores(
            index=index,
            scores={
                name: tuple(parse_score(evaluation.get("score"), 1, 10).value for evaluation in evaluations)
                for name, evaluations in line.scores.items()
            },
        )
        for index, line in last.items()
    ]
    return records, repeated

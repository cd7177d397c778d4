"""Agreement between two raters, and between the judges of one task and role: each pair's statistics
with their intervals, per slice, on the ranking of the candidates, where they disagree most, and
Krippendorff's alpha over the whole group."""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.ratings import Scale
from .card import GroupAgreement, Interval, JudgePair, PairStats, SystemAgreement, TopDisagreement
from .collect import Verdict
from .stats import bootstrap as resampling
from .stats.agreement import exact_agreement, weighted_kappa, within_one
from .stats.alpha import Level, krippendorff_alpha, pairable_units
from .stats.alpha import alpha_interval as stats_alpha_interval
from .stats.correlation import kendall_tau_b, pearson, ranking, spearman, system_kendall, system_kendall_resampling
from .stats.inputs import Values, paired
from .stats.pairs import TwoRaterResampling, table_statistics, two_rater_resampling
from .table import Item, values_of

TOP_DISAGREEMENTS = 10


def interval(found: resampling.Interval) -> Interval:
    """A bootstrap interval of the statistics as the analysis records it."""
    return Interval(low=found.low, high=found.high, resamples=found.valid, note=found.note)


def level_of(scale: Scale | None) -> Level:
    """The level of measurement of Krippendorff's alpha on a scale."""
    if scale is None or scale.kind == "interval":
        return "interval"
    return "nominal" if scale.kind == "binary" else "ordinal"


def alpha_note(pairable: int, alpha: float | None, rated: str) -> str:
    """Why Krippendorff's alpha is missing ('' when it is not) over `pairable` items `rated` so."""
    if alpha is not None:
        return ""
    return f"fewer than 2 items {rated}" if pairable < 2 else "the verdicts do not vary"


def _kappa(a: Values, b: Values, scale: Scale) -> float | None:
    """Quadratic-weighted kappa over the scale's points; None when a verdict is not one of them."""
    try:
        return weighted_kappa(a, b, int(scale.low), int(scale.high))
    except ValueError:
        return None


@dataclass(frozen=True)
class _Pair:
    """Two raters' complete pairs with what their statistics need before and after the bootstrap."""

    a: np.ndarray
    b: np.ndarray
    scale: Scale | None
    kappa: float | None
    resampled: TwoRaterResampling | None  # None without pairs

    @classmethod
    def of(cls, a: np.ndarray, b: np.ndarray, scale: Scale | None) -> _Pair:
        integer = scale is not None and scale.integer
        kappa = _kappa(a, b, scale) if integer and scale else None
        low, high = (int(scale.low), int(scale.high)) if kappa is not None and scale else (None, None)
        resampled = two_rater_resampling(a, b, low=low, high=high, level=level_of(scale)) if a.size else None
        return cls(a, b, scale, kappa, resampled)

    @property
    def wanted(self) -> list[resampling.Resampling]:
        return self.resampled.wanted if self.resampled is not None else []

    def stats(self, found: Sequence[list[resampling.Interval]], seed: int) -> PairStats:
        """The pair's statistics, given `bootstrap_together`'s answer to `wanted` (drawn with `seed`).
        With few distinct values, the correlations and alpha come from the table of value pairs, as
        their resamples' do; else from scipy and the krippendorff package."""
        a, b, scale = self.a, self.b, self.scale
        integer = scale is not None and scale.integer
        diff, intervals = self.resampled.results(found, seed=seed) if self.resampled is not None else (None, {})
        level = level_of(scale)
        point = table_statistics(a, b, level=level) or {
            "spearman": spearman(a, b),
            "kendall_tau_b": kendall_tau_b(a, b),
            "pearson": pearson(a, b),
            "alpha": krippendorff_alpha(np.stack([a, b]), level) if len(a) else None,
        }
        return PairStats(
            n=len(a),
            spearman=point["spearman"],
            kendall_tau_b=point["kendall_tau_b"],
            pearson=point["pearson"],
            exact=exact_agreement(a, b) if integer else None,
            within_one=within_one(a, b) if integer else None,
            weighted_kappa=self.kappa,
            alpha=point["alpha"],
            mean_difference=diff.mean if diff else None,
            ci_low=diff.low if diff else None,
            ci_high=diff.high if diff else None,
            intervals={name: interval(found_interval) for name, found_interval in intervals.items()},
        )


def pair_stats(
    x: Sequence[float | None], y: Sequence[float | None], scale: Scale | None, *, seed: int = 0
) -> PairStats:
    """Every agreement statistic of two raters over the same items (None where it does not apply),
    each with its bootstrap interval (the items resampled jointly)."""
    pair = _Pair.of(*paired(x, y), scale)
    return pair.stats(resampling.bootstrap_together(len(pair.a), pair.wanted, seed=seed), seed)


def pair_stats_both_ways(
    x: Sequence[float | None],
    y: Sequence[float | None],
    scale: Scale | None,
    *,
    seed: int = 0,
    also: Sequence[resampling.Resampling] = (),
) -> tuple[PairStats, PairStats, list[list[resampling.Interval]]]:
    """`pair_stats(x, y)` and `pair_stats(y, x)`, and the intervals of `also` (more statistics of the
    same complete pairs, in their order), all from one pass of bootstrap draws: the same seed draws
    the same resamples of the same number of items."""
    a, b = paired(x, y)
    forth, back = _Pair.of(a, b, scale), _Pair.of(b, a, scale)
    found = resampling.bootstrap_together(len(a), [*forth.wanted, *back.wanted, *also], seed=seed)
    one, two = len(forth.wanted), len(forth.wanted) + len(back.wanted)
    return forth.stats(found[:one], seed), back.stats(found[one:two], seed), found[two:]


@dataclass(frozen=True)
class _System:
    """The two judges' per-model means on the items both scored, and the bootstrap of their tau."""

    models: list[str]
    means_a: dict[str, float]
    means_b: dict[str, float]
    tau: float | None
    resampled: resampling.Resampling | None  # None when tau is


def _system_of(
    primary_a: Mapping[Item, Verdict],
    primary_b: Mapping[Item, Verdict],
    shared: Sequence[Item],
    candidates: Mapping[str, str],
) -> _System | None:
    scored = [
        (candidates.get(item[0][0], item[0][0]), primary_a[item].value, primary_b[item].value)
        for item in shared
        if primary_a[item].value is not None and primary_b[item].value is not None
    ]
    models = sorted({model for model, _, _ in scored})
    if len(models) < 2:
        return None
    index = {model: k for k, model in enumerate(models)}
    code = np.array([index[model] for model, _, _ in scored])
    a = np.array([va for _, va, _ in scored], dtype=float)
    b = np.array([vb for _, _, vb in scored], dtype=float)

    def means(values: np.ndarray) -> dict[str, float]:
        counts = np.bincount(code, minlength=len(models))
        sums = np.bincount(code, weights=values, minlength=len(models))
        return {m: float(sums[k] / counts[k]) for k, m in enumerate(models) if counts[k]}

    means_a, means_b = means(a), means(b)
    tau = system_kendall(means_a, means_b)
    wanted = system_kendall_resampling(a, b, code, len(models)) if tau is not None else None
    return _System(models, means_a, means_b, tau, wanted)


def _system_agreement(system: _System | None, found: resampling.Interval | None) -> SystemAgreement | None:
    """Kendall's tau between the two judges' rankings of the candidate models (on shared items),
    with its bootstrap interval over the items."""
    if system is None:
        return None
    return SystemAgreement(
        n_models=len(system.models),
        kendall_tau_b=system.tau,
        kendall_tau_b_ci=interval(found) if found is not None else None,
        ranking_a=ranking(system.means_a),
        ranking_b=ranking(system.means_b),
        means_a=system.means_a,
        means_b=system.means_b,
    )


def _slices(
    primary_a: Mapping[Item, Verdict], primary_b: Mapping[Item, Verdict], shared: Sequence[Item], scale: Scale | None
) -> dict[str, dict[str, PairStats]]:
    by: dict[str, dict[str, list[Item]]] = defaultdict(lambda: defaultdict(list))
    for item in shared:
        for key, value in primary_a[item].slices:
            by[key][value].append(item)
    return {
        key: {
            value: pair_stats(values_of(primary_a, items), values_of(primary_b, items), scale)
            for value, items in sorted(values.items())
        }
        for key, values in by.items()
    }


def _top_disagreements(
    primary_a: Mapping[Item, Verdict], primary_b: Mapping[Item, Verdict], shared: Sequence[Item]
) -> list[TopDisagreement]:
    gaps = []
    for item in shared:
        va, vb = primary_a[item].value, primary_b[item].value
        if va is not None and vb is not None and va != vb:
            gaps.append((abs(va - vb), item, va, vb))
    top = heapq.nsmallest(TOP_DISAGREEMENTS, gaps, key=lambda g: (-g[0], g[1]))  # the first of them sorted
    return [
        TopDisagreement(answers=item[0][0], sample_id=item[0][1], epoch=item[0][2], criterion=item[1], a=va, b=vb)
        for _, item, va, vb in top
    ]


def judge_pairs(
    task: str,
    role: str,
    primaries: Mapping[str, Mapping[Item, Verdict]],
    scale: Scale | None,
    candidates: Mapping[str, str],
    seed: int,
) -> tuple[list[JudgePair], dict[tuple[str, str], PairStats]]:
    """Each two judges of a task and role on the items both rated; and each judge's statistics
    against each other judge, keyed (judge, other), for the judges' cards. A pair's statistics both
    ways and its system-level tau are resampled from one pass of draws."""
    judges, found, against = list(primaries), [], {}
    for i, a in enumerate(judges):
        for b in judges[i + 1 :]:
            shared = sorted(set(primaries[a]) & set(primaries[b]))
            system = _system_of(primaries[a], primaries[b], shared, candidates)
            also = [system.resampled] if system is not None and system.resampled is not None else []
            forth, back, extra = pair_stats_both_ways(
                values_of(primaries[a], shared), values_of(primaries[b], shared), scale, seed=seed, also=also
            )
            against[(a, b)], against[(b, a)] = forth.model_copy(deep=True), back
            found.append(
                JudgePair(
                    task=task,
                    role=role,
                    a=a,
                    b=b,
                    overall=forth,
                    slices=_slices(primaries[a], primaries[b], shared, scale),
                    system=_system_agreement(system, extra[0][0] if extra else None),
                    top_disagreements=_top_disagreements(primaries[a], primaries[b], shared),
                )
            )
    return found, against


def alpha_interval(matrix: Sequence[Sequence[float | None]], level: Level, seed: int) -> Interval | None:
    """Bootstrap interval of Krippendorff's alpha of raters x units, over the pairable units (None
    with fewer than two)."""
    if pairable_units(matrix) < 2:
        return None
    return interval(stats_alpha_interval(matrix, level, seed=seed))


def group_agreement(
    task: str, role: str, primaries: Mapping[str, Mapping[Item, Verdict]], scale: Scale | None, seed: int
) -> GroupAgreement | None:
    """Krippendorff's alpha over all the judges of a task and role, when there are more than two."""
    if len(primaries) <= 2:
        return None
    items = sorted(set().union(*(set(p) for p in primaries.values())))
    matrix = [values_of(verdicts, items) for verdicts in primaries.values()]
    pairable = pairable_units(matrix)
    alpha = krippendorff_alpha(matrix, level_of(scale))
    return GroupAgreement(
        task=task,
        role=role,
        judges=list(primaries),
        n_items=pairable,
        alpha=alpha,
        alpha_ci=alpha_interval(matrix, level_of(scale), seed) if alpha is not None else None,
        note=alpha_note(pairable, alpha, "scored by two judges"),
    )

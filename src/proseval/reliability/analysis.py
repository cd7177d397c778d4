"""The judge-reliability analysis: agreement, consistency, bias and cost per judge, from run folders.

Items are (answer, criterion) pairs: the answer a run's candidate wrote to one sample (and epoch),
and one criterion a judge rated it on. A judge's verdict on an item is taken from its first run on
those answers (by start time); its later runs on the same answers are repeats, used only for
consistency, each judging counted once (`repeats`). Every statistic is computed on the items both
sides rated (an unscored verdict counts in the unscored rate, never as a value).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .. import __version__
from ..core.prices import Prices
from ..core.ratings import Scale
from . import stats
from .card import (
    Analysis,
    Consistency,
    Cost,
    EvaluatorCard,
    GroupAgreement,
    HumanAgreement,
    Interval,
    JudgePair,
    LabelSummary,
    LengthBias,
    PairStats,
    PanelItem,
    PanelSummary,
    PositionBias,
    RaterAgreement,
    RaterVsRest,
    RunInfo,
    SelfPreference,
    SetAsideRun,
    SystemAgreement,
    TopDisagreement,
)
from .collect import AnswerKey, Judgements, JudgedRun, Verdict, collect
from .labels import Label, LabelSet, check_scales, match_labels
from .repeats import distinct_runs

Item = tuple[AnswerKey, str]  # (answer, criterion)
Group = tuple[str, str]  # (task, role)

TOP_DISAGREEMENTS = 10


def pair_stats(x: Sequence[float | None], y: Sequence[float | None], scale: Scale | None, *,
               seed: int = 0) -> PairStats:
    """Every agreement statistic of two raters over the same items (None where it does not apply),
    each with its bootstrap interval (the items resampled jointly)."""
    a, b = stats.paired(x, y)
    n = len(a)
    integer = scale is not None and scale.integer
    diff = stats.mean_difference(a, b, seed=seed) if n else None
    kappa = _kappa(a, b, scale) if integer and scale else None
    bounds = (int(scale.low), int(scale.high)) if kappa is not None and scale else (None, None)
    found = stats.pair_intervals(a, b, low=bounds[0], high=bounds[1], level=_level(scale), seed=seed) if n else {}
    return PairStats(
        n=n,
        spearman=stats.spearman(a, b), kendall_tau_b=stats.kendall_tau_b(a, b), pearson=stats.pearson(a, b),
        exact=stats.exact_agreement(a, b) if integer else None,
        within_one=stats.within_one(a, b) if integer else None,
        weighted_kappa=kappa,
        alpha=stats.krippendorff_alpha([list(a), list(b)], _level(scale)) if n else None,
        mean_difference=diff.mean if diff else None,
        ci_low=diff.low if diff else None, ci_high=diff.high if diff else None,
        intervals={name: interval(found_interval) for name, found_interval in found.items()},
    )


def interval(found: stats.Interval) -> Interval:
    """A bootstrap interval of `stats` as the analysis records it."""
    return Interval(low=found.low, high=found.high, resamples=found.valid, note=found.note)


def _kappa(a: Sequence[float], b: Sequence[float], scale: Scale) -> float | None:
    """Quadratic-weighted kappa over the scale's points; None when a verdict is not one of them."""
    try:
        return stats.weighted_kappa(a, b, int(scale.low), int(scale.high))
    except ValueError:
        return None


def _level(scale: Scale | None) -> str:
    if scale is None or scale.kind == "interval":
        return "interval"
    return "nominal" if scale.kind == "binary" else "ordinal"


class _Table:
    """The verdicts of one (task, role): per judge, per answer set, the runs in start order."""

    def __init__(self, runs: Mapping[int, JudgedRun], verdicts: Iterable[Verdict]):
        self.runs = runs
        self.by_run: dict[int, dict[Item, Verdict]] = defaultdict(dict)
        for verdict in verdicts:
            self.by_run[verdict.run][(verdict.answer, verdict.criterion)] = verdict
        self.judges: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        role = next(iter(verdicts_roles(self.by_run)), "judge")
        # Runs judged with the order swapped are the position probe: kept apart, never a repeat.
        self.swapped: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for index in sorted(self.by_run, key=lambda i: (runs[i].header.started_at, i)):
            run = runs[index]
            (self.swapped if run.swapped else self.judges)[run.judges.get(role, "?")][run.answers].append(index)

    def primary(self, judge: str) -> dict[Item, Verdict]:
        """The judge's first verdict on each item."""
        chosen: dict[Item, Verdict] = {}
        for indices in self.judges[judge].values():
            chosen.update(self.by_run[indices[0]])
        return chosen

    def scale(self) -> Scale | None:
        return next((v.scale for verdicts in self.by_run.values() for v in verdicts.values()), None)


def verdicts_roles(by_run: Mapping[int, Mapping[Item, Verdict]]) -> list[str]:
    return sorted({v.role for verdicts in by_run.values() for v in verdicts.values()})


def _values(primary: Mapping[Item, Verdict], items: Sequence[Item]) -> list[float | None]:
    return [primary[i].value if i in primary else None for i in items]


def _consistency(table: _Table, judge: str) -> Consistency | None:
    """Per-item spread over the judge's repeated runs on the same answers."""
    rows: list[list[float | None]] = []
    repeats = 1
    for indices in table.judges[judge].values():
        if len(indices) < 2:
            continue
        repeats = max(repeats, len(indices))
        items = sorted(set().union(*(table.by_run[i] for i in indices)))
        rows += [[table.by_run[i][item].value if item in table.by_run[i] else None for i in indices]
                 for item in items]
    if not rows:
        return None
    width = max(len(r) for r in rows)
    matrix = [r + [None] * (width - len(r)) for r in rows]
    found = stats.repeat_consistency(matrix)
    return Consistency(repeats=repeats, n_items=found.n_items, mean_variance=found.mean_variance,
                       mean_sd=found.mean_std, changed_share=found.share_changed, alpha=found.alpha,
                       note=_alpha_note(found.n_items, found.alpha, "judged twice"))


def _alpha_note(pairable: int, alpha: float | None, rated: str) -> str:
    """Why Krippendorff's alpha is missing ('' when it is not) over `pairable` items `rated` so."""
    if alpha is not None:
        return ""
    return f"fewer than 2 items {rated}" if pairable < 2 else "the verdicts do not vary"


def _position(table: _Table, judge: str, primary: Mapping[Item, Verdict], seed: int) -> PositionBias | None:
    """How the judge's verdicts change when the texts of its prompt are shown in the other order."""
    swapped: dict[Item, Verdict] = {}
    for indices in table.swapped.get(judge, {}).values():
        swapped.update(table.by_run[indices[0]])
    items = sorted(set(swapped) & set(primary))
    if not items:
        return None
    first, second = _values(primary, items), _values(swapped, items)
    shift = stats.score_shift(first, second)
    flips = stats.share_changed_interval(first, second, seed=seed)
    return PositionBias(n=shift.n, flip_rate=shift.share_changed, mean_shift=shift.mean_change,
                        flip_rate_ci=interval(flips) if shift.n else None)


def _answer_means(primary: Mapping[Item, Verdict]) -> dict[AnswerKey, float]:
    """Each answer's mean verdict over its criteria (the unit whose length is known)."""
    values: dict[AnswerKey, list[float]] = defaultdict(list)
    for (answer, _), verdict in primary.items():
        if verdict.value is not None:
            values[answer].append(verdict.value)
    return {answer: statistics.fmean(v) for answer, v in values.items()}


MIN_LENGTH_ANSWERS = 5  # answers of known length a length slope needs
MIN_LENGTH_SPREAD = 0.25  # doublings: the log2 lengths' root mean square deviation within their groups


def length_guard(lengths: Sequence[int], groups: Sequence[Hashable]) -> str:
    """Why no length slope is given on these answers (one entry per answer, with the group its slope is
    taken within), or "": a slope fitted on a handful of answers, or on lengths a few words apart,
    extrapolates to a doubling the data never saw and can be as large as it likes."""
    if len(lengths) < MIN_LENGTH_ANSWERS:
        return f"too few answers: {len(lengths)}, needs {MIN_LENGTH_ANSWERS}"
    spread = stats.length_spread(lengths, groups)
    if spread < MIN_LENGTH_SPREAD:
        return f"lengths too alike: they spread {spread:.2f} doublings, needs {MIN_LENGTH_SPREAD}"
    return ""


def _within_run(primary: Mapping[Item, Verdict], lengths: Mapping[AnswerKey, int],
                seed: int) -> tuple[float | None, int, str, Interval | None]:
    """The slope of the verdicts on log2 length within each run, net of each criterion's level (a fixed
    effect per run and criterion; criteria rated on one answer only, as WritingBench's per-query
    ones, share one per run): its value, the verdicts it rests on, why it is missing, its interval
    (answers resampled whole: an answer's verdicts share its length)."""
    items = [(answer, criterion, v.value) for (answer, criterion), v in primary.items()
             if v.value is not None and answer in lengths]
    answers_rated: dict[tuple[str, str], int] = defaultdict(int)
    for answer, criterion, _ in items:
        answers_rated[(answer[0], criterion)] += 1
    groups = [(a[0], c if answers_rated[(a[0], c)] > 1 else None) for a, c, _ in items]
    scores, words = [v for _, _, v in items], [lengths[a] for a, _, _ in items]
    slope = stats.length_slope(scores, words, groups)
    answers = list(dict.fromkeys(a for a, _, _ in items))
    guard = length_guard([lengths[a] for a in answers], [a[0] for a in answers])
    if slope.slope is not None and guard:
        return None, slope.n, guard, None
    if slope.slope is not None:
        return slope.slope, slope.n, "", interval(stats.length_slope_interval(
            scores, words, groups, [a for a, _, _ in items], seed=seed))
    if not items:
        return None, 0, "no scored verdict on an answer of known length", None
    if slope.n == 0:
        return None, 0, "no two verdicts to compare within a run", None
    return None, slope.n, "the answers' lengths do not vary", None


def _length_bias(primary: Mapping[Item, Verdict], lengths: Mapping[AnswerKey, int],
                 candidates: Mapping[str, str], seed: int) -> LengthBias:
    within_run, n_within_run, within_run_note, within_run_ci = _within_run(primary, lengths, seed)
    means = _answer_means(primary)
    answers = [a for a in means if a in lengths]
    groups = [f"{a[1]}#{a[2]}" for a in answers]
    shared = _repeated(groups)
    if not shared:
        return LengthBias(note="needs two or more answers per sample (several candidates, or epochs)",
                          within_run_slope=within_run, n_within_run=n_within_run, within_run_note=within_run_note,
                          within_run_slope_ci=within_run_ci)
    kept = [i for i, g in enumerate(groups) if g in shared]
    scores = [means[answers[i]] for i in kept]
    words = [lengths[answers[i]] for i in kept]
    keys = [groups[i] for i in kept]
    systems = [candidates.get(answers[i][0], answers[i][0]) for i in kept]
    slope = stats.length_slope(scores, words, keys)
    controlled = stats.length_controlled_means(scores, words, keys, systems)
    guard = length_guard(words, keys)
    if controlled.beta is not None and guard:
        return LengthBias(note=guard, n=slope.n, within_run_slope=within_run, n_within_run=n_within_run,
                          within_run_note=within_run_note, within_run_slope_ci=within_run_ci)
    note = "" if controlled.beta is not None else "length cannot be told apart from candidate and sample"
    beta_ci = (interval(stats.length_beta_interval(scores, words, keys, systems, seed=seed))
               if controlled.beta is not None else None)
    means_of = {str(s): {"raw": raw, "length_controlled": lc} for s, (raw, lc) in controlled.means.items()}
    return LengthBias(slope_per_doubling=controlled.beta, within_sample_slope=slope.slope, n=slope.n, note=note,
                      systems=means_of, within_run_slope=within_run, n_within_run=n_within_run,
                      within_run_note=within_run_note, slope_per_doubling_ci=beta_ci,
                      within_run_slope_ci=within_run_ci)


def _repeated(groups: Sequence[str]) -> set[str]:
    counts: dict[str, int] = defaultdict(int)
    for g in groups:
        counts[g] += 1
    return {g for g, c in counts.items() if c > 1}


FAMILIES = {
    "gpt": "openai", "o1": "openai", "o3": "openai", "o4": "openai", "chatgpt": "openai", "davinci": "openai",
    "claude": "anthropic", "gemini": "google", "gemma": "google", "palm": "google", "llama": "meta",
    "qwen": "qwen", "qwq": "qwen", "mistral": "mistral", "mixtral": "mistral", "ministral": "mistral",
    "deepseek": "deepseek", "phi": "microsoft", "command": "cohere", "grok": "xai", "glm": "zhipu",
    "yi": "01-ai", "smollm": "huggingface", "smollm2": "huggingface",
}


def model_family(spec: str) -> str:
    """The vendor family of a model binding, from its name ('openai/gpt-4o-mini' -> 'openai');
    an unknown name's family is its first word."""
    name = spec.rsplit("/", 1)[-1].lower()
    words = [w for w in name.replace("_", "-").replace(".", "-").split("-") if w]
    first = words[0] if words else name
    if first in FAMILIES:
        return FAMILIES[first]
    letters = "".join(ch for ch in first if ch.isalpha())
    return FAMILIES.get(letters, letters or first)


def _self_preference(judge: str, table: _Table, primary: Mapping[Item, Verdict],
                     candidates: Mapping[str, str], seed: int) -> SelfPreference:
    family = model_family(judge.split(" (prompts", 1)[0])
    own = sorted({c for c in candidates.values() if model_family(c) == family})
    result = SelfPreference(judge_family=family, own_family_candidates=own)
    others = [j for j in table.judges if j != judge]
    if not own or not others:
        return result
    other_primary = [table.primary(j) for j in others]
    gaps: dict[bool, list[float]] = {True: [], False: []}
    for item, verdict in primary.items():
        if verdict.value is None:
            continue
        rest = [p[item].value for p in other_primary if item in p and p[item].value is not None]
        if rest:
            is_own = model_family(candidates.get(item[0][0], "?")) == family
            gaps[is_own].append(verdict.value - statistics.fmean(rest))
    if gaps[True]:
        result.gap_own = statistics.fmean(gaps[True])
        result.n_own = len(gaps[True])
    if gaps[False]:
        result.gap_other = statistics.fmean(gaps[False])
        result.n_other = len(gaps[False])
    if gaps[True] and gaps[False]:
        result.difference = result.gap_own - result.gap_other
        found = stats.gap_difference_interval(gaps[True] + gaps[False],
                                              [True] * len(gaps[True]) + [False] * len(gaps[False]), seed=seed)
        result.difference_ci = interval(found)
    return result


def _cost(judge_runs: Sequence[JudgedRun], role: str, items: int, prices: Prices | None) -> Cost:
    requests = prompt = completion = cached = 0
    latency = 0.0
    for run in judge_runs:
        usage = run.roles_usage.get(role, {})
        requests += int(usage.get("requests", 0))
        prompt += int(usage.get("prompt_tokens", 0))
        completion += int(usage.get("completion_tokens", 0))
        cached += int(usage.get("cached_tokens", 0))  # of the prompt tokens; absent in older runs
        calls = int(usage.get("requests", 0)) - int(usage.get("cache_hits", 0))
        latency += float(usage.get("mean_latency_s") or 0.0) * max(calls, 0)
    cost = Cost(items=items, requests=requests, prompt_tokens=prompt, completion_tokens=completion)
    if items and any(role in run.roles_usage for run in judge_runs):  # else no results.json: unknown, not 0
        cost.tokens_per_1000 = round((prompt + completion) * 1000 / items, 1)
        cost.seconds_per_1000 = round(latency * 1000 / items, 2) if latency else None
        spec = judge_runs[0].header.roles[role].spec if judge_runs and role in judge_runs[0].header.roles else ""
        price = prices.of(spec) if prices is not None else None
        if price is not None and prices is not None:
            cost.price_per_1000 = price.cost(prompt, completion, cached_tokens=cached) * 1000 / items
            cost.currency = prices.currency
    return cost


def _system(primary_a: Mapping[Item, Verdict], primary_b: Mapping[Item, Verdict], shared: Sequence[Item],
            candidates: Mapping[str, str], seed: int = 0) -> SystemAgreement | None:
    """Kendall's tau between the two judges' rankings of the candidate models (on shared items),
    with its bootstrap interval over the items."""
    scored = [(candidates.get(item[0][0], item[0][0]), primary_a[item].value, primary_b[item].value)
              for item in shared if primary_a[item].value is not None and primary_b[item].value is not None]
    models = sorted({model for model, _, _ in scored})
    if len(models) < 2:
        return None
    code = np.array([models.index(model) for model, _, _ in scored])
    a = np.array([va for _, va, _ in scored], dtype=float)
    b = np.array([vb for _, _, vb in scored], dtype=float)

    def means(rows: np.ndarray, values: np.ndarray) -> dict[str, float]:
        counts = np.bincount(code[rows], minlength=len(models))
        sums = np.bincount(code[rows], weights=values[rows], minlength=len(models))
        return {m: float(sums[k] / counts[k]) for k, m in enumerate(models) if counts[k]}

    every = np.arange(len(scored))
    means_a, means_b = means(every, a), means(every, b)
    tau = stats.system_kendall(means_a, means_b)
    found = stats.bootstrap_each(lambda rows: stats.system_kendall(means(rows, a), means(rows, b)), len(scored),
                                 seed=seed) if tau is not None else None
    return SystemAgreement(n_models=len(models), kendall_tau_b=tau,
                           kendall_tau_b_ci=interval(found) if found is not None else None,
                           ranking_a=stats.ranking(means_a), ranking_b=stats.ranking(means_b),
                           means_a=means_a, means_b=means_b)


def _alpha_interval(matrix: Sequence[Sequence[float | None]], level: str, seed: int) -> Interval | None:
    """Bootstrap interval of Krippendorff's alpha of raters x units, over the pairable units."""
    data = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    data = data[:, (~np.isnan(data)).sum(axis=0) >= 2]
    if data.shape[1] < 2:
        return None
    return interval(stats.bootstrap_each(lambda rows: stats.krippendorff_alpha(data[:, rows], level),
                                         data.shape[1], seed=seed))


def _slices(primary_a: Mapping[Item, Verdict], primary_b: Mapping[Item, Verdict], shared: Sequence[Item],
            scale: Scale | None) -> dict[str, dict[str, PairStats]]:
    by: dict[str, dict[str, list[Item]]] = defaultdict(lambda: defaultdict(list))
    for item in shared:
        for key, value in primary_a[item].slices:
            by[key][value].append(item)
    return {key: {value: pair_stats(_values(primary_a, items), _values(primary_b, items), scale)
                  for value, items in sorted(values.items())}
            for key, values in by.items()}


def _top_disagreements(primary_a: Mapping[Item, Verdict], primary_b: Mapping[Item, Verdict],
                       shared: Sequence[Item]) -> list[TopDisagreement]:
    gaps = []
    for item in shared:
        va, vb = primary_a[item].value, primary_b[item].value
        if va is not None and vb is not None and va != vb:
            gaps.append((abs(va - vb), item, va, vb))
    gaps.sort(key=lambda g: (-g[0], g[1]))
    return [TopDisagreement(answers=item[0][0], sample_id=item[0][1], epoch=item[0][2], criterion=item[1],
                            a=va, b=vb) for _, item, va, vb in gaps[:TOP_DISAGREEMENTS]]


def _human_values(labels: LabelSet | None, runs: Sequence[JudgedRun], verdicts: Sequence[Verdict]) -> tuple[
        dict[Item, dict[str, float]], list[tuple[AnswerKey, AnswerKey, str, str, str]], LabelSummary | None]:
    """Human scores per item and rater, pairwise preferences, and what matched: a label counts only
    where a judge rated its answer on its criterion. A label may name the run that wrote the answer
    or any run that judged it (a re-score): both mean the same answers. Raises DataError for scores
    off the scale their criterion is rated on."""
    if labels is None:
        return {}, [], None
    scales: dict[str, set[Scale]] = defaultdict(set)
    for verdict in verdicts:
        scales[verdict.criterion].add(verdict.scale)
    check_scales(labels, scales)
    alias = {run.run_id: run.answers for run in runs} | {run.answers: run.answers for run in runs}

    def resolved(label: Label) -> Label:
        update = {k: alias.get(v, v) for k in ("run", "a", "b") if (v := getattr(label, k)) is not None}
        return label.model_copy(update=update) if update else label

    matched = match_labels([resolved(label) for label in labels.labels], {(v.answer, v.criterion) for v in verdicts})
    scores: dict[Item, dict[str, float]] = defaultdict(dict)
    preferences = []
    for found in matched.matched:
        label = found.label
        if label.score is not None and found.run is not None:
            scores[((found.run, label.sample_id, label.epoch), label.criterion)][label.rater] = float(label.score)
        elif label.preference is not None and label.a is not None and label.b is not None:
            preferences.append(((label.a, label.sample_id, label.epoch), (label.b, label.sample_id, label.epoch),
                                label.criterion, label.preference, label.rater))
    summary = LabelSummary(file=str(labels.path), labels=len(labels.labels), matched=len(matched.matched),
                           unmatched=len(matched.unmatched), ambiguous=len(matched.ambiguous),
                           replaced=labels.replaced, raters=labels.raters(),
                           unmatched_examples=[f"{_label_runs(label)}/{label.sample_id}#{label.epoch} "
                                               f"{label.criterion}" for label in matched.unmatched[:5]],
                           unrated_criteria=sorted({label.criterion for label in matched.unmatched} - set(scales)))
    return scores, preferences, summary


def _label_runs(label: Label) -> str:
    if label.preference is not None:
        return f"{label.a} vs {label.b}"
    return label.run or "*"


def _humans(primary: Mapping[Item, Verdict], human: Mapping[Item, Mapping[str, float]],
            preferences: Sequence[tuple[AnswerKey, AnswerKey, str, str, str]], scale: Scale | None,
            seed: int = 0) -> HumanAgreement | None:
    items = sorted(i for i in human if i in primary)
    judge = _values(primary, items)
    human_mean = [statistics.fmean(human[i].values()) for i in items]
    result = HumanAgreement(n_items=len(items))
    if items:
        result.vs_human_mean = pair_stats(judge, human_mean, None)
        raters = sorted({r for i in items for r in human[i]})
        result.per_rater = {r: pair_stats(judge, [human[i].get(r) for i in items], scale) for r in raters}
        same, ordered = pair_orders(judge, human_mean, [(i[0][1], i[0][2], i[1]) for i in items])
        result.n_pairs = int(ordered.sum())
        if result.n_pairs:
            result.pairwise_consistency = float(same.sum() / ordered.sum())
            result.pairwise_consistency_ci = interval(stats.ratio_interval(same[ordered > 0], ordered[ordered > 0],
                                                                           seed=seed))
        result.leave_one_out = _leave_one_out(primary, human, items, raters)
    agreed = []
    for a, b, criterion, preference, _ in preferences:
        va, vb = (primary.get((a, criterion)), primary.get((b, criterion)))
        if va is None or vb is None or va.value is None or vb.value is None:
            continue
        implied = "A" if va.value > vb.value else "B" if va.value < vb.value else "tie"
        agreed.append(implied == preference)
    if agreed:
        result.preference_agreement = sum(agreed) / len(agreed)
        result.preference_agreement_ci = interval(stats.mean_interval(agreed, seed=seed))
        result.n_preferences = len(agreed)
    return result if items or agreed else None


def _leave_one_out(primary: Mapping[Item, Verdict], human: Mapping[Item, Mapping[str, float]],
                   items: Sequence[Item], raters: Sequence[str]) -> dict[str, RaterVsRest]:
    """Each rater and the judge against the mean of the other raters, on the items all three have:
    how the judge compares with a person where both are held to the same reference."""
    found = {}
    for rater in raters:
        shared = [i for i in items if rater in human[i] and len(human[i]) > 1 and primary[i].value is not None]
        if not shared:
            continue
        rest = [statistics.fmean(v for r, v in human[i].items() if r != rater) for i in shared]
        found[rater] = RaterVsRest(n=len(shared), rater=pair_stats([human[i][rater] for i in shared], rest, None),
                                   judge=pair_stats(_values(primary, shared), rest, None))
    return found


def panel_items(primaries: Mapping[str, Mapping[Item, Verdict]], aggregate: str = "mean") -> list[PanelItem]:
    """Every item any judge rated, with its panel score: the mean (or median) of the verdicts that
    scored; None when none did."""
    combine = statistics.fmean if aggregate == "mean" else statistics.median
    items = sorted(set().union(*(set(p) for p in primaries.values())))
    found = []
    for item in items:
        values = {j: (p[item].value if item in p else None) for j, p in primaries.items()}
        scored = [v for v in values.values() if v is not None]
        found.append(PanelItem(answers=item[0][0], sample_id=item[0][1], epoch=item[0][2], criterion=item[1],
                               score=combine(scored) if scored else None, judges_scored=len(scored), values=values))
    return found


def panel_summary(task: str, role: str, primaries: Mapping[str, Mapping[Item, Verdict]],
                  candidates: Mapping[str, str], aggregate: str = "mean") -> tuple[PanelSummary, list[PanelItem]]:
    items = panel_items(primaries, aggregate)
    judges = sorted(primaries)
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        who = candidates.get(item.answers, item.answers)
        if item.score is not None:
            per[who]["panel"].append(item.score)
        for judge, value in item.values.items():
            if value is not None:
                per[who][judge].append(value)
    spread = [i for i in items if i.judges_scored >= 2]
    spread.sort(key=lambda i: (-(max(v for v in i.values.values() if v is not None)
                                 - min(v for v in i.values.values() if v is not None)), i.answers, i.sample_id))
    summary = PanelSummary(
        task=task, role=role, judges=judges, aggregate=aggregate, n_items=len(items),
        n_unscored=sum(i.judges_scored == 0 for i in items),
        n_partial=sum(0 < i.judges_scored < len(judges) for i in items),
        candidates={who: {name: (statistics.fmean(v) if v else None) for name, v in
                          [("panel", means.get("panel", [])), *((j, means.get(j, [])) for j in judges)]}
                    for who, means in sorted(per.items())},
        most_disagreed=[i for i in spread[:TOP_DISAGREEMENTS] if len(set(v for v in i.values.values() if v is not None)) > 1])
    return summary, items


def pairwise_consistency(judge: Sequence[float | None], human: Sequence[float | None],
                         instructions: Sequence[Hashable]) -> float | None:
    """Of the pairs of answers to the same instruction (`instructions`: one key per item, e.g. its
    sample, epoch and criterion) that people score differently, the share the judge orders the same
    way (a judge tie counts as not the same): the pairwise consistency with human scores of
    C3EBench (§5.5), which compares two answers to one instruction; answers to different
    instructions are never paired. None when no such pair is scored differently by people."""
    same, total = pair_orders(judge, human, instructions)
    return int(same.sum()) / int(total.sum()) if total.sum() else None


def pair_orders(judge: Sequence[float | None], human: Sequence[float | None],
                instructions: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """Per instruction: the pairs of its answers the judge orders as people do, and the pairs people
    order (score differently); the clusters `pairwise_consistency` sums and its interval resamples."""
    if not len(judge) == len(human) == len(instructions):
        raise ValueError("judge, human and instructions must have the same length")
    groups: dict[Hashable, list[int]] = defaultdict(list)
    for index, key in enumerate(instructions):
        groups[key].append(index)
    j, h = stats._floats(judge), stats._floats(human)
    same, total = [], []
    for members in groups.values():
        index = np.array(members)
        a, b = stats.paired(j[index], h[index])
        da, db = np.sign(a[:, None] - a[None, :]), np.sign(b[:, None] - b[None, :])
        upper = np.triu(np.ones(da.shape, dtype=bool), 1) & (db != 0)
        total.append(int(upper.sum()))
        same.append(int((da[upper] == db[upper]).sum()))
    return np.array(same, dtype=float), np.array(total, dtype=float)


def _rater_agreement(human: Mapping[Item, Mapping[str, float]], scale: Scale | None,
                     seed: int = 0) -> RaterAgreement | None:
    """How much the raters agree with each other (context for the judges' agreement with them),
    with bootstrap intervals over the items."""
    raters = sorted({r for values in human.values() for r in values})
    if len(raters) < 2:
        return None
    items = sorted(human)
    matrix = [[human[i].get(r) for i in items] for r in raters]
    data = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    pairs = [(i, j) for i in range(len(raters)) for j in range(i + 1, len(raters))]

    def mean_spearman(columns: np.ndarray) -> float | None:
        found = [c for i, j in pairs if (c := stats.spearman(data[i, columns], data[j, columns])) is not None]
        return statistics.fmean(found) if found else None

    every = np.arange(len(items))
    spearman = mean_spearman(every)
    pairable = stats.pairable_units(matrix)
    alpha = stats.krippendorff_alpha(matrix, _level(scale))
    return RaterAgreement(
        raters=raters, n_items=pairable, alpha=alpha,
        alpha_ci=_alpha_interval(matrix, _level(scale), seed) if alpha is not None else None,
        mean_pairwise_spearman=spearman,
        mean_pairwise_spearman_ci=interval(stats.bootstrap_each(mean_spearman, len(items), seed=seed))
        if spearman is not None else None,
        note=_alpha_note(pairable, alpha, "rated by two raters"))


@dataclass(frozen=True)
class _Context:
    """What every part of one analysis reads: the runs kept, who wrote which answers, the answers'
    lengths, the human labels, the prices and the seed."""

    runs: Mapping[int, JudgedRun]
    candidates: Mapping[str, str]
    lengths: Mapping[AnswerKey, int]
    human: Mapping[Item, Mapping[str, float]]
    preferences: Sequence[tuple[AnswerKey, AnswerKey, str, str, str]]
    labelled: bool
    prices: Prices | None
    seed: int


def analyse_judgements(found: Judgements, *, labels: LabelSet | None = None, prices: Prices | None = None,
                       seed: int = 0, panel: str = "mean") -> Analysis:
    """The analysis of collected judgements (pure: no files read): per task and role, a card per
    judge, the judges' pairs, their group's alpha and their panel; then the raters' own agreement."""
    kept, aside = distinct_runs(found.runs)
    runs = {run.index: run for run in kept}
    kept_verdicts = [v for v in found.verdicts if v.run in runs]
    human, preferences, label_summary = _human_values(labels, kept, kept_verdicts)
    context = _Context(runs, {run.answers: run.candidate for run in kept if run.candidate != "?"}, found.lengths,
                       human, preferences, labels is not None, prices, seed)
    analysis = Analysis(created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        package_version=__version__,
                        runs=[RunInfo(index=r.index, run_id=r.run_id, path=str(r.path), task=r.header.task,
                                      answers=r.answers, candidate=r.candidate, judges=r.judges)
                              for r in kept],
                        labels=label_summary, tasks_without_ratings=found.no_ratings,
                        set_aside=[SetAsideRun(run_id=a.run.run_id, path=str(a.run.path), reason=a.reason,
                                               kept=str(a.kept.path)) for a in aside])
    grouped: dict[Group, list[Verdict]] = defaultdict(list)
    for verdict in kept_verdicts:
        grouped[(runs[verdict.run].header.task, verdict.role)].append(verdict)
    for (task, role), verdicts in sorted(grouped.items()):
        table = _Table(runs, verdicts)
        primaries = {j: table.primary(j) for j in sorted(table.judges)}
        analysis.cards += [_evaluator_card(context, task, role, judge, table, primaries) for judge in primaries]
        analysis.pairs += _judge_pairs(context, task, role, primaries, table.scale())
        group = _group_agreement(task, role, primaries, table.scale(), seed)
        if group is not None:
            analysis.groups.append(group)
        if len(primaries) > 1:
            summary, items = panel_summary(task, role, primaries, context.candidates, panel)
            analysis.panels.append(summary)
            analysis.panel_items.extend(items)
    if human:
        item_scales = {(v.answer, v.criterion): v.scale for v in kept_verdicts}
        scales = {item_scales[item] for item in human}
        analysis.rater_agreement = _rater_agreement(human, scales.pop() if len(scales) == 1 else None, seed)
    return analysis


def _evaluator_card(context: _Context, task: str, role: str, judge: str, table: _Table,
                    primaries: Mapping[str, Mapping[Item, Verdict]]) -> EvaluatorCard:
    """One judge's card: what it rated, its consistency and biases, its agreement with the other
    judges and with the humans, its cost."""
    scale, primary, seed = table.scale(), primaries[judge], context.seed
    judge_runs = [context.runs[i] for indices in table.judges[judge].values() for i in indices]
    given = sum(len(table.by_run[r.index]) for r in judge_runs)  # every rating paid for, repeats too
    values = [v.value for v in primary.values()]
    scored = [v for v in values if v is not None]
    card = EvaluatorCard(
        task=task, role=role, judge=judge, scale=scale.describe() if scale else "",
        runs=[r.run_id for r in judge_runs],
        candidates=sorted({r.candidate for r in judge_runs}),
        n_ratings=len(values), n_unscored=len(values) - len(scored),
        unscored_rate=(len(values) - len(scored)) / len(values) if values else None,
        mean=statistics.fmean(scored) if scored else None,
        consistency=_consistency(table, judge),
        position=_position(table, judge, primary, seed),
        length=_length_bias(primary, context.lengths, context.candidates, seed),
        self_preference=_self_preference(judge, table, primary, context.candidates, seed),
        cost=_cost(judge_runs, role, given, context.prices),
    )
    for other, verdicts in primaries.items():
        if other != judge:
            shared = sorted(set(primary) & set(verdicts))
            card.other_judges[other] = pair_stats(_values(primary, shared), _values(verdicts, shared), scale, seed=seed)
    if context.human or context.preferences:
        card.humans = _humans(primary, context.human, context.preferences, scale, seed)
    card.missing = _missing(card, labelled=context.labelled)
    return card


def _judge_pairs(context: _Context, task: str, role: str, primaries: Mapping[str, Mapping[Item, Verdict]],
                 scale: Scale | None) -> list[JudgePair]:
    """Each two judges of a task and role on the items both rated."""
    judges, found = list(primaries), []
    for i, a in enumerate(judges):
        for b in judges[i + 1:]:
            shared = sorted(set(primaries[a]) & set(primaries[b]))
            found.append(JudgePair(
                task=task, role=role, a=a, b=b,
                overall=pair_stats(_values(primaries[a], shared), _values(primaries[b], shared), scale,
                                   seed=context.seed),
                slices=_slices(primaries[a], primaries[b], shared, scale),
                system=_system(primaries[a], primaries[b], shared, context.candidates, context.seed),
                top_disagreements=_top_disagreements(primaries[a], primaries[b], shared)))
    return found


def _group_agreement(task: str, role: str, primaries: Mapping[str, Mapping[Item, Verdict]], scale: Scale | None,
                     seed: int) -> GroupAgreement | None:
    """Krippendorff's alpha over all the judges of a task and role, when there are more than two."""
    if len(primaries) <= 2:
        return None
    items = sorted(set().union(*(set(p) for p in primaries.values())))
    matrix = [_values(verdicts, items) for verdicts in primaries.values()]
    pairable = stats.pairable_units(matrix)
    alpha = stats.krippendorff_alpha(matrix, _level(scale))
    return GroupAgreement(task=task, role=role, judges=list(primaries), n_items=pairable, alpha=alpha,
                          alpha_ci=_alpha_interval(matrix, _level(scale), seed) if alpha is not None else None,
                          note=_alpha_note(pairable, alpha, "scored by two judges"))


def _missing(card: EvaluatorCard, *, labelled: bool) -> dict[str, str]:
    """Why each missing figure of the card is missing, by its column (`render.CARD_COLUMNS`)."""
    missing = {}
    if card.mean is None:
        missing["mean"] = "nothing scored"
    if card.humans is None:
        missing["vs humans"] = "no label on its items" if labelled else "no labels given"
    if not card.other_judges:
        missing["vs other judges"] = "no other judge of these answers"
    if card.consistency is None:
        missing["repeats"] = "not repeated"
    if card.length is not None and card.length.slope_per_doubling is None and card.length.within_run_slope is None:
        missing["length bias"] = card.length.within_run_note
    if card.position is None:
        missing["position flips"] = "no --swap-order re-score"
    if card.self_preference is not None and not card.self_preference.flagged:
        missing["self-preference"] = "no candidate of its family"
    if card.cost is None or card.cost.tokens_per_1000 is None:
        missing["per 1,000"] = "no usage recorded: no results.json"
    return missing


def analyse(paths: Sequence[Path], *, labels: LabelSet | None = None, prices: Prices | None = None,
            seed: int = 0, panel: str = "mean", data_dir: Path | None = None) -> Analysis:
    """Read the run folders and analyse their judges (see the module docstring); `panel` ("mean" or
    "median") makes an item's panel score from the judges' verdicts; `data_dir` is the benchmark's
    data for runs that predate recorded verdicts (`collect`)."""
    if panel not in ("mean", "median"):
        raise ValueError(f"panel score must be mean or median, not {panel!r}")
    return analyse_judgements(collect(paths, data_dir=data_dir), labels=labels, prices=prices, seed=seed,
                              panel=panel)

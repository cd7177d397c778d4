"""The judges against people: human labels matched to the verdicts, each judge's agreement with the
raters (their mean, each rater, each rater held out, the order of two answers to one instruction,
pairwise preferences), and the raters' agreement among themselves."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from ..core.ratings import Scale
from .card import HumanAgreement, LabelSummary, RaterAgreement, RaterVsRest
from .collect import AnswerKey, JudgedRun, Verdict
from .judge_pairs import alpha_interval, alpha_note, interval, level_of, pair_stats
from .labels import Label, LabelSet, check_scales, match_labels
from .stats.alpha import krippendorff_alpha, pairable_units
from .stats.bootstrap import bootstrap_each, mean_interval, ratio_interval
from .stats.correlation import spearman
from .stats.inputs import floats, paired
from .table import Item, values_of

Preference = tuple[AnswerKey, AnswerKey, str, str, str]  # (answer a, answer b, criterion, preference, rater)


def human_values(
    labels: LabelSet | None, runs: Sequence[JudgedRun], verdicts: Sequence[Verdict]
) -> tuple[dict[Item, dict[str, float]], list[Preference], LabelSummary | None]:
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
    preferences: list[Preference] = []
    for found in matched.matched:
        label = found.label
        if label.score is not None and found.run is not None:
            scores[((found.run, label.sample_id, label.epoch), label.criterion)][label.rater] = float(label.score)
        elif label.preference is not None and label.a is not None and label.b is not None:
            preferences.append(
                (
                    (label.a, label.sample_id, label.epoch),
                    (label.b, label.sample_id, label.epoch),
                    label.criterion,
                    label.preference,
                    label.rater,
                )
            )
    summary = LabelSummary(
        file=str(labels.path),
        labels=len(labels.labels),
        matched=len(matched.matched),
        unmatched=len(matched.unmatched),
        ambiguous=len(matched.ambiguous),
        replaced=labels.replaced,
        raters=labels.raters(),
        unmatched_examples=[
            f"{_label_runs(label)}/{label.sample_id}#{label.epoch} {label.criterion}" for label in matched.unmatched[:5]
        ],
        unrated_criteria=sorted({label.criterion for label in matched.unmatched} - set(scales)),
    )
    return scores, preferences, summary


def _label_runs(label: Label) -> str:
    if label.preference is not None:
        return f"{label.a} vs {label.b}"
    return label.run or "*"


def human_agreement(
    primary: Mapping[Item, Verdict],
    human: Mapping[Item, Mapping[str, float]],
    preferences: Sequence[Preference],
    scale: Scale | None,
    seed: int = 0,
) -> HumanAgreement | None:
    """The judge against the raters on the items both scored, and on the pairwise preferences; None
    when it shares neither with them."""
    items = sorted(i for i in human if i in primary)
    judge = values_of(primary, items)
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
            result.pairwise_consistency_ci = interval(
                ratio_interval(same[ordered > 0], ordered[ordered > 0], seed=seed)
            )
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
        result.preference_agreement_ci = interval(mean_interval(agreed, seed=seed))
        result.n_preferences = len(agreed)
    return result if items or agreed else None


def _leave_one_out(
    primary: Mapping[Item, Verdict],
    human: Mapping[Item, Mapping[str, float]],
    items: Sequence[Item],
    raters: Sequence[str],
) -> dict[str, RaterVsRest]:
    """Each rater and the judge against the mean of the other raters, on the items all three have:
    how the judge compares with a person where both are held to the same reference."""
    found = {}
    for rater in raters:
        shared = [i for i in items if rater in human[i] and len(human[i]) > 1 and primary[i].value is not None]
        if not shared:
            continue
        rest = [statistics.fmean(v for r, v in human[i].items() if r != rater) for i in shared]
        found[rater] = RaterVsRest(
            n=len(shared),
            rater=pair_stats([human[i][rater] for i in shared], rest, None),
            judge=pair_stats(values_of(primary, shared), rest, None),
        )
    return found


def pairwise_consistency(
    judge: Sequence[float | None], human: Sequence[float | None], instructions: Sequence[Hashable]
) -> float | None:
    """Of the pairs of answers to the same instruction (`instructions`: one key per item, e.g. its
    sample, epoch and criterion) that people score differently, the share the judge orders the same
    way (a judge tie counts as not the same): the pairwise consistency with human scores of
    C3EBench (§5.5), which compares two answers to one instruction; answers to different
    instructions are never paired. None when no such pair is scored differently by people."""
    same, total = pair_orders(judge, human, instructions)
    return int(same.sum()) / int(total.sum()) if total.sum() else None


def pair_orders(
    judge: Sequence[float | None], human: Sequence[float | None], instructions: Sequence[Hashable]
) -> tuple[np.ndarray, np.ndarray]:
    """Per instruction: the pairs of its answers the judge orders as people do, and the pairs people
    order (score differently); the clusters `pairwise_consistency` sums and its interval resamples."""
    if not len(judge) == len(human) == len(instructions):
        raise ValueError("judge, human and instructions must have the same length")
    groups: dict[Hashable, list[int]] = defaultdict(list)
    for index, key in enumerate(instructions):
        groups[key].append(index)
    j, h = floats(judge), floats(human)
    same, total = [], []
    for members in groups.values():
        rows = np.array(members)
        a, b = paired(j[rows], h[rows])
        da, db = np.sign(a[:, None] - a[None, :]), np.sign(b[:, None] - b[None, :])
        upper = np.triu(np.ones(da.shape, dtype=bool), 1) & (db != 0)
        total.append(int(upper.sum()))
        same.append(int((da[upper] == db[upper]).sum()))
    return np.array(same, dtype=float), np.array(total, dtype=float)


def rater_agreement(
    human: Mapping[Item, Mapping[str, float]], scale: Scale | None, seed: int = 0
) -> RaterAgreement | None:
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
        found = [c for i, j in pairs if (c := spearman(data[i, columns], data[j, columns])) is not None]
        return statistics.fmean(found) if found else None

    every = np.arange(len(items))
    mean_rho = mean_spearman(every)
    pairable = pairable_units(matrix)
    alpha = krippendorff_alpha(matrix, level_of(scale))
    return RaterAgreement(
        raters=raters,
        n_items=pairable,
        alpha=alpha,
        alpha_ci=alpha_interval(matrix, level_of(scale), seed) if alpha is not None else None,
        mean_pairwise_spearman=mean_rho,
        mean_pairwise_spearman_ci=interval(bootstrap_each(mean_spearman, len(items), seed=seed))
        if mean_rho is not None
        else None,
        note=alpha_note(pairable, alpha, "rated by two raters"),
    )

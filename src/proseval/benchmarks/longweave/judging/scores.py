"""Per-sample judged metrics for LongWeave: rates over the targets that carry a verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from proseval.benchmarks.longweave.judging.config import JudgedConfig, JudgedTask
from proseval.benchmarks.longweave.judging.replies import ParsedBatch, TargetVerdict
from proseval.benchmarks.longweave.scorers.length import count_words, length_adherence
from proseval.benchmarks.longweave.scorers.result import RuleScore, gated_harmonic_mean


def collect_verdicts(target_ids: Sequence[int], batches: Sequence[ParsedBatch]) -> dict[int, TargetVerdict]:
    """One verdict per target: the first scored one over all batches (retries included),
    else the first unscored one, else unscored as never judged."""
    chosen: dict[int, TargetVerdict] = {}
    for batch in batches:
        for verdict in batch.verdicts:
            current = chosen.get(verdict.target_id)
            if current is None or (verdict.scored and not current.scored):
                chosen[verdict.target_id] = verdict
    return {i: chosen.get(i, TargetVerdict(i, None, "not judged")) for i in target_ids}


def _counted(
    verdicts: Mapping[int, TargetVerdict],
    ids: Sequence[int],
    negative: dict[str, bool],
    config: JudgedConfig,
) -> list[dict[str, bool]]:
    """The verdicts of ``ids`` that enter the rates: the judged ones, plus the unscored ones
    as ``negative`` when the config counts them so."""
    counted = []
    for target_id in ids:
        verdict = verdicts[target_id].verdict
        if verdict is None and config.unscored_as_negative:
            verdict = negative
        if verdict is not None:
            counted.append(verdict)
    return counted


def _trace(verdicts: Mapping[int, TargetVerdict], config: JudgedConfig, task: JudgedTask) -> dict[str, Any]:
    """Counts, and every target's verdict as read (``verdicts``: target id as text -> the
    verdict's fields, None when unscored) under ``judged_task``: what the judge rated."""
    unscored = {i: v.reason for i, v in verdicts.items() if not v.scored}
    return {
        "targets": len(verdicts),
        "judged_targets": len(verdicts) - len(unscored),
        "unscored_targets": len(unscored),
        "unscored_reasons": unscored,
        "unscored_counted_as_negative": config.unscored_as_negative and bool(unscored),
        "judged_task": task,
        "verdicts": {str(i): None if v.verdict is None else dict(v.verdict) for i, v in verdicts.items()},
    }


def _sample_gate(trace: dict[str, Any], config: JudgedConfig) -> str | None:
    """Why the sample as a whole is unscored, or None when it can be scored."""
    total, judged = trace["targets"], trace["judged_targets"]
    if total == 0:
        return "the sample has no targets to judge"
    if config.unscored_as_negative:
        return None
    if judged == 0:
        return "no target could be judged"
    if judged / total < config.min_scored_share:
        return f"only {judged} of {total} targets judged (below the minimum share {config.min_scored_share:g})"
    return None


def _length_metrics(response: str, target_words: int) -> dict[str, float | None]:
    return {
        "words": float(count_words(response)),
        "length_adherence": length_adherence(response, target_words).value,
    }


def _unscored_score(
    names: Sequence[str], response: str, target_words: int, trace: dict[str, Any], reason: str
) -> RuleScore:
    metrics: dict[str, float | None] = dict.fromkeys(names)
    metrics.update(_length_metrics(response, target_words))
    return RuleScore(None, metrics, trace, reason)


BIOG_METRICS = ("sentence_coverage_rate",)
SR_METRICS = ("answered_rate", "correctness_rate", "total_score")
NW_METRICS = ("ap_total_score", "recall_rate", "total_score")


def score_biog(
    response: str,
    target: Mapping[str, Any],
    batches: Sequence[ParsedBatch],
    target_words: int,
    config: JudgedConfig = JudgedConfig(),
) -> RuleScore:
    """``sentence_coverage_rate`` = covered / judged target sentences (+ words, length).

    ``response`` is the full answer (words and length adherence are counted on it).
    """
    ids = range(1, len(target["target_sentences"]) + 1)
    verdicts = collect_verdicts(ids, batches)
    trace = _trace(verdicts, config, "biog")
    reason = _sample_gate(trace, config)
    if reason:
        return _unscored_score(BIOG_METRICS, response, target_words, trace, reason)
    counted = _counted(verdicts, ids, {"covered": False}, config)
    covered = sum(v["covered"] for v in counted)
    rate = covered / len(counted)
    trace.update(covered_sentences_count=covered, total_sentences_count=len(ids))
    metrics = {"sentence_coverage_rate": rate, **_length_metrics(response, target_words)}
    return RuleScore(rate, metrics, trace)


def score_sr(
    response: str,
    target: Mapping[str, Any],
    batches: Sequence[ParsedBatch],
    target_words: int,
    config: JudgedConfig = JudgedConfig(),
) -> RuleScore:
    """``total_score`` = harmonic mean of answered and correct rates over judged questions."""
    ids = range(1, len(target["qa_pairs"]) + 1)
    verdicts = collect_verdicts(ids, batches)
    trace = _trace(verdicts, config, "sr")
    reason = _sample_gate(trace, config)
    if reason:
        return _unscored_score(SR_METRICS, response, target_words, trace, reason)
    counted = _counted(verdicts, ids, {"answered": False, "correct": False}, config)
    answered = sum(v["answered"] for v in counted)
    correct = sum(v["correct"] for v in counted)
    a, c = answered / len(counted), correct / len(counted)
    total = gated_harmonic_mean([a, c])
    trace.update(answered_count=answered, correct_count=correct, total_questions=len(ids))
    metrics = {
        "answered_rate": a,
        "correctness_rate": c,
        "total_score": total,
        **_length_metrics(response, target_words),
    }
    return RuleScore(total, metrics, trace)


def score_nw(
    response: str,
    target: Mapping[str, Any],
    batches: Sequence[ParsedBatch],
    target_words: int,
    config: JudgedConfig = JudgedConfig(),
) -> RuleScore:
    """``total_score`` = harmonic mean of AP compliance and recall, both macro-averaged over
    categories; per category, rates are over its judged statements. A category none of whose
    statements was judged leaves the average (counted); one with no statements counts 0."""
    ids = [s["id"] for s in target["statements"]]
    verdicts = collect_verdicts(ids, batches)
    trace = _trace(verdicts, config, "nw")
    reason = _sample_gate(trace, config)
    if reason:
        return _unscored_score(NW_METRICS, response, target_words, trace, reason)
    negative = {"exists": False, "follows_rules": False}
    recalls: dict[str, float] = {}
    aps: dict[str, float] = {}
    unscored_categories = []
    for category in target["categories"]:
        members = [s["id"] for s in target["statements"] if s["category"] == category]
        counted = _counted(verdicts, members, negative, config)
        if members and not counted:
            unscored_categories.append(category)
            continue
        n = len(counted)
        recalls[category] = sum(v["exists"] for v in counted) / n if n else 0.0
        aps[category] = sum(v["exists"] and v["follows_rules"] for v in counted) / n if n else 0.0
    if not recalls:
        return _unscored_score(NW_METRICS, response, target_words, trace, "no category could be judged")
    recall = sum(recalls.values()) / len(recalls)
    ap = sum(aps.values()) / len(aps)
    total = gated_harmonic_mean([ap, recall])
    trace.update(recall_by_category=recalls, ap_by_category=aps, unscored_categories=unscored_categories)
    metrics = {
        "ap_total_score": ap,
        "recall_rate": recall,
        "total_score": total,
        **_length_metrics(response, target_words),
    }
    return RuleScore(total, metrics, trace)


_PRIMARY = {"biog": BIOG_METRICS, "sr": SR_METRICS, "nw": NW_METRICS}


def empty_answer_score(task: JudgedTask, reason: str = "empty answer") -> RuleScore:
    """The score of an empty answer (a model failure): every metric 0, no judge call needed."""
    names = (*_PRIMARY[task], "words", "length_adherence")
    return RuleScore(0.0, dict.fromkeys(names, 0.0), {"empty": True}, reason)

"""Run-level figures under ``results.json`` → ``extra["revision_distance"]``, one function per mode.

They read only the scored samples (numbers and score metadata), so they are pure functions of
the records and can be recomputed from any run folder.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from proseval.benchmarks.revision_distance.edits import LEVELS, OTHER, category_names
from proseval.benchmarks.revision_distance.stats import (
    average_ranks,
    median,
    spearman,
    summarise_pairs,
    summarise_stability,
)
from proseval.runtime.records import ScoredSample

KEY = "revision_distance"
DISAGREEMENTS = 5


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _value(sample: ScoredSample, name: str) -> Any:
    score = sample.scores.get(name)
    return None if score is None else score.value


def _unscored(samples: Sequence[ScoredSample], metric: str) -> tuple[list[ScoredSample], dict[str, int], int]:
    """The samples with `metric` scored, unscored counts by status, and failed samples."""
    scored, unscored, failed = [], Counter(), 0
    for sample in samples:
        if sample.status != "ok":
            failed += 1
            continue
        score = sample.scores.get(metric)
        if score is None or score.value is None:
            unscored[score.parse_status if score is not None else "missing"] += 1
        else:
            scored.append(sample)
    return scored, dict(sorted(unscored.items())), failed


def aggregate_drafts(samples: Sequence[ScoredSample], setting: str, weighting: str, per_words: int) -> dict[str, Any]:
    scored, unscored, failed = _unscored(samples, "revision_distance")
    distances = [float(_value(s, "revision_distance")) for s in scored]
    normalised = [float(v) for s in scored if (v := _value(s, "revision_distance_norm")) is not None]
    weighted = [float(v) for s in scored if (v := _value(s, "revision_distance_weighted")) is not None]
    grounded = sum(float(_value(s, "grounded_edits") or 0) for s in scored)
    ungrounded = sum(float(_value(s, "ungrounded_edits") or 0) for s in scored)
    total_edits = sum(distances)
    normalisation = Counter()
    for sample in scored:
        meta = sample.scores["revision_distance"].metadata
        for key in ("raw_count", "split_added", "noops", "duplicates", "missing_fields", "template_echoes"):
            normalisation[key] += int(meta.get(key, 0))
        normalisation["repaired_json"] += int(meta.get("status") == "repaired")
    categories = {}
    for name in category_names(setting):
        counts = [float((_value(s, "revision_categories") or {}).get(name) or 0) for s in scored]
        categories[name] = {"mean": _mean(counts), "share": sum(counts) / total_edits if total_edits else None}
    levels = {}
    for name in (*LEVELS, OTHER):
        counts = [float((_value(s, "revision_levels") or {}).get(name) or 0) for s in scored]
        levels[name] = {"mean": _mean(counts), "share": sum(counts) / total_edits if total_edits else None}
    # ROUGE needs no reviser: its mean covers every draft with a reference, ρ the drafts with a distance too
    all_rouge = [s for s in samples if s.status == "ok" and isinstance(_value(s, "rouge"), dict)]
    with_rouge = [s for s in scored if isinstance(_value(s, "rouge"), dict)]
    baselines = {}
    for name in ("rouge1", "rouge2", "rougeL"):
        values = [float(_value(s, "rouge")[name]) for s in with_rouge]
        negated = [-float(_value(s, "revision_distance")) for s in with_rouge]
        baselines[name] = {"mean": _mean([float(_value(s, "rouge")[name]) for s in all_rouge]),
                           "n": len(all_rouge), "spearman_vs_neg_distance": spearman(values, negated),
                           "n_paired": len(values)}
    return {
        "mode": "drafts", "setting": setting, "weighting": weighting, "per_words": per_words, "scored": len(scored), "unscored": unscored,
        "failed": failed,
        "distance": {"mean": _mean(distances), "median": median(distances),
                     "min": min(distances, default=None), "max": max(distances, default=None)},
        "normalised_mean": _mean(normalised), "weighted_mean": _mean(weighted),
        "grounded": grounded, "ungrounded": ungrounded,
        "grounded_share": grounded / (grounded + ungrounded) if grounded + ungrounded else None,
        "insertions": total_edits - grounded - ungrounded,
        "normalisation": dict(normalisation), "categories": categories, "levels": levels, "baselines": baselines,
        "disagreements": disagreements(with_rouge),
        "points": [[s.id, float(_value(s, "revision_distance")),
                    float(_value(s, "rouge")["rougeL"]) if isinstance(_value(s, "rouge"), dict) else None]
                   for s in scored],
    }


def disagreements(samples: Sequence[ScoredSample], top: int = DISAGREEMENTS) -> list[dict[str, Any]]:
    """Drafts ranked most differently by fewest edits and by ROUGE-L (rank gap as a share of n)."""
    if len(samples) < 2:
        return []
    by_distance = average_ranks([-float(_value(s, "revision_distance")) for s in samples])
    by_rouge = average_ranks([float(_value(s, "rouge")["rougeL"]) for s in samples])
    rows = [{"id": s.id, "distance": float(_value(s, "revision_distance")),
             "rougeL": float(_value(s, "rouge")["rougeL"]), "rank_gap": (rd - rr) / len(samples)}
            for s, rd, rr in zip(samples, by_distance, by_rouge)]
    rows.sort(key=lambda row: (-abs(row["rank_gap"]), row["id"]))
    return [row for row in rows[:top] if row["rank_gap"] != 0]


def aggregate_pairs(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    scored, unscored, failed = _unscored(samples, "pair_agree")
    outcomes = [(float(_value(s, "distance_chosen")), float(_value(s, "distance_rejected"))) for s in scored]
    humans, negated = [], []
    for sample, (chosen, rejected) in zip(scored, outcomes):
        for which, distance in (("chosen", chosen), ("rejected", rejected)):
            human = sample.metadata.get(f"{which}_score")
            if isinstance(human, (int, float)) and not isinstance(human, bool):
                humans.append(float(human))
                negated.append(-distance)
    return {"mode": "pairs", "scored": len(scored), "unscored": unscored, "failed": failed,
            **asdict(summarise_pairs(outcomes)),
            "mean_distance_chosen": _mean([c for c, _ in outcomes]),
            "mean_distance_rejected": _mean([r for _, r in outcomes]),
            "spearman_human_vs_neg_distance": spearman(humans, negated), "human_scored_texts": len(humans),
            "points": [[s.id, c, r] for s, (c, r) in zip(scored, outcomes)]}


def aggregate_stability(samples: Sequence[ScoredSample], seed: int, rate: float,
                        skipped: Sequence[str]) -> dict[str, Any]:
    scored, unscored, failed = _unscored(samples, "stability_abs_change")
    pairs = [(float(_value(s, "distance_original")), float(_value(s, "distance_perturbed"))) for s in scored]
    substitutions = [float(s.metadata.get("substitutions", 0)) for s in scored]
    return {"mode": "stability", "seed": seed, "rate": rate, "skipped_unperturbable": list(skipped),
            "scored": len(scored), "unscored": unscored, "failed": failed, **asdict(summarise_stability(pairs)),
            "mean_distance_original": _mean([o for o, _ in pairs]),
            "mean_distance_perturbed": _mean([p for _, p in pairs]),
            "mean_substitutions": _mean(substitutions),
            "points": [[s.id, o, p] for s, (o, p) in zip(scored, pairs)]}

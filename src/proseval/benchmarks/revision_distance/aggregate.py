"""Run-level figures under ``results.json`` → ``extra["revision_distance"]``, one function per mode.

They read only the scored samples (numbers and score metadata), so they are pure functions of
the records and can be recomputed from any run folder. Every mean and rate comes with its 95%
interval under the same name plus ``_ci`` (``[low, high]``, or None where it is not defined; see
`stats`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from statistics import median
from typing import Any

from proseval.benchmarks.revision_distance.edits import LEVELS, OTHER, category_names
from proseval.benchmarks.revision_distance.rouge import ROUGE_TYPES
from proseval.benchmarks.revision_distance.stats import (
    average_ranks,
    distance_vs_human,
    mean,
    mean_ci,
    perturbation_spread,
    spearman,
    spearman_ci,
    summarise_pairs,
    summarise_stability,
    wilson_ci,
)
from proseval.kit.runs import ScoredSample

KEY = "revision_distance"
DISAGREEMENTS = 5


def _value(sample: ScoredSample, name: str) -> Any:
    score = sample.scores.get(name)
    return None if score is None else score.value


def _unscored(samples: Sequence[ScoredSample], metric: str) -> tuple[list[ScoredSample], dict[str, int], int]:
    """The samples with `metric` scored, unscored counts by status, and failed samples."""
    scored: list[ScoredSample] = []
    unscored: Counter[str] = Counter()
    failed = 0
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


def _with_ci(values: Sequence[float]) -> dict[str, Any]:
    return {"mean": mean(values), "mean_ci": mean_ci(values)}


def _spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float | None, Any]:
    rho = spearman(x, y)
    return rho, spearman_ci(rho, len(x))


def _breakdown(scored: Sequence[ScoredSample], metric: str, names: Sequence[str], total: float) -> dict[str, Any]:
    """Per name: mean count per draft (bootstrap interval) and share of all edits (Wilson interval)."""
    out = {}
    for name in names:
        counts = [float((_value(s, metric) or {}).get(name) or 0) for s in scored]
        out[name] = {
            **_with_ci(counts),
            "share": sum(counts) / total if total else None,
            "share_ci": wilson_ci(sum(counts), int(total)),
        }
    return out


def aggregate_drafts(samples: Sequence[ScoredSample], setting: str, weighting: str, per_words: int) -> dict[str, Any]:
    scored, unscored, failed = _unscored(samples, "revision_distance")
    distances = [float(_value(s, "revision_distance")) for s in scored]
    normalised = [float(v) for s in scored if (v := _value(s, "revision_distance_norm")) is not None]
    weighted = [float(v) for s in scored if (v := _value(s, "revision_distance_weighted")) is not None]
    grounded = sum(float(_value(s, "grounded_edits") or 0) for s in scored)
    ungrounded = sum(float(_value(s, "ungrounded_edits") or 0) for s in scored)
    total_edits = sum(distances)
    normalisation: Counter[str] = Counter()
    for sample in scored:
        meta = sample.scores["revision_distance"].metadata
        for key in ("raw_count", "split_added", "noops", "duplicates", "missing_fields", "template_echoes"):
            normalisation[key] += int(meta.get(key, 0))
        normalisation["repaired_json"] += int(meta.get("status") == "repaired")
    # ROUGE needs no reviser: its mean covers every draft with a reference, ρ the drafts with a distance too
    all_rouge = [s for s in samples if s.status == "ok" and isinstance(_value(s, "rouge"), dict)]
    with_rouge = [s for s in scored if isinstance(_value(s, "rouge"), dict)]
    baselines = {}
    for name in ROUGE_TYPES:
        rho, rho_ci = _spearman(
            [float(_value(s, "rouge")[name]) for s in with_rouge],
            [-float(_value(s, "revision_distance")) for s in with_rouge],
        )
        baselines[name] = {
            **_with_ci([float(_value(s, "rouge")[name]) for s in all_rouge]),
            "n": len(all_rouge),
            "spearman_vs_neg_distance": rho,
            "spearman_ci": rho_ci,
            "n_paired": len(with_rouge),
        }
    return {
        "mode": "drafts",
        "setting": setting,
        "weighting": weighting,
        "per_words": per_words,
        "scored": len(scored),
        "unscored": unscored,
        "failed": failed,
        "distance": {
            **_with_ci(distances),
            "median": median(distances) if distances else None,
            "min": min(distances, default=None),
            "max": max(distances, default=None),
        },
        "normalised_mean": mean(normalised),
        "normalised_mean_ci": mean_ci(normalised),
        "weighted_mean": mean(weighted),
        "weighted_mean_ci": mean_ci(weighted),
        "grounded": grounded,
        "ungrounded": ungrounded,
        "grounded_share": grounded / (grounded + ungrounded) if grounded + ungrounded else None,
        "grounded_share_ci": wilson_ci(grounded, int(grounded + ungrounded)),
        "insertions": total_edits - grounded - ungrounded,
        "normalisation": dict(normalisation),
        "categories": _breakdown(scored, "revision_categories", category_names(setting), total_edits),
        "levels": _breakdown(scored, "revision_levels", (*LEVELS, OTHER), total_edits),
        "baselines": baselines,
        "disagreements": disagreements(with_rouge),
        "points": [
            [
                s.id,
                float(_value(s, "revision_distance")),
                float(_value(s, "rouge")["rougeL"]) if isinstance(_value(s, "rouge"), dict) else None,
            ]
            for s in scored
        ],
    }


def disagreements(samples: Sequence[ScoredSample], top: int = DISAGREEMENTS) -> list[dict[str, Any]]:
    """Drafts ranked most differently by fewest edits and by ROUGE-L (rank gap as a share of n)."""
    if len(samples) < 2:
        return []
    by_distance = average_ranks([-float(_value(s, "revision_distance")) for s in samples])
    by_rouge = average_ranks([float(_value(s, "rouge")["rougeL"]) for s in samples])
    rows = [
        {
            "id": s.id,
            "distance": float(_value(s, "revision_distance")),
            "rougeL": float(_value(s, "rouge")["rougeL"]),
            "rank_gap": (rd - rr) / len(samples),
        }
        for s, rd, rr in zip(samples, by_distance, by_rouge)
    ]
    rows.sort(key=lambda row: (-abs(row["rank_gap"]), row["id"]))
    return [row for row in rows[:top] if row["rank_gap"] != 0]


def _human_scores(
    samples: Sequence[ScoredSample], values: Sequence[tuple[float, float]]
) -> tuple[list[float], list[float]]:
    """(human score, value) for every text of `samples` with a human score; `values` are (chosen, rejected)."""
    humans, paired = [], []
    for sample, pair in zip(samples, values):
        for which, value in zip(("chosen", "rejected"), pair):
            human = sample.metadata.get(f"{which}_score")
            if isinstance(human, (int, float)) and not isinstance(human, bool):
                humans.append(float(human))
                paired.append(value)
    return humans, paired


def _rouge_pairs(samples: Sequence[ScoredSample], scored: Sequence[ScoredSample]) -> dict[str, Any]:
    """Per ROUGE variant: agreement with the preference (chosen scores higher) on the pairs the distance
    scored and on every pair, and Spearman's ρ with the human scores on the texts the distance scored."""
    have = [s for s in samples if s.status == "ok" and isinstance(_value(s, "rouge_chosen"), dict)]
    same = [s for s in scored if isinstance(_value(s, "rouge_chosen"), dict)]
    if not have:
        return {}

    def negated(group: Sequence[ScoredSample], name: str) -> list[tuple[float, float]]:
        return [(-float(_value(s, "rouge_chosen")[name]), -float(_value(s, "rouge_rejected")[name])) for s in group]

    out = {}
    for name in ROUGE_TYPES:
        humans, values = _human_scores(same, [(-c, -r) for c, r in negated(same, name)])
        rho, rho_ci = _spearman(humans, values)
        out[name] = {
            "scored_pairs": asdict(summarise_pairs(negated(same, name))),
            "all_pairs": asdict(summarise_pairs(negated(have, name))),
            "spearman_human": rho,
            "spearman_human_ci": rho_ci,
            "human_scored_texts": len(humans),
        }
    return out


def aggregate_pairs(samples: Sequence[ScoredSample], weighting: str = "none") -> dict[str, Any]:
    scored, unscored, failed = _unscored(samples, "pair_agree")
    outcomes = [(float(_value(s, "distance_chosen")), float(_value(s, "distance_rejected"))) for s in scored]
    humans, values = _human_scores(scored, [(-c, -r) for c, r in outcomes])
    rho, rho_ci = _spearman(humans, values)
    paper_rho, paper_ci = distance_vs_human(rho, rho_ci)
    chosen, rejected = [c for c, _ in outcomes], [r for _, r in outcomes]
    result = {
        "mode": "pairs",
        "weighting": weighting,
        "scored": len(scored),
        "unscored": unscored,
        "failed": failed,
        **asdict(summarise_pairs(outcomes)),
        "mean_distance_chosen": mean(chosen),
        "mean_distance_chosen_ci": mean_ci(chosen),
        "mean_distance_rejected": mean(rejected),
        "mean_distance_rejected_ci": mean_ci(rejected),
        "spearman_human_vs_neg_distance": rho,
        "spearman_human_vs_neg_distance_ci": rho_ci,
        # the paper's convention (its R = -0.38): distance against human score
        "spearman_distance_vs_human": paper_rho,
        "spearman_distance_vs_human_ci": paper_ci,
        "human_scored_texts": len(humans),
        "points": [[s.id, c, r] for s, (c, r) in zip(scored, outcomes)],
    }
    if weighting != "none":
        pairs = [(float(_value(s, "weighted_chosen")), float(_value(s, "weighted_rejected"))) for s in scored]
        weighted_chosen, weighted_rejected = [c for c, _ in pairs], [r for _, r in pairs]
        result["weighted"] = {
            **asdict(summarise_pairs(pairs)),
            "mean_chosen": mean(weighted_chosen),
            "mean_chosen_ci": mean_ci(weighted_chosen),
            "mean_rejected": mean(weighted_rejected),
            "mean_rejected_ci": mean_ci(weighted_rejected),
        }
    if rouge := _rouge_pairs(samples, scored):
        result["rouge"] = rouge
    return result


def aggregate_stability(
    samples: Sequence[ScoredSample], seed: int, rate: float, skipped: Sequence[str]
) -> dict[str, Any]:
    scored, unscored, failed = _unscored(samples, "stability_abs_change")
    pairs = [(float(_value(s, "distance_original")), float(_value(s, "distance_perturbed"))) for s in scored]
    substitutions = [float(s.metadata.get("substitutions", 0)) for s in scored]
    originals, perturbed = [o for o, _ in pairs], [p for _, p in pairs]
    by_draft: dict[str, list[tuple[float, float]]] = {}
    for sample, pair in zip(scored, pairs):
        by_draft.setdefault(str(sample.metadata.get("draft_id", sample.id)), []).append(pair)
    # the original text's distance: its first scored copy's (the same request each time, cached)
    per_draft = [
        {"draft": draft, **perturbation_spread(items[0][0], [p for _, p in items])} for draft, items in by_draft.items()
    ]
    spreads = [float(d["spread"]) for d in per_draft]
    return {
        "mode": "stability",
        "seed": seed,
        "rate": rate,
        "skipped_unperturbable": list(skipped),
        "drafts_scored": len(per_draft),
        "per_draft": per_draft,
        "mean_perturbations": mean([float(len(d["perturbed"])) for d in per_draft]),
        "mean_spread": mean(spreads),
        "mean_spread_ci": mean_ci(spreads),
        "max_spread": max(spreads, default=None),
        "scored": len(scored),
        "unscored": unscored,
        "failed": failed,
        **asdict(summarise_stability(pairs)),
        "mean_distance_original": mean(originals),
        "mean_distance_original_ci": mean_ci(originals),
        "mean_distance_perturbed": mean(perturbed),
        "mean_distance_perturbed_ci": mean_ci(perturbed),
        "mean_substitutions": mean(substitutions),
        "mean_substitutions_ci": mean_ci(substitutions),
        "points": [[s.id, o, p] for s, (o, p) in zip(scored, pairs)],
    }

"""The revision-distance tasks: drafts (with ROUGE beside), chosen/rejected pairs, and stability.

No candidate model is involved: the texts come from the user's files, the protocol only
hands the draft over, and the `reviser` role does the work inside the scorers (so that
``proseval score RUN --role reviser=…`` re-measures a run with another reviser).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from proseval.benchmarks.revision_distance.aggregate import KEY, aggregate_drafts, aggregate_pairs, aggregate_stability
from proseval.benchmarks.revision_distance.data import read_drafts, read_pairs
from proseval.benchmarks.revision_distance.params import (
    REVISER_SETTINGS,
    RevisionDistanceParams,
    ScoringOptions,
    StabilityParams,
)
from proseval.benchmarks.revision_distance.perturb import perturb
from proseval.benchmarks.revision_distance.prompts import PROMPTS
from proseval.benchmarks.revision_distance.render import plot
from proseval.benchmarks.revision_distance.rouge import require_rouge_score
from proseval.benchmarks.revision_distance.scoring import (
    ROLE,
    ReviserOptions,
    pair_ratings,
    pair_rouge_scorer,
    pair_scorer,
    revision_distance_scorer,
    rouge_scorer,
    stability_scorer,
)
from proseval.kit import GenerateConfig, Sample, State, Task
from proseval.kit.runs import Results, ScoredSample

VERSION = "2"  # 2: prompts on concept/structure/flow, verb-based compound split, CIs
REVISER_CONFIG = GenerateConfig(**REVISER_SETTINGS)


async def hand_over(sample: Sample, ctx: Any) -> State:
    """The protocol: the text to measure is given, not generated."""
    return State(output=sample.target["draft"])


def options_of(params: ScoringOptions) -> ReviserOptions:
    return ReviserOptions(
        setting=params.setting,
        weighting=params.weighting,
        per_words=params.per_words,
        threshold=params.grounding_threshold,
        attempts=params.attempts,
        structured=params.structured,
    )


def _source(path: Path, **more: Any) -> dict[str, Any]:
    return {"source": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), **more}


def _artifacts(results: Results) -> dict[str, str | bytes]:
    data = results.extra.get(KEY)
    png = plot(data) if data else None
    return {f"revision_distance_{data['mode']}.png": png} if png else {}


def _task(
    name: str,
    samples: list[Sample],
    scorers: list[Any],
    source: dict[str, Any],
    aggregate: Any,
    description: str,
    headline: str,
    ratings: Any = None,
) -> Task:
    return Task(
        name=name,
        version=VERSION,
        description=description,
        dataset=lambda: list(samples),
        protocol=hand_over,
        scorers=scorers,
        roles_required=(ROLE,),
        role_configs={ROLE: REVISER_CONFIG},
        dataset_source=source,
        aggregate=aggregate,
        artifacts=_artifacts,
        prompts=dict(PROMPTS),
        rescore_roles=(ROLE,),
        headline=headline,
        ratings=ratings,
    )


def make_task(params: RevisionDistanceParams) -> Task:
    options = options_of(params)
    if params.pairs is not None:
        return _pairs_task(params, options)
    drafts = read_drafts(
        Path(params.drafts or ""), Path(params.refs) if params.refs else None, need_reference=options.needs_reference
    )
    samples = [
        Sample(
            id=d.id,
            input=d.instruction,
            target={"draft": d.draft, "reference": d.reference, "instruction": d.instruction},
            metadata={"has_reference": d.reference is not None},
        )
        for d in drafts
    ]
    scorers: list[Any] = [
        revision_distance_scorer(
            options.setting,
            weighting=options.weighting,
            per_words=options.per_words,
            threshold=options.threshold,
            attempts=options.attempts,
            structured=options.structured,
        )
    ]
    if all(d.reference is not None for d in drafts):
        require_rouge_score()
        scorers.append(rouge_scorer)
    source = _source(
        Path(params.drafts or ""), drafts=len(drafts), **({"refs": _source(Path(params.refs))} if params.refs else {})
    )

    def aggregate(scored: list[ScoredSample]) -> dict[str, Any]:
        return {KEY: aggregate_drafts(scored, options.setting, options.weighting, options.per_words)}

    return _task(
        "revision-distance",
        samples,
        scorers,
        source,
        aggregate,
        f"revision distance of drafts ({options.setting})",
        "revision_distance",
    )


def _pairs_task(params: RevisionDistanceParams, options: ReviserOptions) -> Task:
    pairs = read_pairs(Path(params.pairs or ""), need_reference=options.needs_reference)
    samples = []
    for pair in pairs:
        metadata: dict[str, Any] = {}
        if pair.chosen_score is not None:
            metadata["chosen_score"] = pair.chosen_score
        if pair.rejected_score is not None:
            metadata["rejected_score"] = pair.rejected_score
        samples.append(
            Sample(
                id=pair.id,
                input=pair.instruction,
                metadata=metadata,
                target={
                    "draft": pair.chosen,
                    "rejected": pair.rejected,
                    "reference": pair.reference,
                    "instruction": pair.instruction,
                },
            )
        )

    scorers: list[Any] = [pair_scorer(options)]
    if all(pair.reference is not None for pair in pairs):  # ROUGE of both texts, for the alignment comparison
        require_rouge_score()
        scorers.append(pair_rouge_scorer)

    def aggregate(scored: list[ScoredSample]) -> dict[str, Any]:
        return {KEY: aggregate_pairs(scored, options.weighting)}

    # The reviser's preference per pair is its verdict (scoring.pair_ratings). The drafts mode and the
    # stability check declare none: an edit count has no upper bound to put on a rating scale.
    return _task(
        "revision-distance",
        samples,
        scorers,
        _source(Path(params.pairs or ""), pairs=len(pairs)),
        aggregate,
        f"revision distance of chosen/rejected pairs ({options.setting})",
        "pair_agree",
        ratings=pair_ratings(ROLE),
    )


def make_stability_task(params: StabilityParams) -> Task:
    options = options_of(params)
    drafts = read_drafts(
        Path(params.drafts), Path(params.refs) if params.refs else None, need_reference=options.needs_reference
    )
    samples, skipped = [], []
    for d in drafts:
        # App. H: each text perturbed several ways (seeds seed .. seed + variants - 1); a copy equal to an
        # earlier one is not asked twice
        texts: list[str] = []
        for j in range(params.variants):
            changed = perturb(d.draft, seed=params.perturb_seed + j, rate=params.rate, key=d.id)
            if not changed.substitutions or changed.text in texts:
                continue
            texts.append(changed.text)
            sample_id = d.id if params.variants == 1 else f"{d.id}/p{j + 1}"
            samples.append(
                Sample(
                    id=sample_id,
                    input=d.instruction,
                    metadata={"substitutions": len(changed.substitutions), "draft_id": d.id, "variant": j + 1},
                    target={
                        "draft": d.draft,
                        "perturbed": changed.text,
                        "reference": d.reference,
                        "instruction": d.instruction,
                        "substituted": [list(pair) for pair in changed.substitutions],
                    },
                )
            )
        if not texts:
            skipped.append(d.id)
    if not samples:
        raise ValueError(f"{params.drafts}: no draft has a word the perturber can substitute")

    def aggregate(scored: list[ScoredSample]) -> dict[str, Any]:
        return {KEY: aggregate_stability(scored, params.perturb_seed, params.rate, skipped)}

    source = _source(Path(params.drafts), drafts=len(drafts), perturbed=len(samples), skipped=skipped)
    return _task(
        "revision-distance-stability",
        samples,
        [stability_scorer(options)],
        source,
        aggregate,
        "revision distance before and after seeded word substitutions",
        "stability_abs_change",
    )

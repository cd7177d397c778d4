"""Revision Distance: the number of edits a user-like reviser model would make to a draft (lower is better).

Importing this module registers the tasks ``revision-distance`` (drafts, or chosen/rejected
pairs) and ``revision-distance-stability``, and the command group ``proseval revision-distance``.
The scorer factory `revision_distance_scorer` measures any run's outputs.
"""

from typing import Any

from proseval import kit
from proseval.benchmarks.revision_distance.params import REVISER_SETTINGS, RevisionDistanceParams, StabilityParams

__all__ = ["revision_distance_scorer"]


def __getattr__(name: str) -> Any:
    """`revision_distance_scorer`, imported on first use: registering the tasks stays light."""
    if name == "revision_distance_scorer":
        from proseval.benchmarks.revision_distance import scoring

        return scoring.revision_distance_scorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@kit.task(
    "revision-distance",
    summary="Revision Distance: edits a reviser model would make to your drafts (or chosen/rejected pairs); "
    "ROUGE beside it",
    metrics="proseval.benchmarks.revision_distance.definitions:DRAFTS_AND_PAIRS",
    params=RevisionDistanceParams,
    labelling="proseval.benchmarks.revision_distance.labelling:label_form",
    render="proseval.benchmarks.revision_distance.render:render",
    views="proseval.benchmarks.revision_distance.views:sample_views",
    prompts="proseval.benchmarks.revision_distance.prompts:PROMPTS",
)
def revision_distance(params: RevisionDistanceParams):
    from proseval.benchmarks.revision_distance.task import make_task

    return make_task(params)


@kit.task(
    "revision-distance-stability",
    summary="how far Revision Distance moves under small seeded, meaning-preserving word substitutions "
    "(see: proseval revision-distance stability)",
    metrics="proseval.benchmarks.revision_distance.definitions:STABILITY",
    params=StabilityParams,
    render="proseval.benchmarks.revision_distance.render:render",
    views="proseval.benchmarks.revision_distance.views:sample_views",
    prompts="proseval.benchmarks.revision_distance.prompts:PROMPTS",
)
def revision_distance_stability(params: StabilityParams):
    from proseval.benchmarks.revision_distance.task import make_stability_task

    return make_stability_task(params)


kit.command_group(
    "revision-distance",
    "proseval.benchmarks.revision_distance.cli:app",
    summary="Revision Distance tools: the stability check, the perturber, drafts from a run.",
)

# Any run's stored answers can be measured: proseval score RUN --scorer revision-distance --role reviser=...
kit.scorer_plugin(
    "revision-distance",
    summary="edits a reviser model would make to each stored answer (options: setting=general|knowledge|"
    "reference-free, weighting=none|level|size, per_words=N, attempts=N)",
    roles=("reviser",),
    factory="proseval.benchmarks.revision_distance.scoring:revision_distance_scorer",
    prompts="proseval.benchmarks.revision_distance.prompts:PROMPTS",
    role_configs={"reviser": dict(REVISER_SETTINGS)},
    views="proseval.benchmarks.revision_distance.views:sample_views",
)
kit.doctor_check(
    "revision-distance",
    lambda: [kit.doctor.extra_check("extra revision-distance", "revision-distance", ("rouge_score",))],
)

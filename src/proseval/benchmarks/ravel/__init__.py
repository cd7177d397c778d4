"""RAVEL: an agentic writing environment. A policy (the model under test) outlines, drafts,
reviews and refines a text through tool models, on C3EBench's End2End topics; scored by
trajectory metrics and the C3EBench End2End judge."""

from proseval import kit
from proseval.benchmarks.ravel.params import RavelParams


@kit.task(
    "ravel",
    summary="RAVEL: agentic writing (outline/draft/review/refine/finish) on C3EBench End2End topics; "
    "success S, efficiency, refinement density and delta, ERR, judge score",
    metrics="proseval.benchmarks.ravel.metrics:DEFINITIONS",
    params=RavelParams,
    labelling="proseval.benchmarks.ravel.labelling:label_form",
    render="proseval.benchmarks.ravel.task:render",
    views="proseval.benchmarks.ravel.views:sample_views",
    prompts="proseval.benchmarks.ravel.prompts:PROMPTS",
    presets="proseval.benchmarks.ravel.presets:PRESETS",
)
def ravel(params: RavelParams):
    from proseval.benchmarks.ravel.task import make_task

    return make_task(params)


kit.command_group(
    "ravel",
    "proseval.benchmarks.ravel.cli:app",
    summary="RAVEL: show an episode step by step; plot several runs (one series per model).",
)

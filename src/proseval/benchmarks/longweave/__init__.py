"""LongWeave: 7 generated, verifiable long-writing tasks at 1k-8k words."""

from proseval import kit
from proseval.benchmarks.longweave.params import LongWeaveParams


@kit.task(
    "longweave",
    summary="LongWeave: 7 generated, verifiable long-writing tasks at 1k/2k/4k/8k words",
    metrics="proseval.benchmarks.longweave.definitions:METRICS",
    params=LongWeaveParams,
    render="proseval.benchmarks.longweave.render:render",
    labelling="proseval.benchmarks.longweave.labelling:label_form",
    prompts="proseval.benchmarks.longweave.judging.prompts:PROMPTS",
    presets="proseval.benchmarks.longweave.presets:PRESETS",
)
def longweave(params: LongWeaveParams):
    from proseval.benchmarks.longweave.task import make_task

    return make_task(params)


kit.generate_command("longweave", "proseval.benchmarks.longweave.cli:generate")
kit.doctor_check("longweave", "proseval.benchmarks.longweave.doctor:checks")

"""Meeseeks: multi-constraint instruction following with feedback rounds."""

from proseval import kit
from proseval.benchmarks.meeseeks.params import MeeseeksParams


@kit.task(
    "meeseeks",
    summary="Meeseeks: multi-constraint instruction following; rule checks + Yes/No judge, "
    "feedback over up to 20 rounds",
    metrics="proseval.benchmarks.meeseeks.definitions:METRICS",
    params=MeeseeksParams,
    render="proseval.benchmarks.meeseeks.render:render",
    views="proseval.benchmarks.meeseeks.views:sample_views",
    labelling="proseval.benchmarks.meeseeks.labelling:label_form",
    prompts="proseval.benchmarks.meeseeks.prompts:PROMPTS",
    presets="proseval.benchmarks.meeseeks.presets:PRESETS",
)
def meeseeks(params: MeeseeksParams):
    from proseval.benchmarks.meeseeks.task import make_task

    return make_task(params)


kit.command_group(
    "meeseeks",
    "proseval.benchmarks.meeseeks.cli:app",
    summary="Meeseeks tools: download the data, rule coverage, items from a template.",
)
kit.generate_command("meeseeks", "proseval.benchmarks.meeseeks.cli:generate")
kit.doctor_check("meeseeks", "proseval.benchmarks.meeseeks.doctor:checks")

"""Meeseeks: multi-constraint instruction following with feedback rounds."""

from importlib import import_module

from proseval import registry
from proseval.benchmarks.meeseeks.params import MeeseeksParams


@registry.task(
    "meeseeks",
    summary="Meeseeks: multi-constraint instruction following; rule checks + Yes/No judge, "
    "feedback over up to 20 rounds",
    params=MeeseeksParams,
    render="proseval.benchmarks.meeseeks.render:render",
    prompts="proseval.benchmarks.meeseeks.prompts:PROMPTS",
    presets="proseval.benchmarks.meeseeks.presets:PRESETS",
)
def meeseeks(params: MeeseeksParams):
    from proseval.benchmarks.meeseeks.task import make_task

    return make_task(params)


registry.command_group("meeseeks", lambda: import_module("proseval.benchmarks.meeseeks.cli").app)
registry.generate_command("meeseeks", lambda: import_module("proseval.benchmarks.meeseeks.cli").generate)

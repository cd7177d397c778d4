"""Meeseeks: multi-constraint instruction following with feedback rounds."""

from importlib import import_module

from proseval.benchmarks.meeseeks.params import MeeseeksParams
from proseval.registry import command_group, generate_command, task


@task("meeseeks", summary="Meeseeks: multi-constraint instruction following; rule checks + Yes/No judge, "
      "feedback over up to 20 rounds", params=MeeseeksParams, render="proseval.benchmarks.meeseeks.render:render")
def meeseeks(params: MeeseeksParams):
    from proseval.benchmarks.meeseeks.task import make_task

    return make_task(params)


command_group("meeseeks", lambda: import_module("proseval.benchmarks.meeseeks.cli").app)
generate_command("meeseeks", lambda: import_module("proseval.benchmarks.meeseeks.cli").generate)

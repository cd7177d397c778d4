"""Re-scoring: the candidate outputs stored in a run, judged again with the roles bound now."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import datetime

from ..core.context import Context
from ..core.sample import Sample
from ..core.state import State
from ..core.task import Task
from ..models.base import ModelError
from .options import RunOptions
from .plan import SamplePlan
from .provenance import build_header
from .records import Results, RoleBinding
from .roles import RoleError
from .runlog import RunExistsError, RunFolder
from .runner import Runner, seeded_config


def replay_task(task: Task, source: RunFolder) -> Task:
    """The task with its protocol replaced by the candidate outputs stored in `source`.

    Where the task redoes judge-dependent steps of its protocol (`Task.reevaluate`), the stored
    state goes through it with the roles bound now; otherwise the stored state is scored again.
    """
    states: dict[tuple[str, int], State] = {}
    samples: dict[str, Sample] = {}
    for record in source.iter_records():
        samples.setdefault(
            record.id, Sample(id=record.id, input=record.input, target=record.target, metadata=record.metadata)
        )
        if record.state is not None:
            states[(record.id, record.epoch)] = record.state

    async def replay(sample: Sample, ctx: Context) -> State:
        state = states.get((sample.id, ctx.epoch))
        if state is None:
            raise ModelError("the candidate failed on this sample in the source run; nothing to score")
        return await task.reevaluate(sample, state, ctx) if task.reevaluate else state

    return replace(
        task,
        protocol=replay,
        dataset=lambda: list(samples.values()),
        roles_required=tuple(r for r in task.roles_required if r != "candidate"),
    )


def rebindable_roles(task: Task) -> tuple[str, ...]:
    """The roles whose work a re-score of `task` redoes on stored answers (never the candidate)."""
    return task.rescore_roles or tuple(r for r in task.roles_required if r != "candidate")


def check_rescore_roles(task: Task, bindings: dict[str, RoleBinding]) -> None:
    """A re-score binds only roles whose work it redoes: never the candidate."""
    allowed = rebindable_roles(task)
    refused = sorted(set(bindings) - set(allowed))
    if refused:
        raise RoleError(
            f"a re-score of {task.name} redoes the work of {', '.join(allowed) or 'no role'} on the "
            f"stored answers; it cannot rebind {', '.join(refused)} (start a new run for that)"
        )


async def rescore_run(
    source: RunFolder, task: Task, bindings: dict[str, RoleBinding], options: RunOptions
) -> tuple[RunFolder, Results]:
    """Recompute scores from the outputs stored in `source` with new role bindings."""
    check_rescore_roles(task, bindings)
    header = source.read_header()
    replayed = replay_task(task, source)
    # Only the roles the re-score calls; the candidate's answers come from the source run.
    # A judge bound now gets the run's seed, as the run's own roles did (unless it has its own).
    merged = {role: seeded_config({**header.roles, **bindings}[role], header.seed) for role in replayed.roles_required}
    plan = SamplePlan(replayed, None)
    run_id = f"{header.run_id}-rescore-{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
    if options.repeat:
        run_id += f"-r{options.repeat}"
    folder = RunFolder(options.out_dir / run_id)
    if folder.exists():
        raise RunExistsError(f"{folder.path} already holds a run")
    options = replace(options, seed=header.seed, epochs=header.epochs, limit=None)
    runner = Runner(replayed, merged, folder, options)
    try:
        with folder.made():  # a folder that cannot be made refuses the re-score; removed again if a key is missing
            runner.build_roles(replayed.roles_required)
            await runner.preflight()
        with folder.locked():
            folder.write_header(
                build_header(
                    task,
                    runner.bindings,
                    options,
                    run_id,
                    demo=header.demo_models,
                    rescored_from=str(source.path),
                    n_samples=plan.count,
                )
            )
            folder.write_prompts(task.prompts)
            return folder, await runner.execute(plan, set(), replayed.roles_required)
    finally:
        await runner.close()

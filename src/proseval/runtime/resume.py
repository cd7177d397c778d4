"""Continuing a run where it stopped, once its configuration is checked against the one it started with."""

from __future__ import annotations

import sys
from dataclasses import replace

from ..core.task import Task
from ..errors import UsageError
from .options import RunOptions
from .plan import SamplePlan, check_run_size
from .provenance import config_hash, prompt_infos
from .records import Results, ResumeEvent, RoleBinding, RunHeader
from .runlog import RunFolder, now_iso
from .runner import Runner, seeded_config
from .secrets import REDACTED


class ConfigMismatchError(UsageError):
    """A resume whose task, parameters or role bindings differ from the run's (without --force)."""


def _differences(header: RunHeader, task: Task, bindings: dict[str, RoleBinding]) -> list[str]:
    found = []
    if header.task != task.name or header.task_version != task.version:
        found.append(f"task {header.task}@{header.task_version} -> {task.name}@{task.version}")
    changed = sorted(
        k for k in set(header.task_params) | set(task.params) if header.task_params.get(k) != task.params.get(k)
    )
    found += [f"--{k.replace('_', '-')}: {header.task_params.get(k)!r} -> {task.params.get(k)!r}" for k in changed]
    for role in sorted(set(header.roles) | set(bindings)):
        before, after = header.roles.get(role), bindings.get(role)
        if before is None or after is None:
            found.append(f"role {role}: {'added' if before is None else 'removed'}")
        elif (before.spec, sorted(before.base_urls), before.config) != (
            after.spec,
            sorted(after.base_urls),
            after.config,
        ):
            found.append(
                f"role {role}: {before.spec} -> {after.spec}"
                if before.spec != after.spec
                else f"role {role}: endpoint or generation settings changed"
            )
    return found


def configuration_changes(header: RunHeader, task: Task, bindings: dict[str, RoleBinding]) -> list[str]:
    """What differs between a run's configuration and `task` with `bindings` (unseeded, as planned):
    empty when a resume with them would continue the same experiment (the config hash matches)."""
    wanted = {r: seeded_config(b, header.seed) for r, b in bindings.items()}
    if config_hash(task, wanted, header.seed, header.epochs) == header.config_hash:
        return []
    return _differences(header, task, wanted) or [
        "a prompt file (prompts/ in the run folder) or a setting recorded only in the config hash"
    ]


def check_resume(
    folder: RunFolder, task: Task, options: RunOptions, bindings: dict[str, RoleBinding] | None = None
) -> RunHeader:
    """The run's header as this resume will record it; writes nothing.

    Refuses to continue a run with another task, even forced; one whose parameters or role
    bindings changed, unless forced; and one whose endpoints had credentials in their URL. `bindings` are the roles the user
    asked for now (None: continue with the run's own); with `force`, a changed configuration
    is adopted and recorded in the header's resume events.
    """
    header = folder.read_header()
    if task.name != header.task:  # another task's samples cannot join this run's records, forced or not
        raise ConfigMismatchError(
            f"{folder.path}: this folder holds a {header.task} run; a {task.name} run cannot continue it "
            f"(--force changes settings, never the task): start a new run, e.g. proseval run {task.name}"
        )
    wanted = header.roles if bindings is None else {r: seeded_config(b, header.seed) for r, b in bindings.items()}
    expected = config_hash(task, wanted, header.seed, header.epochs)
    forced = expected != header.config_hash
    if forced and not options.force:
        changes = _differences(header, task, wanted) or [f"config hash {header.config_hash} -> {expected}"]
        raise ConfigMismatchError(
            f"{folder.path}: the run was started with another configuration ({'; '.join(changes)}); "
            "pass --force to continue with the new one"
        )
    if forced:
        header.roles, header.task_params = wanted, task.params
        header.prompts = prompt_infos(task)
    hidden = [role for role, b in header.roles.items() if any(REDACTED in u for u in b.base_urls)]
    if hidden:
        raise ConfigMismatchError(
            f"{folder.path}: the endpoint of role(s) {', '.join(hidden)} had credentials in its URL, which "
            "are never stored; put the key in an environment variable and start a new run"
        )
    header.resumes.append(ResumeEvent(at=now_iso(), forced=forced, config_hash=expected))
    header.config_hash = expected
    return header


async def resume_run(
    folder: RunFolder, task: Task, options: RunOptions, bindings: dict[str, RoleBinding] | None = None
) -> Results:
    """Run only the samples without a finished record (failed ones too with `retry_failed`).

    The configuration is checked, the dataset read and every role's model built before the
    folder is changed.
    """
    folder.read_header()  # not a run folder: refused before a lock file is made in it
    with folder.locked() as stale:
        if stale:
            print(f"note: {folder.path}: {stale}; continuing", file=sys.stderr)
        header = check_resume(folder, task, options, bindings)
        # batch mode: the roles asked for now, else the run's own (its recorded batches are followed)
        header.batch = list(options.batch_roles or header.batch)
        options = replace(
            options,
            seed=header.seed,
            epochs=header.epochs,
            repeat=header.repeat,
            limit=options.limit if options.limit is not None else header.limit,
            batch_roles=tuple(header.batch),
        )
        plan = SamplePlan(task, options.limit)
        check_run_size(plan.count, options.epochs)
        runner = Runner(task, header.roles, folder, options)
        try:
            runner.build_roles(tuple(header.roles))
            await runner.preflight()
            if header.resumes[-1].forced:
                folder.write_prompts(task.prompts)
            folder.write_header(header)
            folder.repair_tail()
            if options.retry_failed:  # failed samples and failed scores; a context overflow would fail again
                failed = {(s.id, s.epoch) for s in folder.iter_scored() if s.needs_retry}
                folder.drop_records(failed)
            return await runner.execute(plan, folder.finished_keys(), tuple(header.roles))
        finally:
            await runner.close()

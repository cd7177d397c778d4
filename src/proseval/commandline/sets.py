"""Building an evaluation set's members before anything runs: each (task entry, model) pair's
task (options, preset, prompt files), role bindings and samples, every problem named with the
set file's line (the file's schema and running the members: `runtime.sets`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.preset import preset_params
from ..core.task import Task
from ..core.yamlfile import compose, line_of, read_utf8
from ..errors import DataError, ProsevalError, UsageError
from ..planning import Plan, plan
from ..registry import get_entry, get_task
from ..runtime.batch import batch_problem
from ..runtime.limits import EndpointLimits
from ..runtime.options import RunOptions
from ..runtime.plan import SamplePlan, check_run_size
from ..runtime.records import RoleBinding
from ..runtime.roles import RoleRequest
from ..runtime.sets import (
    DEFAULT_MAX_RUNS,
    Member,
    SetFile,
    SetModel,
    SetPlan,
    SetTask,
    explicit_concurrency,
    load_set,
    member_name,
    member_request,
)

PLAN_ERRORS = (ProsevalError, KeyError, ValueError, TypeError)  # what building a task or its plan may raise


def _code(exc: BaseException, default: int = 2) -> int:
    """The exit status an error asks for: a ProsevalError's own; a task's plain check of its options, 2."""
    return exc.exit_code if isinstance(exc, ProsevalError) else default


def _message(exc: BaseException) -> str:
    """An error's text without the quotes a KeyError puts around it."""
    return str(exc).strip(chr(39) + chr(34))


@dataclass
class _Problems:
    """The problems found in a set file, each once with the models it was found with."""

    found: dict[str, list[str]] = field(default_factory=dict)  # message -> the models it was found with
    codes: set[int] = field(default_factory=set)  # each one's exit status (2: the file must change; 1: the environment)

    def add(self, message: str, model: str | None = None, code: int = 2) -> None:
        self.found.setdefault(message, [])
        self.codes.add(code)
        if model is not None:
            self.found[message].append(model)

    def raise_any(self, n_models: int) -> None:
        """One error naming every problem (the models of one found with only some): `UsageError` when
        any asks for a change to the file, else `DataError`."""
        if not self.found:
            return
        lines = [
            message + (f" (models: {', '.join(models)})" if models and len(models) < n_models else "")
            for message, models in self.found.items()
        ]
        text = lines[0] if len(lines) == 1 else "the set file has problems:\n  " + "\n  ".join(lines)
        raise UsageError(text) if 2 in self.codes else DataError(text)


def _locator(path: Path) -> Callable[..., str]:
    """`where(*keys)`: the set file and the line of its node at those keys (the file alone when unknown)."""
    _, node = compose(read_utf8(path), path)

    def where(*loc: Any) -> str:
        line = line_of(node, loc)
        return f"{path}:{line}" if line else str(path)

    return where


@dataclass
class _Reading:
    """What building the members of one set file shares: the file, where its nodes stand, the endpoint
    limits, and what was found so far (problems, warnings, the member folder names taken)."""

    file: SetFile
    base: Path  # the set file's folder: prompt files are relative to it
    folder: Path  # the set folder
    where: Callable[..., str]
    limits: EndpointLimits
    problems: _Problems = field(default_factory=_Problems)
    warnings: list[str] = field(default_factory=list)
    taken: dict[str, str] = field(default_factory=dict)  # member folder name, lower-cased -> the pair that has it

    def claim(self, t: int, name: str, label: str) -> bool:
        """Take the member folder `name` for the pair `label`; False (a problem) when another pair has it."""
        clash = self.taken.get(name.lower())
        if clash is not None:
            self.problems.add(
                f"{self.where('tasks', t)}: {label} and {clash} would share the run folder {name}: "
                "give one of the task entries or models a name: of its own"
            )
            return False
        self.taken[name.lower()] = label
        return True

    def add_warnings(self, warnings: list[str]) -> None:
        self.warnings += [w for w in warnings if w not in self.warnings]


def _task_shape(entry: SetTask) -> Task:
    """The entry's task built once without roles: which roles and prompts it has (defaults are
    applied to those only). Raises the registry's errors for an unknown task, preset or option."""
    chosen = get_entry(entry.task).preset(entry.preset) if entry.preset else None
    return get_task(entry.task, preset_params(chosen, entry.params) if chosen else entry.params)


def _prompt_files(file: SetFile, entry: SetTask, shape: Task, base: Path) -> dict[str, Path]:
    """The entry's prompt files: the set's defaults for the prompts its task has, then the entry's own."""
    names = set(shape.prompts)
    prompts = {name: base / file_name for name, file_name in file.prompt.items() if name in names}
    prompts.update({name: base / file_name for name, file_name in entry.prompt.items()})
    return prompts


def _absent_prompts(prompts: Mapping[str, Path]) -> list[str]:
    return [
        f"prompt {name}: no such file {prompt_path}"
        for name, prompt_path in prompts.items()
        if not prompt_path.is_file()
    ]


def _run_size(file: SetFile, entry: SetTask) -> tuple[int | None, int, int | None]:
    """The entry's limit, epochs and seed: its own, else the set's defaults."""
    limit = entry.limit if entry.limit is not None else file.limit
    seed = entry.seed if entry.seed is not None else file.seed
    return limit, entry.epochs or file.epochs or 1, seed


def _limited_bindings(
    bindings: Mapping[str, RoleBinding], request: RoleRequest, limits: EndpointLimits
) -> dict[str, RoleBinding]:
    """The bindings with an endpoint's limit as the concurrency of each role not given one explicitly."""
    limited = dict(bindings)
    for role, binding in limited.items():
        limit_here = limits.limit_for(binding)
        if limit_here is not None and not explicit_concurrency(request, role):
            limited[role] = binding.model_copy(update={"concurrency": limit_here})
    return limited


def _batch_roles(file: SetFile, entry: SetTask, bindings: Mapping[str, RoleBinding]) -> tuple[str, ...]:
    """The roles in batch mode: the entry's, else the set's defaults for the roles this task has."""
    return tuple(entry.batch) if entry.batch else tuple(r for r in file.batch if r in bindings)


def _sample_plan(reading: _Reading, prefix: str, planned: Plan, limit: int | None, epochs: int) -> SamplePlan | None:
    """The samples an entry runs (its dataset read once), or None with the problem noted."""
    try:
        sample_plan = SamplePlan(planned.task, limit)
    except (*PLAN_ERRORS, OSError) as exc:
        reading.problems.add(f"{prefix}: its dataset: {exc}", code=_code(exc, 1))
        return None
    try:
        check_run_size(sample_plan.count, epochs)
    except UsageError as exc:
        reading.problems.add(f"{prefix}: {exc}")
        return None
    return sample_plan


def _entry_prompts(reading: _Reading, prefix: str, entry: SetTask) -> tuple[Task, dict[str, Path]] | None:
    """The entry's task shape and prompt files, or None with the problem noted."""
    try:
        shape = _task_shape(entry)
    except PLAN_ERRORS as exc:
        reading.problems.add(f"{prefix}: {_message(exc)}", code=_code(exc))
        return None
    prompts = _prompt_files(reading.file, entry, shape, reading.base)
    absent = _absent_prompts(prompts)
    if absent:
        reading.problems.add(f"{prefix}: {'; '.join(absent)}")
        return None
    return shape, prompts


def _planned(
    reading: _Reading, prefix: str, entry: SetTask, model: SetModel, request: RoleRequest, prompts: dict[str, Path]
) -> Plan | None:
    """The pair's task and bindings planned, or None with the problem noted."""
    try:
        return plan(entry.task, request, params=entry.params, prompts=prompts or None, preset=entry.preset)
    except PLAN_ERRORS as exc:
        reading.problems.add(f"{prefix}: {_message(exc)}", model.label(), _code(exc))
        return None


def _entry_members(reading: _Reading, t: int, entry: SetTask) -> list[Member]:
    """The members of one task entry, one for each model; the problems found are noted instead."""
    prefix = f"{reading.where('tasks', t)}: tasks.{t} ({entry.label()})"
    found = _entry_prompts(reading, prefix, entry)
    if found is None:
        return []
    shape, prompts = found
    roles = (*shape.roles_required, *shape.optional_roles)
    limit, epochs, seed = _run_size(reading.file, entry)
    members: list[Member] = []
    sample_plan: SamplePlan | None = None
    for m, model in enumerate(reading.file.models):
        name = member_name(entry.label(), model.label())
        if not reading.claim(t, name, f"tasks.{t} ({entry.label()}) with models.{m} ({model.label()})"):
            continue
        request = member_request(reading.file, entry, model, roles)
        planned = _planned(reading, prefix, entry, model, request, prompts)
        if planned is None:
            continue
        bindings = _limited_bindings(planned.bindings, request, reading.limits)
        reading.add_warnings(planned.warnings)
        if sample_plan is None:
            sample_plan = _sample_plan(reading, prefix, planned, limit, epochs)
            if sample_plan is None:
                break
        batch = _batch_roles(reading.file, entry, bindings)
        trouble = batch_problem(bindings, batch, where="batch:")
        if trouble:
            reading.problems.add(f"{prefix}: {trouble}", model.label())
            continue
        keys = {(sample_id, epoch) for sample_id in sample_plan.ids for epoch in range(epochs)}
        members.append(
            Member(
                t,
                m,
                entry.label(),
                model.label(),
                name,
                reading.folder / name,
                planned.task,
                bindings,
                planned.demo,
                limit,
                epochs,
                seed,
                keys,
                sample_plan.count,
                batch=batch,
            )
        )
    return members


def _unused_limits(reading: _Reading, members: list[Member]) -> list[str]:
    """A warning for each endpoint limit that no member's role binds."""
    used = {key for member in members for b in member.bindings.values() for key in reading.limits.keys_for(b)}
    return [
        f"{reading.where('endpoints', key)}: endpoint limit {key} names no endpoint of the set's roles"
        for key in reading.limits.slots
        if key not in used
    ]


def plan_set(
    path: Path,
    *,
    max_runs: int | None = None,
    use_cache: bool | None = None,
    report: bool | None = None,
    probe: bool = True,
) -> SetPlan:
    """Read the set file and build every member: its task (options, preset, prompt files), role
    bindings and sample plan. Raises `ConfigFileError` / `UsageError` naming the file and line of
    every problem found; nothing is sent or written. `probe`: each member's remote bindings are
    probed before it starts (`runtime.probe`; a binding shared by members, once)."""
    path = Path(path)
    file = load_set(path)
    base = path.parent
    reading = _Reading(
        file,
        base,
        (base / file.folder) if file.folder else base / path.stem,
        _locator(path),
        EndpointLimits(dict(file.endpoints)),
    )
    members = [member for t, entry in enumerate(file.tasks) for member in _entry_members(reading, t, entry)]
    reading.problems.raise_any(len(file.models))
    return SetPlan(
        path=path,
        file=file,
        folder=reading.folder,
        members=members,
        warnings=reading.warnings + _unused_limits(reading, members),
        endpoints=dict(file.endpoints),
        max_runs=max_runs or file.max_runs or DEFAULT_MAX_RUNS,
        use_cache=use_cache if use_cache is not None else not (file.no_cache or False),
        max_attempts=file.max_attempts or RunOptions.max_attempts,
        report=report if report is not None else file.report,
        probe=probe,
    )

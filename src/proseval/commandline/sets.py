"""Building an evaluation set's members before anything runs: each (task entry, model) pair's
task (options, preset, prompt files), role bindings and samples, every problem named with the
set file's line (the file's schema and running the members: `runtime.sets`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.preset import preset_params
from ..core.task import Task
from ..core.yamlfile import compose, line_of, read_utf8
from ..errors import DataError, ProsevalError, UsageError
from ..planning import plan
from ..registry import get_entry, get_task
from ..runtime.batch import batch_problem
from ..runtime.limits import EndpointLimits
from ..runtime.options import RunOptions
from ..runtime.plan import SamplePlan, check_run_size
from ..runtime.sets import (
    DEFAULT_MAX_RUNS,
    Member,
    SetPlan,
    SetTask,
    explicit_concurrency,
    load_set,
    member_name,
    member_request,
)


def _code(exc: BaseException, default: int = 2) -> int:
    """The exit status an error asks for: a ProsevalError's own; a task's plain check of its options, 2."""
    return exc.exit_code if isinstance(exc, ProsevalError) else default


def _task_shape(entry: SetTask) -> Task:
    """The entry's task built once without roles: which roles and prompts it has (defaults are
    applied to those only). Raises the registry's errors for an unknown task, preset or option."""
    chosen = get_entry(entry.task).preset(entry.preset) if entry.preset else None
    return get_task(entry.task, preset_params(chosen, entry.params) if chosen else entry.params)


def plan_set(path: Path, *, max_runs: int | None = None, use_cache: bool | None = None,
             report: bool | None = None) -> SetPlan:
    """Read the set file and build every member: its task (options, preset, prompt files), role
    bindings and sample plan. Raises `ConfigFileError` / `UsageError` naming the file and line of
    every problem found; nothing is sent or written."""
    path = Path(path)
    file = load_set(path)
    _, node = compose(read_utf8(path), path)
    base = path.parent

    def where(*loc: Any) -> str:
        line = line_of(node, loc)
        return f"{path}:{line}" if line else str(path)

    problems: dict[str, list[str]] = {}  # message -> the models it was found with
    codes: set[int] = set()  # the exit status of each problem (2: the file must change; 1: the environment)

    def problem(message: str, model: str | None = None, code: int = 2) -> None:
        problems.setdefault(message, [])
        codes.add(code)
        if model is not None:
            problems[message].append(model)

    limits = EndpointLimits(dict(file.endpoints))
    folder = (base / file.folder) if file.folder else base / path.stem
    members: list[Member] = []
    warnings: list[str] = []
    seen: dict[str, str] = {}
    for t, entry in enumerate(file.tasks):
        prefix = f"{where('tasks', t)}: tasks.{t} ({entry.label()})"
        try:
            shape = _task_shape(entry)
        except (ProsevalError, KeyError, ValueError, TypeError) as exc:
            problem(f"{prefix}: {str(exc).strip(chr(39) + chr(34))}", code=_code(exc))
            continue
        roles = (*shape.roles_required, *shape.optional_roles)
        prompt_names = set(shape.prompts)
        prompts = {name: base / file_name for name, file_name in file.prompt.items() if name in prompt_names}
        prompts.update({name: base / file_name for name, file_name in entry.prompt.items()})
        absent = [f"prompt {name}: no such file {prompt_path}" for name, prompt_path in prompts.items()
                  if not prompt_path.is_file()]
        if absent:
            problem(f"{prefix}: {'; '.join(absent)}")
            continue
        limit = entry.limit if entry.limit is not None else file.limit
        epochs = entry.epochs or file.epochs or 1
        seed = entry.seed if entry.seed is not None else file.seed
        sample_plan: SamplePlan | None = None
        for m, model in enumerate(file.models):
            name = member_name(entry.label(), model.label())
            clash = seen.get(name.lower())
            label = f"tasks.{t} ({entry.label()}) with models.{m} ({model.label()})"
            if clash is not None:
                problem(f"{where('tasks', t)}: {label} and {clash} would share the run folder {name}: give "
                        "one of the task entries or models a name: of its own")
                continue
            seen[name.lower()] = label
            request = member_request(file, entry, model, roles)
            try:
                planned = plan(entry.task, request, params=entry.params, prompts=prompts or None,
                               preset=entry.preset)
            except (ProsevalError, KeyError, ValueError, TypeError) as exc:
                problem(f"{prefix}: {str(exc).strip(chr(39) + chr(34))}", model.label(), _code(exc))
                continue
            bindings = dict(planned.bindings)
            for role, binding in bindings.items():  # an endpoint's limit is its roles' default concurrency
                limit_here = limits.limit_for(binding)
                if limit_here is not None and not explicit_concurrency(request, role):
                    bindings[role] = binding.model_copy(update={"concurrency": limit_here})
            warnings += [w for w in planned.warnings if w not in warnings]
            if sample_plan is None:
                try:
                    sample_plan = SamplePlan(planned.task, limit)
                except (ProsevalError, KeyError, ValueError, TypeError, OSError) as exc:
                    problem(f"{prefix}: its dataset: {exc}", code=_code(exc, 1))
                    break
                try:
                    check_run_size(sample_plan.count, epochs)
                except UsageError as exc:
                    problem(f"{prefix}: {exc}")
                    break
            keys = {(sample_id, epoch) for sample_id in sample_plan.ids for epoch in range(epochs)}
            # batch mode: the entry's roles, else the defaults' for the roles this task has
            batch = tuple(entry.batch) if entry.batch else tuple(r for r in file.batch if r in bindings)
            trouble = batch_problem(bindings, batch, where="batch:")
            if trouble:
                problem(f"{prefix}: {trouble}", model.label())
                continue
            members.append(Member(t, m, entry.label(), model.label(), name, folder / name, planned.task, bindings,
                                  planned.demo, limit, epochs, seed, keys, sample_plan.count, batch=batch))
    if problems:
        lines = [message + (f" (models: {', '.join(models)})" if models and len(models) < len(file.models) else "")
                 for message, models in problems.items()]
        text = lines[0] if len(lines) == 1 else "the set file has problems:\n  " + "\n  ".join(lines)
        raise UsageError(text) if 2 in codes else DataError(text)
    used = {key for member in members for b in member.bindings.values() for key in limits.keys_for(b)}
    unused = [key for key in limits.slots if key not in used]
    warnings += [f"{where('endpoints', key)}: endpoint limit {key} names no endpoint of the set's roles"
                 for key in unused]
    return SetPlan(
        path=path, file=file, folder=folder, members=members, warnings=warnings, endpoints=dict(file.endpoints),
        max_runs=max_runs or file.max_runs or DEFAULT_MAX_RUNS,
        use_cache=use_cache if use_cache is not None else not (file.no_cache or False),
        max_attempts=file.max_attempts or RunOptions.max_attempts,
        report=report if report is not None else file.report,
    )

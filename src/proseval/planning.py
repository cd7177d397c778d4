"""Building a task and binding its roles, checked before any request: what `proseval.run`, the
`run` command and a benchmark's own commands do before they start a run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .core.preset import preset_generation, preset_params, preset_record
from .core.prompt import override_prompts
from .core.task import Task
from .registry import get_entry, get_task
from .runtime.records import RoleBinding
from .runtime.roles import RoleRequest, resolve_roles


@dataclass(frozen=True)
class Plan:
    """A task built and its roles bound, checked before any request is made."""

    task: Task
    bindings: dict[str, RoleBinding]
    warnings: list[str]
    demo: bool


def plan(
    task: str | Task,
    request: RoleRequest,
    *,
    params: dict[str, Any] | None = None,
    prompts: Mapping[str, str | Path] | None = None,
    preset: str | None = None,
) -> Plan:
    """Build `task` (a registered name, with `params`) with the user's prompt files and bind its roles.

    `preset` names one of the task's presets; its options and generation settings sit under
    the user's own. Raises `KeyError`/`ValueError` (unknown task, preset or parameter, unknown
    role, bad URL) and `PromptError` before anything is sent.
    """
    chosen, own = None, request.generation
    if preset is not None:
        if not isinstance(task, str):
            raise ValueError("a preset needs a registered task name")
        chosen = get_entry(task).preset(preset)
    built = get_task(task, preset_params(chosen, params or {}) if chosen else params) if isinstance(task, str) else task
    if chosen is not None:
        built.preset = preset_record(chosen, params or {}, request.generation)
        request = replace(request, generation=preset_generation(chosen, request.generation, built.roles_required))
    if prompts:
        built = replace(
            built, prompts=override_prompts(built.prompts, {k: Path(v) for k, v in prompts.items()}, built.name)
        )
    bindings, warnings, demo = resolve_roles(
        request, built.roles_required, built.role_configs, optional=built.optional_roles, user_set=own
    )
    if built.preset is not None:
        deviations = preset_not_sent(built.preset, bindings)
        if deviations:
            built.preset = {**built.preset, "not_sent": deviations}
            warnings = [
                *warnings,
                f"the run deviates from the preset {built.preset['name']!r}: "
                f"{', '.join(deviations)} not sent (the models do not take them; see the notices above)",
            ]
    return Plan(built, bindings, list(warnings), demo)


def preset_not_sent(preset: Mapping[str, Any], bindings: Mapping[str, RoleBinding]) -> list[str]:
    """The preset's settings (`ROLE.SETTING`) that were not sent because the bound model does not take them."""
    return [
        f"{role}.{item['setting']}"
        for role, binding in sorted(bindings.items())
        for item in binding.not_sent
        if item["setting"] in (preset.get("gen") or {}).get(role, {})
    ]

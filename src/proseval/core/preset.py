"""Presets: named bundles of task options and generation settings that reproduce a setup.

A benchmark declares, e.g., ``paper`` (what the paper reports using) and ``official`` (what the
official code does). A preset sits under the user's own choices: a task option or generation
setting the user gives explicitly wins, and the run header records the preset, every value it
set and the ones the user overrode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    params: Mapping[str, Any] = field(default_factory=dict)
    gen: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    notes: str = ""


def preset_params(preset: Preset, params: Mapping[str, Any]) -> dict[str, Any]:
    """The task options: the preset's, then the user's on top."""
    return {**preset.params, **params}


def preset_generation(
    preset: Preset, gen: Mapping[str, Mapping[str, Any]], roles: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """Generation settings per role: the preset's for the roles the task has, the user's on top."""
    own = {role: values for role, values in preset.gen.items() if role in roles}
    return {role: {**own.get(role, {}), **gen.get(role, {})} for role in {*own, *gen}}


def preset_record(preset: Preset, params: Mapping[str, Any], gen: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What the header keeps: the preset's name, every value it sets, and those the user overrode."""
    overridden = [f"--{k.replace('_', '-')}" for k in preset.params if k in params and params[k] != preset.params[k]]
    overridden += [
        f"{role}.{k}"
        for role, values in preset.gen.items()
        for k in values
        if k in gen.get(role, {}) and gen[role][k] != values[k]
    ]
    return {
        "name": preset.name,
        "params": dict(preset.params),
        "gen": {role: dict(values) for role, values in preset.gen.items()},
        "overridden": overridden,
    }

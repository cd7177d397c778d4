"""Hooks registered as ``"module:attribute"``: each one of the built-in benchmarks resolves to what it
must be, and a hook outside the registering package, or not of that form, is refused when registered."""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import typer

from proseval import registry
from proseval.core.preset import Preset
from proseval.core.prompt import PromptTemplate
from proseval.registry import FunctionHook, Hook, HookError, ValueHook

BENCHMARKS = Path(__file__).resolve().parents[2] / "src" / "proseval" / "benchmarks"
BUILT_IN = "proseval.benchmarks."


def mapping_of(kind: type) -> Any:
    return lambda value: isinstance(value, Mapping) and all(isinstance(item, kind) for item in value.values())


# What each hook must resolve to, by the argument it is registered with.
KINDS = {
    "render": callable,
    "views": callable,
    "labelling": callable,
    "factory": callable,
    "prompts": mapping_of(PromptTemplate),
    "presets": mapping_of(Preset),
    "metrics": mapping_of(str),
    "command_group": lambda app: isinstance(app, typer.Typer),
    "generate_command": callable,
    "doctor_check": callable,
}


def origin(hook: Any) -> str:
    """The module a registered hook lives in: its string's, or its function's."""
    return hook.target if isinstance(hook, Hook) else getattr(hook, "__module__", None) or ""


def built_in_hooks() -> list[tuple[str, str, Any]]:
    """(what registered it, the argument, the hook) for every hook a built-in benchmark registered."""
    found = [
        (f"task {name}", role, getattr(entry, role))
        for name, entry in registry.tasks().items()
        for role in ("render", "prompts", "presets", "metrics", "views", "labelling")
    ]
    found += [
        (f"scorer {name}", role, getattr(entry, role))
        for name, entry in registry.scorer_plugins().items()
        for role in ("factory", "prompts", "views")
    ]
    found += [
        (f"command group {name}", "command_group", group.load) for name, group in registry.command_groups().items()
    ]
    found += [(f"generate {name}", "generate_command", load) for name, load in registry.generate_commands().items()]
    found += [(f"doctor {name}", "doctor_check", checks) for name, checks in registry.doctor_checks().items()]
    return [(who, role, hook) for who, role, hook in found if hook is not None and origin(hook).startswith(BUILT_IN)]


def hook_strings() -> set[str]:
    """Every ``"module:attribute"`` string in the benchmarks' registrations (their `__init__.py`)."""
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in BENCHMARKS.glob("*/__init__.py")]
    constants = [
        node.value
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    return {value for value in constants if registry.HOOK_PATTERN.fullmatch(value)}


def test_every_built_in_hook_resolves_to_what_it_must_be():
    resolved, wrong = set(), []
    hooks = built_in_hooks()
    assert registry.load_errors == []  # a hook refused at registration leaves its benchmark unloaded
    for who, role, hook in hooks:
        if isinstance(hook, Hook):
            value = hook.resolve()
            resolved.add(hook.target)
            if not KINDS[role](value):
                wrong.append(f"{who}: {role}={hook.target!r} is {type(value).__name__}")
    assert wrong == []
    assert resolved == hook_strings() and len(resolved) > 30  # each string registered, each resolved


def test_built_in_commands_are_registered_as_strings():
    """A function that imports its app would hide the import from the contracts: the built-ins name theirs."""
    loaders = [(who, hook) for who, role, hook in built_in_hooks() if role in ("command_group", "generate_command")]
    assert loaders and [who for who, hook in loaders if not isinstance(hook, ValueHook)] == []


@pytest.fixture
def scratch_registry(monkeypatch):
    """The registry's tables, restored after the test (the built-in benchmarks loaded first)."""
    registry.load_benchmarks()
    for table in ("_TASKS", "_SCORERS", "_COMMAND_GROUPS", "_GENERATORS", "_DOCTOR_CHECKS"):
        monkeypatch.setattr(registry, table, dict(getattr(registry, table)))


def register_from(module: str, code: str) -> None:
    """Run `code` as if it were written in `module`: the registry takes the registering module from its caller."""
    exec(compile("from proseval import kit\n" + code, f"<{module}>", "exec"), {"__name__": module})  # noqa: S102  # a plug-in's source, run as its module


RAVEL = "proseval.benchmarks.ravel"


@pytest.mark.parametrize(
    ("role", "target", "code"),
    [
        (
            "render",
            "proseval.benchmarks.c3ebench.task:render",
            'kit.task("unit", summary="s", render="proseval.benchmarks.c3ebench.task:render")(lambda p: None)',
        ),
        (
            "prompts",
            "proseval.runtime.runner:start_run",
            'kit.task("unit", summary="s", prompts="proseval.runtime.runner:start_run")(lambda p: None)',
        ),
        (
            "views",
            "proseval_haiku.views:sample_views",
            'kit.task("unit", summary="s", views="proseval_haiku.views:sample_views")(lambda p: None)',
        ),
        (
            "command_group",
            "proseval.benchmarks.c3ebench.cli:app",
            'kit.command_group("unit", "proseval.benchmarks.c3ebench.cli:app", summary="s")',
        ),
        (
            "command_group",
            "proseval.benchmarks.ravelx.cli:app",
            'kit.command_group("unit", "proseval.benchmarks.ravelx.cli:app", summary="s")',
        ),
        (
            "generate_command",
            "proseval.benchmarks.meeseeks.cli:generate",
            'kit.generate_command("unit", "proseval.benchmarks.meeseeks.cli:generate")',
        ),
        (
            "factory",
            "proseval.benchmarks.revision_distance.scoring:revision_distance_scorer",
            (
                'kit.scorer_plugin("unit", summary="s", roles=("r",), '
                'factory="proseval.benchmarks.revision_distance.scoring:revision_distance_scorer")'
            ),
        ),
        (
            "doctor_check",
            "proseval.benchmarks.longweave.doctor:checks",
            'kit.doctor_check("unit", "proseval.benchmarks.longweave.doctor:checks")',
        ),
    ],
)
def test_a_hook_outside_the_registering_package_is_refused(scratch_registry, role, target, code):
    with pytest.raises(HookError) as refused:
        register_from(RAVEL, code)
    message = str(refused.value)
    assert f"{role}={target!r}" in message and f"registered by {RAVEL}:" in message and "outside" in message
    assert "unit" not in registry._TASKS and "unit" not in registry._COMMAND_GROUPS


@pytest.mark.parametrize(
    "target",
    [
        "proseval.benchmarks.ravel.cli.app",
        "proseval.benchmarks.ravel.cli:",
        ":app",
        "proseval.benchmarks.ravel.cli:app.run",
        " proseval.benchmarks.ravel:x",
        "proseval.benchmarks.ravel.cli:app:app",
        "",
    ],
)
def test_a_malformed_hook_is_refused(scratch_registry, target):
    with pytest.raises(HookError, match="not of the form 'package.module:attribute'") as refused:
        register_from(RAVEL, f"kit.command_group('unit', {target!r})")
    assert f"command_group={target!r} registered by {RAVEL}" in str(refused.value)


def test_a_plug_in_names_its_own_package_only(scratch_registry):
    register_from("mybench", 'kit.command_group("unit", "mybench.cli:app", summary="s")')
    assert registry._COMMAND_GROUPS["unit"].load == ValueHook("mybench.cli:app")
    for target in ("mybenchmark.cli:app", "proseval.benchmarks._shared.c3e.data:load"):
        with pytest.raises(HookError, match="outside mybench;"):
            register_from("mybench", f'kit.command_group("unit", {target!r}, summary="s")')


def test_hooks_are_checked_at_registration_and_imported_only_when_used(scratch_registry):
    register_from(
        RAVEL,
        'kit.task("unit", summary="s", render="proseval.benchmarks.ravel.nowhere:render", '
        'prompts="proseval.benchmarks._shared.nowhere:PROMPTS")(lambda p: None)',
    )
    entry = registry._TASKS["unit"]
    assert entry.render == FunctionHook("proseval.benchmarks.ravel.nowhere:render")
    assert "proseval.benchmarks.ravel.nowhere" not in sys.modules  # registering imported nothing
    with pytest.raises(ModuleNotFoundError):
        entry.render({})


def test_a_command_group_may_still_be_a_function_returning_the_app(scratch_registry):
    app = typer.Typer()
    registry.command_group("unit", lambda: app, summary="s")
    assert registry.command_groups()["unit"]() is app

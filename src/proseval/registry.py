"""Where benchmarks register themselves: tasks, scorers, command groups, generators, doctor checks.

No list of benchmarks lives here. A benchmark is a package that, when imported, declares its
tasks with the `@task` decorator, its commands with `command_group` / `generate_command` and
its environment checks with `doctor_check` (benchmark authors reach all of them through
`proseval.kit`); it is found through the ``proseval.benchmarks`` entry-point group, so a
benchmark in another package registers itself by naming its module there:

    [project.entry-points."proseval.benchmarks"]
    mybench = "mypackage.mybench"

Hooks given as ``"module:attribute"`` are imported only when used, and each must name a module of
the package that registers it (for a built-in benchmark, its own package or
``proseval.benchmarks._shared``): a hook is no way into another benchmark or into proseval's
internals, which the import contracts could not see. A hook that breaks the rule is refused when
it is registered.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import UsageError, describe_validation_error

if TYPE_CHECKING:  # names in annotations only: registering a benchmark builds none of these models
    from .core.health import Check
    from .core.preset import Preset
    from .core.prompt import PromptTemplate
    from .core.task import Task
    from .core.views import Labelling, SampleViews

ENTRY_POINT_GROUP = "proseval.benchmarks"
F = TypeVar("F", bound=Callable[..., Any])


class UnknownNameError(UsageError, KeyError):
    """No task, preset or scorer of that name; the message lists the known ones."""


class TaskParamsError(UsageError, ValueError):
    """Task options that the task's parameter model refuses; the message names each option."""


class HookError(ValueError):
    """A hook string that is malformed or names a module outside the registering package."""


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


HOOK_PATTERN = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
_SHARED = "proseval.benchmarks._shared"
_REGISTRARS = (__name__, "proseval.kit")  # modules that pass registrations on: never the registering one


@dataclass(frozen=True)
class Hook:
    """A ``"module:attribute"`` a benchmark registered; `resolve()` imports it (at first use)."""

    target: str

    def resolve(self) -> Any:
        module, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module), attribute)


class FunctionHook(Hook):
    """A registered function: calling the hook imports it and calls it."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)


class ValueHook(Hook):
    """A registered value (a mapping, a typer app, a command): calling the hook imports and returns it."""

    def __call__(self) -> Any:
        return self.resolve()


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def registering_module() -> str:
    """The module that called the registration: the first caller outside the registry and the kit."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not any(_within(module, name) for name in _REGISTRARS):
            return module
        frame = frame.f_back
    return "__main__"


def home_packages(module: str) -> tuple[str, ...]:
    """The packages whose modules `module` may name as hooks: a built-in benchmark's own package and
    the code benchmarks share; any other module's top-level package."""
    parts = module.split(".")
    if parts[:2] == ["proseval", "benchmarks"] and len(parts) > 2:
        return (".".join(parts[:3]), _SHARED)
    return (parts[0],)


def checked_hook(kind: type[Hook], role: str, target: str, registrant: str) -> Hook:
    """`target` as a hook of `kind`, or a `HookError` naming the hook, the string and `registrant`."""
    where = f"hook {role}={target!r} registered by {registrant}"
    if not HOOK_PATTERN.fullmatch(target):
        raise HookError(f"{where}: not of the form 'package.module:attribute'")
    module = target.partition(":")[0]
    homes = home_packages(registrant)
    if not any(_within(module, home) for home in homes):
        raise HookError(f"{where}: {module} is outside {' and '.join(homes)}; a hook names a module of the "
                        "package that registers it")
    return kind(target)


def _hook(kind: type[Hook], role: str, value: Any, registrant: str) -> Any:
    """A hook given as a callable (kept as it is) or as a checked ``"module:attribute"`` of `kind`."""
    return checked_hook(kind, role, value, registrant) if isinstance(value, str) else value


def _declared(role: str, value: Any, registrant: str) -> Callable[[], Any] | None:
    """A loader for a declared mapping, given as itself or as a checked ``"module:attribute"``."""
    if isinstance(value, str):
        return checked_hook(ValueHook, role, value, registrant)
    return (lambda: value) if value else None


@dataclass(frozen=True)
class TaskEntry:
    """A registered task: its name, one-line summary, factory, parameter model and result tables."""

    name: str
    summary: str
    factory: Callable[[Any], Task]
    params: type[BaseModel] = NoParams
    render: Callable[[Any], list[Any]] | None = field(default=None)
    prompts: Callable[[], Mapping[str, PromptTemplate]] | None = field(default=None)
    presets: Callable[[], Mapping[str, Preset]] | None = field(default=None)
    metrics: Callable[[], Mapping[str, str]] | None = field(default=None)
    views: Callable[[dict[str, Any]], list[Any]] | None = field(default=None)
    labelling: Callable[[dict[str, Any]], Any] | None = field(default=None)

    def preset(self, name: str) -> Preset:
        known = dict(self.presets()) if self.presets is not None else {}
        if name not in known:
            raise UnknownNameError(f"task {self.name} has no preset {name!r} "
                                   f"(its presets: {', '.join(known) or 'none'})")
        return known[name]


@dataclass(frozen=True)
class ScorerEntry:
    """A scorer any run can be re-scored with (`proseval score RUN --scorer NAME`).

    `load()` returns ``(factory, prompts)``: ``factory(**options)`` makes the scorer; `prompts`
    are the templates it renders; `roles` are the roles it calls; `views` draws what its scores
    keep on a sample's page in the viewer, for a run re-scored with it (`core.views`).
    """

    name: str
    summary: str
    roles: tuple[str, ...]
    factory: Callable[[], Callable[..., Any]]
    prompts: Callable[[], Mapping[str, PromptTemplate]] | None = None
    role_configs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    views: Callable[[dict[str, Any]], list[Any]] | None = None

    def load(self) -> tuple[Callable[..., Any], Mapping[str, PromptTemplate]]:
        return self.factory(), dict(self.prompts()) if self.prompts else {}


@dataclass(frozen=True)
class CommandGroup:
    """A benchmark's `proseval NAME ...` (`command_group`): calling it imports and returns its typer app."""

    load: Callable[[], Any]
    summary: str | None = None

    def __call__(self) -> Any:
        return self.load()


_TASKS: dict[str, TaskEntry] = {}
_SCORERS: dict[str, ScorerEntry] = {}
_COMMAND_GROUPS: dict[str, CommandGroup] = {}
_GENERATORS: dict[str, Callable[[], Callable[..., Any]]] = {}
_DOCTOR_CHECKS: dict[str, Callable[[], list[Check]]] = {}
_loaded = False
load_errors: list[str] = []


def task(name: str, *, summary: str, params: type[BaseModel] = NoParams,
         render: Callable[[Any], list[Any]] | str | None = None,
         prompts: Mapping[str, PromptTemplate] | str | None = None,
         presets: Mapping[str, Preset] | str | None = None,
         metrics: Mapping[str, str] | str | None = None,
         views: SampleViews | str | None = None,
         labelling: Labelling | str | None = None) -> Callable[[F], F]:
    """Register a task factory: ``@task("mybench", summary=..., params=MyParams)``.

    The factory takes the validated parameters and returns a `Task`; import heavy modules inside
    it, so that listing tasks stays fast. `render` turns a run's results into extra tables;
    `prompts` are the templates the task sends (given to every task the factory builds, unless
    it sets its own); `presets` are its named setups (``--preset paper``); `metrics` maps each
    metric the task reports to its definition (shown by `proseval describe`); `views` draws a
    sample's own parts in the viewer and `labelling` is what a person rating it is asked
    (`core.views`); as ``"module:attribute"`` (a module of the registering package) any of these
    is imported only when used.
    """
    registrant = registering_module()
    hooks = {"prompts": _declared("prompts", prompts, registrant),
             "presets": _declared("presets", presets, registrant),
             "metrics": _declared("metrics", metrics, registrant),
             "render": _hook(FunctionHook, "render", render, registrant),
             "views": _hook(FunctionHook, "views", views, registrant),
             "labelling": _hook(FunctionHook, "labelling", labelling, registrant)}

    def register(factory: F) -> F:
        if name in _TASKS and _TASKS[name].factory is not factory:
            raise ValueError(f"task {name!r} is registered twice")
        _TASKS[name] = TaskEntry(name, summary, factory, params, **hooks)
        return factory

    return register


def scorer_plugin(name: str, *, summary: str, roles: tuple[str, ...], factory: str,
                  prompts: str | None = None, role_configs: Mapping[str, Mapping[str, Any]] | None = None,
                  views: SampleViews | str | None = None) -> None:
    """Register a scorer for `proseval score RUN --scorer NAME` (``"module:attribute"`` targets,
    imported only when used): ``factory(**options)`` returns a `@scorer` function; `views`, like a
    task's, draws what its scores keep in the viewer."""
    registrant = registering_module()
    _SCORERS[name] = ScorerEntry(name, summary, roles, checked_hook(ValueHook, "factory", factory, registrant),
                                 _declared("prompts", prompts, registrant), dict(role_configs or {}),
                                 _hook(FunctionHook, "views", views, registrant))


def scorer_plugins() -> dict[str, ScorerEntry]:
    load_benchmarks()
    return dict(sorted(_SCORERS.items()))


def get_scorer_plugin(name: str) -> ScorerEntry:
    known = scorer_plugins()
    if name not in known:
        raise UnknownNameError(f"unknown scorer {name!r}; available: {', '.join(known) or 'none'}")
    return known[name]


def command_group(name: str, load: str | Callable[[], Any], *, summary: str | None = None) -> None:
    """Register `proseval NAME ...`: `load` is the benchmark's typer app as ``"module:attribute"``
    (or a function returning it), imported only when one of its commands runs. `summary` is its line
    in `proseval --help` and its help, unless the app has its own (without a summary, `--help` imports
    the app to read its help)."""
    _COMMAND_GROUPS[name] = CommandGroup(_hook(ValueHook, "command_group", load, registering_module()), summary)


def generate_command(name: str, load: str | Callable[[], Callable[..., Any]]) -> None:
    """Register `proseval generate NAME ...`: `load` is the typer command function as
    ``"module:attribute"`` (or a function returning it)."""
    _GENERATORS[name] = _hook(ValueHook, "generate_command", load, registering_module())


def doctor_check(component: str, checks: Callable[[], list[Check]] | str) -> None:
    """Register the `proseval doctor` checks of `component` (a name `--require` accepts): `checks()`
    (or ``"module:attribute"``, imported only when the doctor runs) returns its `Check`s; an exception
    is reported as a failed check."""
    _DOCTOR_CHECKS[component] = _hook(FunctionHook, "doctor_check", checks, registering_module())


def load_benchmarks() -> None:
    """Import every module of the entry-point group once; a broken plug-in is reported, not fatal."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        try:
            importlib.import_module(point.value.partition(":")[0])
        except Exception as exc:  # noqa: BLE001 - one broken plug-in must not take the others down
            load_errors.append(f"benchmark plug-in {point.name!r} ({point.value}) failed to load: "
                               f"{type(exc).__name__}: {exc}")
    if not _TASKS:
        print("warning: no benchmark is registered; reinstall proseval (pip install -e .) so that its "
              f"entry points ({ENTRY_POINT_GROUP}) are known", file=sys.stderr)


def tasks() -> dict[str, TaskEntry]:
    load_benchmarks()
    return dict(sorted(_TASKS.items()))


def command_groups() -> dict[str, CommandGroup]:
    load_benchmarks()
    return dict(sorted(_COMMAND_GROUPS.items()))


def generate_commands() -> dict[str, Callable[[], Callable[..., Any]]]:
    load_benchmarks()
    return dict(sorted(_GENERATORS.items()))


def doctor_checks() -> dict[str, Callable[[], list[Check]]]:
    load_benchmarks()
    return dict(sorted(_DOCTOR_CHECKS.items()))


def get_entry(name: str) -> TaskEntry:
    known = tasks()
    if name not in known:
        raise UnknownNameError(f"unknown task {name!r}; available: {', '.join(known)} (see: proseval list)")
    return known[name]


def format_validation_error(task_name: str, exc: ValidationError) -> str:
    """Deprecated: `describe_validation_error(exc, task=task_name)`; `proseval.kit` lends it until it goes."""
    return describe_validation_error(exc, task=task_name)


def get_task(name: str, params: dict[str, Any] | None = None) -> Task:
    """Build a task; parameters are validated by the task's own model and recorded on the task."""
    entry = get_entry(name)
    try:
        validated = entry.params.model_validate(params or {})
    except ValidationError as exc:
        raise TaskParamsError(describe_validation_error(exc, task=name)) from None
    built = entry.factory(validated)
    built.params = validated.model_dump(mode="json")
    if entry.prompts is not None and not built.prompts:
        built.prompts = dict(entry.prompts())
    return built

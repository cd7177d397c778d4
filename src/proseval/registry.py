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

A name is registered once: a second registration of a task, scorer, command group, generator or
doctor check under a name another one holds is refused with an error naming both registrants
(`DuplicateRegistrationError`), so a plug-in never silently takes the place of a built-in. A
deliberate override passes ``replace=True`` and is reported (`RegistrationReplacedWarning`). The
same registration made again (its module imported twice, or reloaded) is harmless. The built-in
benchmarks load before any other plug-in, so a plug-in cannot take a name from one either.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from importlib.metadata import entry_points
from types import FrameType, FunctionType
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import ProsevalError, UsageError, describe_validation_error

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


class DuplicateRegistrationError(ProsevalError, ValueError):
    """A name registered a second time, by something else; the message names both registrants."""


class RegistrationReplacedWarning(UserWarning):
    """A registration that replaced another on purpose (``replace=True``)."""


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


HOOK_PATTERN = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
_SHARED = "proseval.benchmarks._shared"
_REGISTRARS = (__name__, "proseval.kit")  # modules that pass registrations on: never the registering one
_BUILT_IN = "proseval.benchmarks"


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


H = TypeVar("H", bound=Hook)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def registering_frame() -> FrameType | None:
    """The frame that called the registration: the first caller outside the registry and the kit."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not any(_within(module, name) for name in _REGISTRARS):
            return frame
        frame = frame.f_back
    return None


def registering_module() -> str:
    """The module that called the registration: the first caller outside the registry and the kit."""
    frame = registering_frame()
    return "__main__" if frame is None else frame.f_globals.get("__name__", "__main__")


def home_packages(module: str) -> tuple[str, ...]:
    """The packages whose modules `module` may name as hooks: a built-in benchmark's own package and
    the code benchmarks share; any other module's top-level package."""
    parts = module.split(".")
    if parts[:2] == ["proseval", "benchmarks"] and len(parts) > 2:
        return (".".join(parts[:3]), _SHARED)
    return (parts[0],)


def checked_hook(kind: type[H], role: str, target: str, registrant: str) -> H:
    """`target` as a hook of `kind`, or a `HookError` naming the hook, the string and `registrant`."""
    where = f"hook {role}={target!r} registered by {registrant}"
    if not HOOK_PATTERN.fullmatch(target):
        raise HookError(f"{where}: not of the form 'package.module:attribute'")
    module = target.partition(":")[0]
    homes = home_packages(registrant)
    if not any(_within(module, home) for home in homes):
        raise HookError(
            f"{where}: {module} is outside {' and '.join(homes)}; a hook names a module of the "
            "package that registers it"
        )
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
            raise UnknownNameError(
                f"task {self.name} has no preset {name!r} (its presets: {', '.join(known) or 'none'})"
            )
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
_REGISTRANTS: dict[tuple[str, str], str] = {}  # (kind, name) -> the module whose registration holds it
_loaded = False
load_errors: list[str] = []


def _identity(value: Any) -> Any:
    """What makes two registrations the same one: a function or class by its qualified name
    (importing its module again, or reloading it, makes new ones), an entry by its fields,
    anything else by value."""
    if isinstance(value, (FunctionType, type)):
        return ("code", value.__module__, value.__qualname__)
    if is_dataclass(value) and not isinstance(value, type):
        return (type(value), tuple(_identity(getattr(value, item.name)) for item in fields(value)))
    return value


def entry_point_of(module: str) -> Any | None:
    """The entry point of the benchmark group that loads `module` (the deepest one), if any."""
    found = [point for point in entry_points(group=ENTRY_POINT_GROUP) if _within(module, point.value.partition(":")[0])]
    return max(found, key=lambda point: len(point.value), default=None)


def describe_registrant(module: str) -> str:
    """`module`, with the entry point and the distribution that load it when there are ones."""
    point = entry_point_of(module)
    if point is None:
        return module
    dist = getattr(point, "dist", None)
    source = f" of {dist.name} {dist.version}" if dist is not None else ""
    return f"{module} (entry point {point.name!r}{source})"


def registrant_of(kind: str, name: str) -> str:
    """The module whose registration holds `name` of `kind` ("an unknown module" if none is recorded)."""
    return _REGISTRANTS.get((kind, name), "an unknown module")


def claim(kind: str, table: dict[str, Any], name: str, entry: Any, *, registrant: str, replace: bool = False) -> None:
    """Put `entry` in `table` under `name` for `registrant`: a name another registration holds is
    refused, unless `replace` (then a warning says who replaced whom); the same registration again
    replaces itself quietly."""
    key = (kind, name)
    if name in table and _identity(table[name]) != _identity(entry):
        holder = describe_registrant(_REGISTRANTS.get(key, "an unknown module"))
        if not replace:
            raise DuplicateRegistrationError(
                f"{kind} {name!r} is registered twice: by {holder} and by {describe_registrant(registrant)}; "
                "rename one, or remove one of the two packages (an override on purpose passes replace=True)"
            )
        _warn_from_registrant(
            f"{kind} {name!r} of {holder} is replaced on purpose by {describe_registrant(registrant)}"
        )
    table[name] = entry
    _REGISTRANTS[key] = registrant


def _warn_from_registrant(message: str) -> None:
    """A `RegistrationReplacedWarning` attributed to the line that registered (once per line)."""
    frame = registering_frame()
    if frame is None:
        warnings.warn(message, RegistrationReplacedWarning, stacklevel=3)
        return
    where = frame.f_globals
    warnings.warn_explicit(
        message,
        RegistrationReplacedWarning,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=where.get("__name__"),
        registry=where.setdefault("__warningregistry__", {}),
        module_globals=where,
    )


def task(
    name: str,
    *,
    summary: str,
    params: type[BaseModel] = NoParams,
    render: Callable[[Any], list[Any]] | str | None = None,
    prompts: Mapping[str, PromptTemplate] | str | None = None,
    presets: Mapping[str, Preset] | str | None = None,
    metrics: Mapping[str, str] | str | None = None,
    views: SampleViews | str | None = None,
    labelling: Labelling | str | None = None,
    replace: bool = False,
) -> Callable[[F], F]:
    """Register a task factory: ``@task("mybench", summary=..., params=MyParams)``.

    The factory takes the validated parameters and returns a `Task`; import heavy modules inside
    it, so that listing tasks stays fast. `render` turns a run's results into extra tables;
    `prompts` are the templates the task sends (given to every task the factory builds, unless
    it sets its own); `presets` are its named setups (``--preset paper``); `metrics` maps each
    metric the task reports to its definition (shown by `proseval describe`); `views` draws a
    sample's own parts in the viewer and `labelling` is what a person rating it is asked
    (`core.views`); as ``"module:attribute"`` (a module of the registering package) any of these
    is imported only when used. `replace` overrides a task of that name registered before (a
    second registration is refused otherwise).
    """
    registrant = registering_module()
    hooks = {
        "prompts": _declared("prompts", prompts, registrant),
        "presets": _declared("presets", presets, registrant),
        "metrics": _declared("metrics", metrics, registrant),
        "render": _hook(FunctionHook, "render", render, registrant),
        "views": _hook(FunctionHook, "views", views, registrant),
        "labelling": _hook(FunctionHook, "labelling", labelling, registrant),
    }

    def register(factory: F) -> F:
        claim(
            "task",
            _TASKS,
            name,
            TaskEntry(name, summary, factory, params, **hooks),
            registrant=registrant,
            replace=replace,
        )
        return factory

    return register


def scorer_plugin(
    name: str,
    *,
    summary: str,
    roles: tuple[str, ...],
    factory: str,
    prompts: str | None = None,
    role_configs: Mapping[str, Mapping[str, Any]] | None = None,
    views: SampleViews | str | None = None,
    replace: bool = False,
) -> None:
    """Register a scorer for `proseval score RUN --scorer NAME` (``"module:attribute"`` targets,
    imported only when used): ``factory(**options)`` returns a `@scorer` function; `views`, like a
    task's, draws what its scores keep in the viewer; `replace`, like a task's, overrides."""
    registrant = registering_module()
    entry = ScorerEntry(
        name,
        summary,
        roles,
        checked_hook(ValueHook, "factory", factory, registrant),
        _declared("prompts", prompts, registrant),
        dict(role_configs or {}),
        _hook(FunctionHook, "views", views, registrant),
    )
    claim("scorer", _SCORERS, name, entry, registrant=registrant, replace=replace)


def scorer_plugins() -> dict[str, ScorerEntry]:
    load_benchmarks()
    return dict(sorted(_SCORERS.items()))


def get_scorer_plugin(name: str) -> ScorerEntry:
    known = scorer_plugins()
    if name not in known:
        raise UnknownNameError(f"unknown scorer {name!r}; available: {', '.join(known) or 'none'}")
    return known[name]


def command_group(
    name: str, load: str | Callable[[], Any], *, summary: str | None = None, replace: bool = False
) -> None:
    """Register `proseval NAME ...`: `load` is the benchmark's typer app as ``"module:attribute"``
    (or a function returning it), imported only when one of its commands runs. `summary` is its line
    in `proseval --help` and its help, unless the app has its own (without a summary, `--help` imports
    the app to read its help). `replace`, like a task's, overrides."""
    registrant = registering_module()
    claim(
        "command group",
        _COMMAND_GROUPS,
        name,
        CommandGroup(_hook(ValueHook, "command_group", load, registrant), summary),
        registrant=registrant,
        replace=replace,
    )


def generate_command(name: str, load: str | Callable[[], Callable[..., Any]], *, replace: bool = False) -> None:
    """Register `proseval generate NAME ...`: `load` is the typer command function as
    ``"module:attribute"`` (or a function returning it). `replace`, like a task's, overrides."""
    registrant = registering_module()
    claim(
        "generate command",
        _GENERATORS,
        name,
        _hook(ValueHook, "generate_command", load, registrant),
        registrant=registrant,
        replace=replace,
    )


def doctor_check(component: str, checks: Callable[[], list[Check]] | str, *, replace: bool = False) -> None:
    """Register the `proseval doctor` checks of `component` (a name `--require` accepts): `checks()`
    (or ``"module:attribute"``, imported only when the doctor runs) returns its `Check`s; an exception
    is reported as a failed check. `replace`, like a task's, overrides."""
    registrant = registering_module()
    claim(
        "doctor check",
        _DOCTOR_CHECKS,
        component,
        _hook(FunctionHook, "doctor_check", checks, registrant),
        registrant=registrant,
        replace=replace,
    )


def load_order(point: Any) -> tuple[bool, str]:
    """The built-in benchmarks first, so that no plug-in holds a name before them; then by name."""
    return not _within(point.value.partition(":")[0], _BUILT_IN), point.name


@contextlib.contextmanager
def all_or_nothing() -> Iterator[None]:
    """Registrations that stand only if the block ends well: a plug-in that fails half-way through
    its module (a name refused, an import missing) leaves none of its names behind."""
    tables: tuple[dict[Any, Any], ...] = (_TASKS, _SCORERS, _COMMAND_GROUPS, _GENERATORS, _DOCTOR_CHECKS, _REGISTRANTS)
    saved = [(table, dict(table)) for table in tables]
    try:
        yield
    except BaseException:
        for table, before in saved:
            table.clear()
            table.update(before)
        raise


def load_benchmarks() -> None:
    """Import every module of the entry-point group once; a broken plug-in is reported, not fatal,
    and registers nothing."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=load_order):
        try:
            with all_or_nothing():
                importlib.import_module(point.value.partition(":")[0])
        except Exception as exc:  # noqa: BLE001 - one broken plug-in must not take the others down
            reason = str(exc) if isinstance(exc, ProsevalError) else f"{type(exc).__name__}: {exc}"
            load_errors.append(f"benchmark plug-in {point.name!r} ({point.value}) failed to load: {reason}")
    if not _TASKS:
        print(
            "warning: no benchmark is registered; reinstall proseval (pip install -e .) so that its "
            f"entry points ({ENTRY_POINT_GROUP}) are known",
            file=sys.stderr,
        )


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

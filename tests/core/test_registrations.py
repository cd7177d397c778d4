"""A name is registered once: every kind of registration refuses a second registrant (naming both),
overrides only with ``replace=True`` (reported), and takes the same registration again quietly. Under
the command line, a plug-in's use of a deprecated kit name is one ``warning:`` line per call site."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from proseval import kit, registry
from proseval.registry import ValueHook

# One registration of the name "unit" of each kind, as the package {pkg} writes it ({more}: more arguments).
KINDS = {
    "task": 'kit.task("unit", summary="s", render="{pkg}.tables:render"{more})(lambda params: None)',
    "scorer": 'kit.scorer_plugin("unit", summary="s", roles=("grader",), factory="{pkg}.scoring:make"{more})',
    "command group": 'kit.command_group("unit", "{pkg}.cli:app", summary="s"{more})',
    "generate command": 'kit.generate_command("unit", "{pkg}.cli:generate"{more})',
    "doctor check": 'kit.doctor_check("unit", "{pkg}.doctor:checks"{more})',
}
TABLES = {
    "task": "_TASKS",
    "scorer": "_SCORERS",
    "command group": "_COMMAND_GROUPS",
    "generate command": "_GENERATORS",
    "doctor check": "_DOCTOR_CHECKS",
}


@dataclass(frozen=True)
class Dist:
    name: str
    version: str


@dataclass(frozen=True)
class Point:
    """An entry point as `importlib.metadata` gives it: its name, its module and its distribution."""

    name: str
    value: str
    dist: Dist | None = None


@pytest.fixture
def scratch(monkeypatch):
    """The registry's tables and registrants, restored after the test (the built-ins loaded first)."""
    registry.load_benchmarks()
    for table in (*TABLES.values(), "_REGISTRANTS"):
        monkeypatch.setattr(registry, table, dict(getattr(registry, table)))


def register_from(module: str, code: str, *, line: int = 2) -> None:
    """Run `code` as if written from line `line` of `module` (the registry takes the registering module
    from its caller)."""
    source = "from proseval import kit\n" + "\n" * (line - 2) + code
    exec(compile(source, f"<{module}>", "exec"), {"__name__": module})  # noqa: S102  # a plug-in's source, run as its module


def entry(kind: str) -> object:
    return getattr(registry, TABLES[kind])["unit"]


def registration(kind: str, package: str, more: str = "") -> str:
    return KINDS[kind].format(pkg=package, more=more)


@pytest.mark.parametrize("kind", KINDS)
def test_a_name_held_by_another_registrant_is_refused_and_both_are_named(scratch, kind):
    register_from("alpha", registration(kind, "alpha"))
    first = entry(kind)
    register_from("alpha", registration(kind, "alpha"))  # its module imported again: harmless
    with pytest.raises(registry.DuplicateRegistrationError) as refused:
        register_from("beta", registration(kind, "beta"))
    message = str(refused.value)
    assert message.startswith(f"{kind} 'unit' is registered twice: by alpha and by beta;")
    assert "replace=True" in message
    assert registry._identity(entry(kind)) == registry._identity(first)  # the first registration stands


@pytest.mark.parametrize("kind", KINDS)
def test_replace_overrides_on_purpose_and_says_who_replaced_whom(scratch, kind):
    register_from("alpha", registration(kind, "alpha"))
    with pytest.warns(registry.RegistrationReplacedWarning) as caught:
        register_from("beta", registration(kind, "beta", ", replace=True"), line=7)
    # only this warning's category: a resource collected meanwhile may warn into the same record
    replaced = [w for w in caught if issubclass(w.category, registry.RegistrationReplacedWarning)]
    assert [str(w.message) for w in replaced] == [f"{kind} 'unit' of alpha is replaced on purpose by beta"]
    assert (replaced[0].filename, replaced[0].lineno) == ("<beta>", 7)  # the line that registered
    assert "beta" in repr(registry._identity(entry(kind)))


def test_a_task_factory_reloaded_is_the_same_registration(scratch):
    """A module imported again makes a new function of the same name: not a second registrant."""
    code = "@kit.task('unit', summary='s')\ndef make(params):\n    return None\n"
    register_from("alpha.tasks", code)
    register_from("alpha.tasks", code)
    with pytest.raises(registry.DuplicateRegistrationError, match="by alpha.tasks and by alpha.tasks"):
        register_from("alpha.tasks", code.replace("def make", "def other").replace("return None", "return 1"))


@pytest.fixture
def plugin_site(tmp_path, monkeypatch):
    """A folder on the import path for the plug-ins a test writes (``write(package, code)``); their
    modules are forgotten afterwards."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    written: list[str] = []

    def write(package: str, code: str) -> Path:
        (site / package).mkdir()
        (site / package / "__init__.py").write_text(textwrap.dedent(code), encoding="utf-8")
        written.append(package)
        return site

    yield write
    for name in [m for m in sys.modules if m.split(".")[0] in written]:
        del sys.modules[name]


def load_with(monkeypatch, *plugins: Point) -> None:
    """`load_benchmarks` over the installed entry points and `plugins`, from a fresh start."""
    points = [*importlib.metadata.entry_points(group=registry.ENTRY_POINT_GROUP), *plugins]
    monkeypatch.setattr(registry, "entry_points", lambda group: points)
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "load_errors", [])
    registry.load_benchmarks()


def test_a_plug_in_registering_a_built_in_command_group_is_refused_and_registers_nothing(
    scratch, plugin_site, monkeypatch
):
    plugin_site(
        "evil_plugin",
        """
        from proseval import kit

        kit.task("evil-task", summary="registered before the clash")(lambda params: None)
        kit.command_group("meeseeks", "evil_plugin.cli:app", summary="not Meeseeks")
    """,
    )
    load_with(monkeypatch, Point("aaa-evil", "evil_plugin", Dist("evil-dist", "1.0")))
    [error] = registry.load_errors
    assert error.startswith(
        "benchmark plug-in 'aaa-evil' (evil_plugin) failed to load: command group 'meeseeks' "
        "is registered twice: by proseval.benchmarks.meeseeks (entry point 'meeseeks' of "
        "proseval "
    )
    assert "and by evil_plugin (entry point 'aaa-evil' of evil-dist 1.0);" in error
    assert "Error" not in error  # the project's words, no exception class
    assert registry.command_groups()["meeseeks"].load.target.startswith("proseval.benchmarks.meeseeks.")
    assert "evil-task" not in registry.tasks()  # a plug-in that failed half-way leaves none of its names


def test_a_plug_in_may_replace_a_built_in_command_group_on_purpose(scratch, plugin_site, monkeypatch):
    plugin_site(
        "kind_plugin",
        """
        from proseval import kit

        kit.command_group("meeseeks", "kind_plugin.cli:app", summary="mine", replace=True)
    """,
    )
    with pytest.warns(
        registry.RegistrationReplacedWarning,
        match=(
            r"^command group 'meeseeks' of proseval\.benchmarks\.meeseeks \(entry point 'meeseeks' of proseval .*\) "
            r"is replaced on purpose by kind_plugin \(entry point 'kind' of kind-dist 2\.0\)$"
        ),
    ):
        load_with(monkeypatch, Point("kind", "kind_plugin", Dist("kind-dist", "2.0")))
    assert registry.load_errors == []
    assert registry.command_groups()["meeseeks"].load == ValueHook("kind_plugin.cli:app")


def test_a_plug_in_command_group_named_like_a_proseval_command_never_hides_it(
    scratch, plugin_site, monkeypatch, capsys
):
    from proseval.cli.commands import benchmark_groups

    plugin_site(
        "shadow_plugin",
        """
        from proseval import kit

        kit.command_group("run", "shadow_plugin.cli:app", summary="not proseval's run")
    """,
    )
    load_with(monkeypatch, Point("shadow", "shadow_plugin", Dist("shadow-dist", "1.0")))
    assert "run" in registry.command_groups()  # registered: no benchmark holds the name
    assert "run" not in {c.name for c in benchmark_groups()}  # but not added over proseval's own command
    said = " ".join(capsys.readouterr().err.split())
    assert (
        "shadow_plugin (entry point 'shadow' of shadow-dist 1.0) registers a command group named 'run', which "
        "is proseval's own command: `proseval run` stays proseval's"
    ) in said


def test_the_built_in_benchmarks_load_before_any_plug_in():
    points = [
        Point("aaa", "aaa_plugin"),
        Point("zeta", "proseval.benchmarks.zeta"),
        Point("beta", "proseval.benchmarks.beta:module"),
        Point("abc", "proseval_abc"),
    ]
    assert [p.name for p in sorted(points, key=registry.load_order)] == ["beta", "zeta", "aaa", "abc"]


# Deprecated kit names under the command line -----------------------------------------------------------
def test_plugin_warnings_are_one_line_per_call_site_and_other_warnings_one_line_without_source(
    tmp_path, monkeypatch, capsys
):
    from proseval.kit._plugin_warnings import show_plugin_warnings

    monkeypatch.setattr(sys, "warnoptions", [])
    monkeypatch.syspath_prepend(str(tmp_path))
    source = "from proseval import kit\nfor _ in range(3):\n    kit.ViewBlock\nkit.RunFolder\n"
    code = compile(source, str(tmp_path / "my_plugin" / "task.py"), "exec")
    shown: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python's default outside __main__
        warnings.showwarning = lambda message, *rest, **kw: shown.append(str(message))
        show_plugin_warnings()
        show_plugin_warnings()  # again: nothing doubled
        exec(code, {"__name__": "my_plugin.task"})  # noqa: S102  # a plug-in's source, run as its module
        warnings.warn("something else", UserWarning, stacklevel=1)
    assert capsys.readouterr().err.splitlines() == [
        f"warning: proseval.kit.ViewBlock is deprecated and goes in proseval {kit.REMOVED_IN}: use "
        "proseval.kit.views.ViewBlock (my_plugin/task.py:3)",
        f"warning: proseval.kit.RunFolder is deprecated and goes in proseval {kit.REMOVED_IN}: use "
        "proseval.kit.runs.RunFolder (my_plugin/task.py:4)",
        "warning: something else",
    ]  # a library's warning: one line, no source path
    assert shown == []


def test_the_users_own_warning_options_are_kept(monkeypatch):
    from proseval.kit._plugin_warnings import show_plugin_warnings

    monkeypatch.setattr(sys, "warnoptions", ["error::DeprecationWarning"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        show_plugin_warnings()
        with pytest.raises(DeprecationWarning, match="proseval.kit.ViewBlock is deprecated"):
            kit.ViewBlock  # noqa: B018  # the look-up is what is tested


def test_proseval_list_names_a_refused_plug_in_and_each_deprecated_use_once(tmp_path):
    site = tmp_path / "site"
    for package, code in {
        "aaa_plugin": (
            'from proseval import kit\n\nkit.task("aaa-task", summary="mine")(lambda params: None)\n'
            'kit.command_group("meeseeks", "aaa_plugin.cli:app", summary="mine")\n'
        ),
        "old_plugin": (
            "from proseval import kit\n\nBlock = kit.ViewBlock\nAgain = kit.ViewBlock\n"
            "for _ in range(2):\n    Folder = kit.RunFolder\n"
        ),
    }.items():
        (site / package).mkdir(parents=True)
        (site / package / "__init__.py").write_text(code, encoding="utf-8")
    dist = site / "proseval_test_plugins-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: proseval-test-plugins\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[proseval.benchmarks]\naaa = aaa_plugin\nold = old_plugin\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"} | {"PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-m", "proseval", "list"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    moved = f"is deprecated and goes in proseval {kit.REMOVED_IN}: use proseval.kit"
    assert done.stderr.splitlines() == [
        f"warning: proseval.kit.ViewBlock {moved}.views.ViewBlock (old_plugin/__init__.py:3)",
        f"warning: proseval.kit.ViewBlock {moved}.views.ViewBlock (old_plugin/__init__.py:4)",
        f"warning: proseval.kit.RunFolder {moved}.runs.RunFolder (old_plugin/__init__.py:6)",
        "warning: benchmark plug-in 'aaa' (aaa_plugin) failed to load: command group 'meeseeks' is registered "
        "twice: by proseval.benchmarks.meeseeks (entry point 'meeseeks' of proseval "
        f"{importlib.metadata.version('proseval')}) and by aaa_plugin (entry point 'aaa' of proseval-test-plugins "
        "1.0); rename one, or remove one of the two packages (an override on purpose passes replace=True)",
    ]
    assert "aaa-task" not in done.stdout and "meeseeks" in done.stdout

"""The benchmarks import nothing the import contracts cannot see, and the kit lends only from below it.

`lint-imports` reads import statements. importlib, `__import__`, exec, pkgutil, an entry point's
`load()`, `sys.modules`, the kit's private lending and a changed `__name__` reach modules without
one; `proseval._importcheck` refuses each in the built-in benchmarks and the template plug-in. The
kit itself imports by string (its lending tables): each lent name is resolved here and its module
held to the layers contract in pyproject.toml.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

import pytest

import proseval.kit
from proseval import _importcheck
from proseval._importcheck import check_package, package_modules, refusals
from proseval.kit import _lazy

ROOT = Path(__file__).resolve().parents[2]
# (where module names start, the package checked): the built-in benchmarks and the template plug-in.
CHECKED = ((ROOT / "src", "proseval.benchmarks"), (ROOT / "examples" / "haiku_bench", "proseval_haiku"))
PLANTED_IN = "proseval.benchmarks.mybench.task"  # where the snippets below are checked as if written
KIT = "proseval.kit"


def test_no_benchmark_imports_behind_the_contracts_back():
    assert [len(package_modules(start, package)) > 5 for start, package in CHECKED] == [True, True]
    found = [line for start, package in CHECKED for line in check_package(start, package)]
    assert found == [], "imports lint-imports cannot see (use a plain import statement, or proseval.kit):\n" + (
        "\n".join(found)
    )


@pytest.mark.parametrize(
    "source",
    [
        # importlib, however it is reached
        "import importlib\nimportlib.import_module('proseval.benchmarks.c3ebench.task')",
        "import importlib as il",
        "from importlib import import_module",
        "from importlib import util",
        "import importlib.util\nimportlib.util.module_from_spec(spec)",
        "import importlib.util\nimportlib.util.find_spec('proseval.api.x')",  # imports proseval.api
        "from importlib.util import find_spec",
        "import importlib.util\nimportlib.import_module('x')",
        "import importlib.util\ngetattr(importlib, 'import_module')('x')",
        "import importlib.util as u\nu.spec_from_file_location('x', 'x.py')",
        "from importlib.util import spec_from_file_location",
        "import importlib._bootstrap",
        "from importlib.metadata import EntryPoint\nEntryPoint(name='run', value='proseval.api:run', group='g').load()",
        "from importlib import metadata\nmetadata.EntryPoint('run', 'proseval.api:run', 'g').load()",
        "import importlib.metadata\nimportlib.metadata.entry_points(group='g')",
        "from importlib import metadata\nm = metadata\nm.EntryPoint",
        "from importlib.resources import files\nfiles('proseval.api')",
        "import importlib.resources\nimportlib.resources.files('proseval.api')",
        "from importlib.resources import files\nread = files\nread('proseval.api')",
        "from . import wordlists\nwordlists.files('proseval.api')",
        # builtins that import or run code
        "__import__('proseval.benchmarks.ravel')",
        "import builtins\nbuiltins.__import__('proseval.runtime')",
        "exec('import proseval.api as api')",
        "eval(\"__import__('proseval.api')\")",
        "code = compile('import proseval.api', 'x', 'exec')",
        "globals()['__name__'] = 'proseval.api'",
        "vars(kit)",
        "(lambda: 0).__globals__['__builtins__']",
        "().__class__.__base__.__subclasses__()",
        # modules that import by name
        "import pkgutil\npkgutil.resolve_name('proseval.api:run')",
        "from pkgutil import resolve_name",
        "import runpy\nrunpy.run_module('proseval.api')",
        "import pickle",
        "import pydoc\npydoc.locate('proseval.api')",
        "from pydantic import ImportString",
        # sys.modules and frames
        "import sys\nsys.modules['proseval.api']",
        "import sys as s\ns.modules.get('proseval.api')",
        "from sys import modules",
        "import sys\nsys._getframe(0).f_globals['__name__'] = 'proseval.api'",
        "import inspect\ninspect.currentframe().f_globals",
        "from . import code_checks\ncode_checks.sys.modules",
        # the kit's private modules and what it imports for itself
        "from proseval import kit\nkit.importlib.import_module('proseval.api')",
        "from proseval.kit import importlib",
        "import proseval.kit\nproseval.kit.importlib",
        "import proseval.kit as k\nk._lazy.lend",
        "from proseval.kit._lazy import lend\nlend(__name__, {'api': ('run',)})",
        "from proseval.kit import _lazy",
        "from ...kit._lazy import lend",
        "from proseval.kit.cli import lend",
        "from proseval import kit\ngetattr(kit, 'import' + 'lib')",
        "from proseval import kit\nsetattr(kit, 'task', None)",
        "from proseval import kit\nkit.task = None",
        "from proseval import kit\nspace = kit",
        # a module that says it is another, then registers a hook as that one
        "from proseval import kit\n__name__ = 'proseval.api'\nkit.task('x', render='proseval.api:run')",
        "__package__ = 'proseval'",
        "def f():\n    global __name__\n    __name__ = 'proseval.api'",
        "import proseval.api as __name__",
        "for __name__ in ['proseval.api']:\n    pass",
        # proseval beside the kit
        "from proseval import run",
        "from proseval import *",
        "import proseval\nproseval.run('demo')",
        "import proseval as p\np.api.run",
        "import proseval.kit\nproseval.registry.task",
        "from ... import run",
        "from ...kit import task\nfrom ... import api",
    ],
    ids=lambda source: source.replace("\n", "; "),
)
def test_each_back_door_is_found(source):
    assert refusals(source, PLANTED_IN)


@pytest.mark.parametrize(
    "source",
    [
        "from proseval import kit\nkit.task",
        "from proseval.kit import Sample, Task\nTask.model_fields",
        "import proseval.kit\nproseval.kit.Task",
        "from proseval import kit\nkit.cli.console",
        "from proseval.kit.runs import Results",
        "from proseval.benchmarks.ravel.params import RavelParams",
        "from importlib.resources import files\nfiles(__package__).joinpath('data')",
        "import importlib.resources\nimportlib.resources.files(__name__)",
        "from importlib.resources.abc import Traversable",
        "from importlib import metadata\nmetadata.version('flake8')\nmetadata.PackageNotFoundError",
        "import importlib.metadata\nimportlib.metadata.version('flake8')",
        "from importlib.metadata import version, PackageNotFoundError",
        "def f(tree):\n    compile(tree, '<answer>', 'exec', dont_inherit=True)",  # a syntax check
        "import re\nre.compile('x')",
        "import ast\nast.literal_eval('1')",
        "import sys\nsys.stdout.write(sys.executable)",
        "print(type(x).__name__, __name__, __package__)",
        "if __name__ == '__main__':\n    main()",
        "getattr(item, field)\ngetattr(self, name, None)",
        "from . import params\ngetattr(params, 'MyParams')",
        "def f():\n    from proseval.benchmarks.revision_distance.scoring import revision_distance_scorer",
        "from . import params\nfrom .params import MyParams\nfrom ... import kit",
        "import proseval.benchmarks.mybench.params as params\nparams.MyParams",
    ],
    ids=lambda source: source.replace("\n", "; "),
)
def test_what_a_benchmark_may_import_passes(source):
    assert refusals(source, PLANTED_IN) == []


def test_an_exempt_call_passes_only_as_written_and_only_where_it_is_listed():
    ((module, call),) = _importcheck.EXEMPT
    source = f"import importlib.util\n\n\ndef available(name):\n    return {call} is not None\n"
    assert refusals(source, module) == []
    assert refusals(source, PLANTED_IN)  # elsewhere, refused
    assert {line for line, _ in refusals(source + "importlib.util.find_spec('proseval.api.x')\n", module)} == {6}


def test_a_refusal_names_the_line_and_why():
    source = "from proseval import kit\n\n__name__ = 'proseval.api'\nkit.task('x', render='proseval.api:run')\n"
    assert refusals(source, PLANTED_IN) == [(3, "assignment to __name__: the registry reads it to check hook strings")]


# --- the kit's lending tables against the layers contract -----------------------------------------


def layers() -> list[list[str]]:
    """The layers contract of pyproject.toml, top first: each layer's packages."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return [[name.strip() for name in re.split(r"[|:]", layer)] for layer in contract["layers"]]


def layer_of(module: str, stack: list[list[str]]) -> int | None:
    """The index of the layer holding `module` (0 is the top), or None when no layer does."""
    for index, layer in enumerate(stack):
        if any(module == package or module.startswith(package + ".") for package in layer):
            return index
    return None


def lending_problems(tables: Mapping[str, Mapping[str, tuple[str, ...]]], stack: list[list[str]]) -> list[str]:
    """Each lent name whose module is above the kit's layer, in no layer, or does not hold it."""
    kit_layer = layer_of(KIT, stack)
    problems = []
    for lender, sources in sorted(tables.items()):
        for source, names in sources.items():
            module = f"proseval.{source}"
            layer = layer_of(module, stack)
            if layer is None or kit_layer is None or layer < kit_layer:
                problems.append(f"{lender} lends {', '.join(names)} from {module}, above the kit's layer")
                continue
            problems += [
                f"{lender}: {module} has no {name}"
                for name in names
                if not hasattr(importlib.import_module(module), name)
            ]
    return problems


def kit_modules() -> list[str]:
    return [f"{KIT}.{info.name}" for info in pkgutil.iter_modules(proseval.kit.__path__)]


def test_every_name_the_kit_lends_resolves_at_or_below_its_layer():
    for module in kit_modules():
        importlib.import_module(module)  # each lends its table when imported
    tables = dict(_lazy.LENT)
    assert {KIT, *(f"{KIT}.{name}" for name in proseval.kit.NAMESPACES)} <= set(tables)
    assert sum(len(names) for sources in tables.values() for names in sources.values()) > 50
    assert lending_problems(tables, layers()) == []


def test_a_table_lending_from_above_the_kit_is_found():
    stack = layers()
    assert lending_problems({"proseval.kit.x": {"api": ("run",)}}, stack) == [
        "proseval.kit.x lends run from proseval.api, above the kit's layer"
    ]
    assert lending_problems({"proseval.kit.x": {"_importcheck": ("refusals",)}}, stack)  # in no layer
    assert lending_problems({"proseval.kit.x": {"core.task": ("NoSuchName",)}}, stack) == [
        "proseval.kit.x: proseval.core.task has no NoSuchName"
    ]


def test_the_modules_the_kit_names_in_strings_are_below_it():
    """`import_module("proseval.registry")` in the kit: a string import the contracts cannot see."""
    stack = layers()
    named = {}
    for path in (ROOT / "src" / "proseval" / "kit").glob("*.py"):
        for value in re.findall(r"[\"'](proseval(?:\.\w+)+)[\"']", path.read_text(encoding="utf-8")):
            named[value] = layer_of(value, stack)
    assert named, "the kit names no module in a string: this test has nothing left to check"
    kit_layer = layer_of(KIT, stack)
    assert {name: layer for name, layer in named.items() if layer is None or layer < kit_layer} == {}


def test_the_exempt_find_spec_is_given_top_level_names_only():
    """`find_spec("a.b")` imports `a`: the exemption holds while every name a rule requires has no dot."""
    from proseval.benchmarks.meeseeks.rules.registry import REGISTRIES

    required = {name for specs in REGISTRIES.values() for spec in specs for name in spec.requires}
    assert len(required) > 5 and [name for name in required if "." in name] == []

"""The benchmarks import nothing the import contracts cannot see.

`lint-imports` reads import statements. `importlib.import_module`, `__import__` and the top-level
package's lazy loader (`proseval.run`, which imports the API on first use) import modules without
one, so a benchmark could reach another benchmark or proseval's internals through them unseen. The
built-in benchmarks and the template plug-in may use importlib only to read resources and metadata
and to ask whether a module is installed (`importlib.util.find_spec`), and reach proseval only
through `proseval.kit`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# (where module names start, the package checked): the built-in benchmarks and the template plug-in.
CHECKED = ((ROOT / "src", "proseval.benchmarks"), (ROOT / "examples" / "haiku_bench", "proseval_haiku"))
PLANTED_IN = "proseval.benchmarks.mybench.task"  # where the snippets below are checked as if written
# What of importlib a benchmark may use: modules (and everything in them) or single names.
IMPORTLIB_MODULES = ("importlib.resources", "importlib.metadata")
IMPORTLIB_NAMES = ("importlib.util.find_spec",)


def allowed(path: str) -> bool:
    """Whether a dotted name reached through an import (`importlib.util.find_spec`, `proseval.kit.Task`)
    is one a benchmark may use."""
    top, _, rest = path.partition(".")
    if top == "proseval":
        return rest == "kit" or rest.startswith("kit.")
    if top == "importlib":
        return any(path == name or path.startswith(name + ".") for name in IMPORTLIB_MODULES) or (
            path in IMPORTLIB_NAMES)
    return True


def dotted(node: ast.expr) -> tuple[str, ...] | None:
    """`a.b.c` as ("a", "b", "c"); None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return (node.id, *reversed(parts)) if isinstance(node, ast.Name) else None


def absolute(node: ast.ImportFrom, module: str, package: bool) -> str:
    """The module a `from ... import` names, relative ones resolved against `module`."""
    if not node.level:
        return node.module or ""
    base = module.split(".")[:len(module.split(".")) - node.level + package]
    return ".".join([*base, *([node.module] if node.module else [])])


def forbidden_imports(tree: ast.Module, module: str, package: bool) -> tuple[list[tuple[int, str]], dict[str, str]]:
    """The import statements a benchmark may not make, and the names bound to importlib or proseval."""
    found, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in ("importlib", "proseval"):
                    continue
                if alias.name == "importlib" or alias.name.startswith("importlib.") and not (
                        allowed(alias.name) or alias.name == "importlib.util"):
                    found.append((node.lineno, f"import {alias.name}"))
                if alias.asname and alias.name.startswith("proseval."):
                    continue  # a module of proseval bound to its own name: an import the contracts see
                local = alias.asname or alias.name.split(".")[0]
                bound[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            source = absolute(node, module, package)
            if source == "proseval" or source.split(".")[0] == "importlib":
                found += [(node.lineno, f"from {source} import {alias.name}") for alias in node.names
                          if not allowed(f"{source}.{alias.name}")]
    return found, bound


def forbidden_uses(source: str, module: str, package: bool = False) -> list[tuple[int, str]]:
    """The (line, what) of each use of importlib, `__import__` or `proseval.X` that a benchmark may not
    make, in the source of `module` (`package`: its `__init__.py`)."""
    tree = ast.parse(source)
    found, bound = forbidden_imports(tree, module, package)
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "__import__" or (
                isinstance(node, ast.Attribute) and node.attr == "__import__"):
            found.append((node.lineno, "__import__"))
        elif isinstance(node, ast.Name) and node.id in bound and id(node) not in inner:
            found.append((node.lineno, f"{bound[node.id]} as a value"))  # getattr(importlib, "import_module")
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            parts = dotted(node)
            if parts and parts[0] in bound and not allowed(path := ".".join((bound[parts[0]], *parts[1:]))):
                found.append((node.lineno, path))
    return sorted(set(found))


def modules() -> list[tuple[Path, str]]:
    """Each module checked, with its dotted name (a package's: its own)."""
    named = []
    for start, package in CHECKED:
        for path in sorted((start / package.replace(".", "/")).rglob("*.py")):
            named.append((path, ".".join(path.relative_to(start).with_suffix("").parts).removesuffix(".__init__")))
    return named


def test_no_benchmark_imports_behind_the_contracts_back():
    found = []
    for path, module in modules():
        for line, what in forbidden_uses(path.read_text(encoding="utf-8"), module, path.name == "__init__.py"):
            found.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert found == [], "imports lint-imports cannot see (use a plain import statement, or proseval.kit):\n" + (
        "\n".join(found))


@pytest.mark.parametrize("source", [
    "import importlib\nimportlib.import_module('proseval.benchmarks.c3ebench.task')",
    "import importlib as il",
    "from importlib import import_module",
    "from importlib import util",
    "import importlib.util\nimportlib.util.module_from_spec(spec)",
    "import importlib.util\nimportlib.import_module('x')",
    "import importlib.util\ngetattr(importlib, 'import_module')('x')",
    "import importlib.util as u\nu.spec_from_file_location('x', 'x.py')",
    "from importlib.util import spec_from_file_location",
    "import importlib._bootstrap",
    "__import__('proseval.benchmarks.ravel')",
    "import builtins\nbuiltins.__import__('proseval.runtime')",
    "from proseval import run",
    "from proseval import *",
    "import proseval\nproseval.run('demo')",
    "import proseval as p\np.api.run",
    "import proseval.kit\nproseval.registry.task",
    "from ... import run",
    "from ...kit import task\nfrom ... import api",
], ids=lambda source: source.replace("\n", "; "))
def test_each_back_door_is_found(source):
    assert forbidden_uses(source, PLANTED_IN)


@pytest.mark.parametrize("source", [
    "from proseval import kit\nkit.task",
    "from proseval.kit import Sample, Task",
    "import proseval.kit\nproseval.kit.Task",
    "from proseval.benchmarks.ravel.params import RavelParams",
    "import importlib.util\nimportlib.util.find_spec('numpy')",
    "from importlib.util import find_spec",
    "from importlib.resources import files",
    "from importlib.resources.abc import Traversable",
    "from importlib import metadata\nmetadata.version('flake8')",
    "import importlib.metadata\nimportlib.metadata.version('flake8')",
    "def f():\n    from proseval.benchmarks.revision_distance.scoring import revision_distance_scorer",
    "from . import params\nfrom .params import MyParams\nfrom ... import kit",
    "import proseval.benchmarks.mybench.params as params\nparams.MyParams",
], ids=lambda source: source.replace("\n", "; "))
def test_what_a_benchmark_may_import_passes(source):
    assert forbidden_uses(source, PLANTED_IN) == []

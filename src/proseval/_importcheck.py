"""A benchmark names no module at run time except in the registry's hook strings.

`lint-imports` holds the benchmarks to the import contracts by reading their import statements.
Python imports without one, too: importlib, `__import__`, code run by `exec`, `eval` or `compile`,
pkgutil, runpy, an entry point's `load()`, `importlib.resources.files("package")`, a look-up in
`sys.modules`, a frame's globals, the kit's private modules (`proseval.kit._lazy.lend` imports any
module it is told); and a module whose `__name__` is changed before it registers a hook passes the
registry's check of the hook string as another package. `refusals` finds each of these in the source
of one module, `check_package` in every module of a package (a built-in benchmark's or a plug-in's).

What stays allowed imports nothing: the version of an installed distribution
(`importlib.metadata.version`), the package's own data files (`importlib.resources.files` of
`__package__` or `__name__`), `compile()` whose result is thrown away (a syntax check), and the
calls listed in `EXEMPT`, each with why it is safe. The check reads names, so it is a guard against
the usual routes, not a proof: the contracts and the registry's checks still hold the rest.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path

Found = list[tuple[int, str]]

CONTRACTS = "imports a module the import contracts cannot see"
# Modules a benchmark may not import at all: each imports modules named by a string (or runs code).
FORBIDDEN_MODULES = frozenset(
    {
        "builtins",
        "code",
        "codeop",
        "ctypes",
        "imp",
        "importlib_metadata",
        "importlib_resources",
        "marshal",
        "pickle",
        "pkg_resources",
        "pkgutil",
        "pydoc",
        "runpy",
        "shelve",
        "zipimport",
    }
)
# Names of importlib a benchmark may use: none of them imports a module.
IMPORTLIB_ALLOWED = frozenset(
    {
        "importlib.metadata.version",
        "importlib.metadata.PackageNotFoundError",
        "importlib.resources.files",
        "importlib.resources.abc.Traversable",
    }
)
# Names in other modules that import or run code named by a string, or reach a module's globals.
FORBIDDEN_PATHS = frozenset(
    {
        "sys.modules",
        "sys._getframe",
        "sys.meta_path",
        "sys.path_hooks",
        "sys.path_importer_cache",
        "types.CodeType",
        "types.FunctionType",
        "types.LambdaType",
        "operator.attrgetter",
        "operator.methodcaller",
        "pydantic.ImportString",
        "pydantic.types.ImportString",
        "logging.config",
        "unittest.mock",
        "inspect.getmodule",
    }
)
# Built-in names that import, run code or hand out a module's namespace.
FORBIDDEN_NAMES = frozenset(
    {
        "__import__",
        "exec",
        "eval",
        "compile",
        "globals",
        "vars",
        "__builtins__",
        "__loader__",
        "__spec__",
    }
)
# Attributes refused on anything: importing by name, a module's namespace, a frame's globals.
FORBIDDEN_ATTRIBUTES = frozenset(
    {
        "__import__",
        "import_module",
        "importlib",
        "pkgutil",
        "runpy",
        "resolve_name",
        "run_module",
        "run_path",
        "find_spec",
        "module_from_spec",
        "spec_from_file_location",
        "spec_from_loader",
        "exec_module",
        "load_module",
        "EntryPoint",
        "entry_points",
        "modules",
        "_getframe",
        "meta_path",
        "path_hooks",
        "__globals__",
        "__builtins__",
        "__dict__",
        "__subclasses__",
        "__bases__",
        "__base__",
        "__mro__",
        "__loader__",
        "__spec__",
        "__code__",
        "__getattribute__",
        "f_globals",
        "f_locals",
        "f_builtins",
    }
)
# A module's own globals that say which module it is: the registry reads `__name__` to check hooks.
MODULE_GLOBALS = frozenset({"__name__", "__package__", "__path__", "__spec__", "__loader__", "__builtins__"})
OWN_PACKAGE = ("__package__", "__name__")  # what `importlib.resources.files` may be given
ATTRIBUTE_CALLS = frozenset({"getattr", "hasattr", "setattr", "delattr"})
# (module, call as written): reviewed calls that the rules above would refuse, and why each is safe.
EXEMPT = {
    (
        "proseval.benchmarks.meeseeks.rules.registry",
        "importlib.util.find_spec(name)",
    ): "asks whether a rule's optional package is installed; its names are top-level packages, which "
    "find_spec looks up without importing",
}


@lru_cache(maxsize=1)
def kit_names() -> dict[str, frozenset[str]]:
    """The names `proseval.kit` and each of its namespaces lend (what `dir()` lists of each)."""
    import proseval.kit as kit

    names = {"proseval.kit": frozenset(dir(kit))}
    for namespace in kit.NAMESPACES:
        names[f"proseval.kit.{namespace}"] = frozenset(dir(getattr(kit, namespace)))
    return names


def _kit_refusal(parts: list[str]) -> str | None:
    """Why `proseval.kit...` (split at its dots) is refused: a name the kit, or its namespace, does not lend."""
    names = kit_names()
    for depth in (3, 4):
        space = ".".join(parts[: depth - 1])
        if len(parts) < depth or space not in names:
            return None
        if parts[depth - 1] not in names[space]:
            return f"{'.'.join(parts[:depth])}: not a name {space} lends"
    return None


def _within(path: str, names: frozenset[str]) -> bool:
    return any(path == name or path.startswith(name + ".") for name in names)


def _path_refusal(path: str, importing: bool = False, exempt: frozenset[str] = frozenset()) -> str | None:
    """Why the dotted name `path` may not be imported (`importing`) or used by a benchmark, or None."""
    parts = path.split(".")
    if parts[0] == "proseval":
        return _proseval_refusal(parts)
    if parts[0] == "importlib":
        return _importlib_refusal(path, importing, exempt)
    if parts[0] in FORBIDDEN_MODULES or _within(path, FORBIDDEN_PATHS):
        return f"{path}: {CONTRACTS}"
    return None


def _proseval_refusal(parts: list[str]) -> str | None:
    """A benchmark reaches proseval through the names the kit lends (and other benchmarks, which the
    contracts see)."""
    if len(parts) == 1 or parts[1] == "benchmarks":
        return None
    if parts[1] == "kit":
        return _kit_refusal(parts)
    return f"{'.'.join(parts)}: reach proseval through proseval.kit"


def _importlib_refusal(path: str, importing: bool, exempt: frozenset[str]) -> str | None:
    """An import may name a module on the way to an allowed name (`import importlib.metadata`) or to
    one of the module's `exempt` calls; a use must reach an allowed name itself."""
    allowed = IMPORTLIB_ALLOWED | exempt if importing else IMPORTLIB_ALLOWED
    on_the_way = importing and "." in path and any(name.startswith(path + ".") for name in allowed)
    return None if on_the_way or _within(path, allowed) else f"{path}: {CONTRACTS}"


def _absolute(node: ast.ImportFrom, module: str, package: bool) -> str:
    """The module a `from ... import` names, relative ones resolved against `module`."""
    if not node.level:
        return node.module or ""
    base = module.split(".")[: len(module.split(".")) - node.level + package]
    return ".".join([*base, *([node.module] if node.module else [])])


def _aliases(node: ast.AST, module: str, package: bool) -> Iterator[tuple[str, str | None, str]]:
    """For each name an import statement imports: the dotted name, the name it binds (None: none) and
    what that name stands for (`import a.b` binds `a`, `a`)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            local = alias.asname or alias.name.split(".")[0]
            yield alias.name, local, alias.name if alias.asname else local
    elif isinstance(node, ast.ImportFrom):
        source = _absolute(node, module, package)
        for alias in node.names:  # `*` too: a name no module lends
            path = f"{source}.{alias.name}"
            yield path, None if alias.name == "*" else alias.asname or alias.name, path


def _imports(nodes: Sequence[ast.AST], module: str, package: bool) -> tuple[Found, dict[str, str]]:
    """The import statements refused, and each name an import binds with the dotted name it stands for."""
    exempt = _exempt_paths(module)
    found: Found = []
    bound: dict[str, str] = {}
    for node in nodes:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        for path, local, stands_for in _aliases(node, module, package):
            if reason := _path_refusal(path, True, exempt):
                found.append((node.lineno, reason))
            if local is not None:
                bound[local] = stands_for
    return found, bound


def _dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else None


def _root(node: ast.expr) -> ast.expr:
    """The name an attribute chain or a `getattr(...)` chain starts from."""
    while True:
        if isinstance(node, ast.Attribute):
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ATTRIBUTE_CALLS
            and node.args
        ):
            node = node.args[0]
        else:
            return node


def _is_module(path: str) -> bool:
    """Whether `path` is a module whose namespace a benchmark may not hold as a value."""
    parts = path.split(".")
    if parts[0] in ("sys", "types", "operator") and len(parts) == 1:
        return True
    if parts[0] == "importlib":
        return path not in IMPORTLIB_ALLOWED
    return (
        parts[0] == "proseval"
        and (len(parts) == 1 or parts[1] != "benchmarks")
        and (len(parts) <= 2 or path in kit_names())
    )


def _own_package_files(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether `node` is the function of a call `files(__package__)` or `files(__name__)`."""
    call = parents.get(id(node))
    return (
        isinstance(call, ast.Call)
        and call.func is node
        and not call.keywords
        and len(call.args) == 1
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id in OWN_PACKAGE
    )


def _use_refusal(path: str, node: ast.AST, parents: dict[int, ast.AST], value: bool) -> str | None:
    """Why a use of the dotted name `path` (`value`: not as the start of an attribute) is refused."""
    if path == "importlib.resources.files" and not _own_package_files(node, parents):
        return f"{path}: only of the package's own data ({path}(__package__))"
    if reason := _path_refusal(path):
        return reason
    return f"{path} as a value: {CONTRACTS} through it" if value and _is_module(path) else None


def _names_used(
    nodes: Sequence[ast.AST], bound: dict[str, str], parents: dict[int, ast.AST], exempt: set[int]
) -> Iterator[tuple[int, str]]:
    """Uses of a name an import bound, and of the built-ins and attributes that import or run code
    (but in `exempt` nodes)."""
    bases = {id(node.value) for node in nodes if isinstance(node, ast.Attribute)}
    for node in nodes:
        if id(node) in exempt:
            continue
        if isinstance(node, ast.Attribute):
            yield from _attribute_refusals(node, bound, parents, id(node) not in bases)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in bases:
            yield from _name_refusals(node, bound, parents)


def _attribute_refusals(
    node: ast.Attribute, bound: dict[str, str], parents: dict[int, ast.AST], outermost: bool
) -> Iterator[tuple[int, str]]:
    """An attribute refused on anything; the whole `a.b.c` (`outermost`) of a name an import bound."""
    if node.attr in FORBIDDEN_ATTRIBUTES:
        yield node.lineno, f".{node.attr}: {CONTRACTS}"
    parts = _dotted(node) if outermost else None
    if parts and parts[0] in bound:
        if reason := _use_refusal(".".join([bound[parts[0]], *parts[1:]]), node, parents, True):
            yield node.lineno, reason


def _name_refusals(node: ast.Name, bound: dict[str, str], parents: dict[int, ast.AST]) -> Iterator[tuple[int, str]]:
    """A name an import bound, used as a value; a built-in that imports or runs code."""
    if node.id in bound:
        if reason := _use_refusal(bound[node.id], node, parents, True):
            yield node.lineno, reason
    elif node.id in FORBIDDEN_NAMES and not _discarded_compile(node, parents):
        yield node.lineno, f"{node.id}: {CONTRACTS}"


def _data_files(
    nodes: Sequence[ast.AST], bound: dict[str, str], parents: dict[int, ast.AST]
) -> Iterator[tuple[int, str]]:
    """`module.files(...)` of a module an import bound (one that holds `importlib.resources.files`)
    called with anything but the package's own name."""
    for node in nodes:
        if isinstance(node, ast.Attribute) and node.attr == "files" and isinstance(parents.get(id(node)), ast.Call):
            root = _root(node)
            if isinstance(root, ast.Name) and root.id in bound and not _own_package_files(node, parents):
                yield node.lineno, f"{ast.unparse(node)}: only of the package's own data (files(__package__))"


def _discarded_compile(node: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """`compile(...)` as a statement of its own: a syntax check whose code object nothing can run."""
    call = parents.get(id(node))
    return (
        node.id == "compile"
        and isinstance(call, ast.Call)
        and call.func is node
        and isinstance(parents.get(id(call)), ast.Expr)
    )


def _attribute_call(node: ast.AST, bound: dict[str, str]) -> tuple[ast.Call, str] | None:
    """`node` and the built-in's name when it is `getattr(x, name, ...)`, `hasattr`, `setattr` or `delattr`."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ATTRIBUTE_CALLS
        and node.func.id not in bound
        and len(node.args) >= 2
    ):
        return node, node.func.id
    return None


def _attribute_calls(nodes: Sequence[ast.AST], bound: dict[str, str]) -> Iterator[tuple[int, str]]:
    """`getattr(x, "name")` and its kin: a name refused as an attribute, or a name of a module an
    import bound (the kit, sys) that is computed or set."""
    for any_node in nodes:
        if (found := _attribute_call(any_node, bound)) is None:
            continue
        node, call = found
        name = node.args[1]
        attribute = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
        constant = attribute is not None
        if attribute in FORBIDDEN_ATTRIBUTES:
            yield node.lineno, f"{call}(..., {attribute!r}): {CONTRACTS}"
        root = _root(node.args[0])
        if isinstance(root, ast.Name) and root.id in bound and (not constant or call in ("setattr", "delattr")):
            yield node.lineno, f"{call}({root.id}, ...): a computed name of an imported module"


_BINDERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)


def _bound_names(node: ast.AST) -> list[str]:
    """The names a node binds or deletes in its scope."""
    if isinstance(node, ast.Name):
        return [node.id] if isinstance(node.ctx, (ast.Store, ast.Del)) else []
    if isinstance(node, ast.alias):
        return [node.asname or node.name.split(".")[0]]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    name = node.rest if isinstance(node, ast.MatchMapping) else getattr(node, "name", None)
    return [name] if isinstance(node, (*_BINDERS, ast.MatchMapping)) and isinstance(name, str) else []


def _assignments(nodes: Sequence[ast.AST], bound: dict[str, str]) -> Iterator[tuple[int, str]]:
    """A module global that says which module this is, rebound; an attribute of an imported module set."""
    for node in nodes:
        for name in _bound_names(node):
            if name in MODULE_GLOBALS:
                yield getattr(node, "lineno", 0), f"assignment to {name}: the registry reads it to check hook strings"
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = _root(node)
            if isinstance(root, ast.Name) and root.id in bound and _is_module(bound[root.id]):
                yield node.lineno, f"{bound[root.id]}: an imported module changed"


def _exempt_calls(module: str) -> list[ast.expr]:
    """The calls `EXEMPT` lists for `module`, parsed."""
    return [ast.parse(call, mode="eval").body for where, call in EXEMPT if where == module]


def _exempt_paths(module: str) -> frozenset[str]:
    """The dotted names of the functions `module`'s exempt calls call."""
    return frozenset(ast.unparse(call.func) for call in _exempt_calls(module) if isinstance(call, ast.Call))


def _exempt_nodes(nodes: Sequence[ast.AST], module: str) -> set[int]:
    """The nodes inside the calls `EXEMPT` lists for `module`, written exactly as listed."""
    listed = {ast.dump(call) for call in _exempt_calls(module)}
    if not listed:
        return set()
    calls = [node for node in nodes if isinstance(node, ast.Call) and ast.dump(node) in listed]
    return {id(inner) for call in calls for inner in ast.walk(call)}


def refusals(source: str, module: str, package: bool = False) -> Found:
    """The (line, what and why) of each way the source of `module` (`package`: its `__init__.py`)
    could import a module that the import contracts cannot see, sorted."""
    nodes = list(ast.walk(ast.parse(source)))  # walked once; each check goes over the list
    parents = {id(child): node for node in nodes for child in ast.iter_child_nodes(node)}
    found, bound = _imports(nodes, module, package)
    found += _names_used(nodes, bound, parents, _exempt_nodes(nodes, module))
    found += _attribute_calls(nodes, bound)
    found += _data_files(nodes, bound, parents)
    found += _assignments(nodes, bound)
    return sorted(set(found))


def package_modules(start: Path, package: str) -> list[tuple[Path, str]]:
    """Each module of `package` (found under the folder `start`), with its dotted name (a package's: its own)."""
    named = []
    for path in sorted((start / package.replace(".", "/")).rglob("*.py")):
        named.append((path, ".".join(path.relative_to(start).with_suffix("").parts).removesuffix(".__init__")))
    return named


def check_package(start: Path, package: str) -> list[str]:
    """`path:line: what` for each refusal in the modules of `package` under `start`."""
    found = []
    for path, module in package_modules(start, package):
        for line, what in refusals(path.read_text(encoding="utf-8"), module, path.name == "__init__.py"):
            found.append(f"{path.relative_to(start)}:{line}: {what}")
    return found

"""Child side of the sandbox: runs one untrusted function and prints one JSON result.

This file is executed as a script by ``python -I -S -B`` in a throw-away working directory;
it imports nothing from proseval. It is the only place in the project that executes model
text. Protocol: a JSON object on stdin (``code``, ``function``, ``text``, ``split_namespace``,
``limits``); one JSON object on stdout, ``{"status": "ok", "value": ...}`` or
``{"status": "error", "kind": ..., "error": ...}``.

Defences, from strongest to weakest (the Python-level ones are best effort, the kernel
limits are what actually contain a determined escape):

1. kernel limits set before the untrusted code is even parsed: address space, CPU time,
   no core dumps, file size 0, and a file-descriptor ceiling of 3 so that no file, socket,
   pipe or dynamically linked program can be opened at all;
2. the code is rejected before it runs if it touches private or dunder attributes or frame
   internals (the usual routes out of a restricted namespace);
3. it runs with a reduced set of builtins (no ``open``, ``eval``, ``exec``, ``compile``,
   ``input``, ``breakpoint``, ...; ``print`` discards) and an import hook that only hands out
   read-only views of a few pre-loaded pure-computation modules.
"""

import ast
import builtins
import collections
import collections.abc
import functools
import itertools
import json
import math
import re
import resource
import string
import sys
import textwrap
import types
import typing
import unicodedata

_MODULE_ALLOWLIST = {
    "re": re,
    "json": json,
    "math": math,
    "string": string,
    "itertools": itertools,
    "collections": collections,
    "collections.abc": collections.abc,
    "functools": functools,
    "unicodedata": unicodedata,
    "textwrap": textwrap,
    "typing": typing,
}
# Public names that would still let code evaluate strings or reach attributes by name.
_MODULE_DENIED_NAMES = {"string": {"Formatter"}}
# Only annotation helpers: `typing.get_type_hints` and `ForwardRef` evaluate strings.
_TYPING_NAMES = {
    "Any", "Callable", "Dict", "Iterable", "Iterator", "List", "Match", "Optional",
    "Pattern", "Sequence", "Set", "Tuple", "Union",
}
_FRAME_ATTRIBUTES = {
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame",
    "ag_code", "ag_await", "f_back", "f_globals", "f_locals", "f_builtins", "f_code",
    "tb_frame", "tb_next", "mro",
}
_DENIED_BUILTINS = {
    "open", "eval", "exec", "compile", "__import__", "input", "breakpoint", "help",
    "globals", "locals", "vars", "getattr", "setattr", "delattr", "dir", "memoryview",
    "exit", "quit", "copyright", "credits", "license", "__loader__", "__spec__",
    "__package__", "__doc__",
}


class SandboxViolation(PermissionError):
    """An operation the sandbox forbids."""


class ForbiddenImport(ImportError):
    """An import outside the allowlist."""


_violations = []


def _forbid(message, exc_type=SandboxViolation):
    _violations.append(message)
    raise exc_type(message)


def _attribute_allowed(name):
    return not name.startswith("_") and name not in _FRAME_ATTRIBUTES


def _check_source(tree):
    """Reject code that names private/dunder attributes, dunder globals or frame internals."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not _attribute_allowed(node.attr):
            return f"access to attribute {node.attr!r} is not allowed"
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            return f"use of name {node.id!r} is not allowed"
        if isinstance(node, ast.MatchClass):
            for attr in node.kwd_attrs:
                if not _attribute_allowed(attr):
                    return f"access to attribute {attr!r} is not allowed"
    return None


def _module_view(name, module):
    """A read-only-ish namespace with the module's public, non-module attributes."""
    if name == "typing":
        names = _TYPING_NAMES
    else:
        names = {n for n in vars(module) if not n.startswith("_")}
        names -= _MODULE_DENIED_NAMES.get(name, set())
    public = {}
    for attr in sorted(names):
        value = getattr(module, attr, None)
        if isinstance(value, types.ModuleType):
            if value.__name__ in _MODULE_ALLOWLIST:
                public[attr] = _module_view(value.__name__, value)
            continue
        public[attr] = value
    return types.SimpleNamespace(**public)


_VIEWS = {name: _module_view(name, module) for name, module in _MODULE_ALLOWLIST.items()}


def _restricted_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level != 0 or name not in _VIEWS:
        _forbid(f"import of {name!r} is not allowed", ForbiddenImport)
    if fromlist:
        return _VIEWS[name]
    return _VIEWS[name.partition(".")[0]]


def _denied(name):
    def stub(*args, **kwargs):
        _forbid(f"{name}() is not allowed")

    stub.__name__ = name
    return stub


def _safe_getattr(obj, name, *default):
    if not isinstance(name, str) or not _attribute_allowed(name):
        _forbid(f"access to attribute {name!r} is not allowed")
    return getattr(obj, name, *default)


def _safe_hasattr(obj, name):
    return isinstance(name, str) and _attribute_allowed(name) and hasattr(obj, name)


def _restricted_builtins():
    allowed = {k: v for k, v in vars(builtins).items() if k not in _DENIED_BUILTINS}
    for name in ("open", "eval", "exec", "compile", "input", "breakpoint", "globals",
                 "locals", "vars", "setattr", "delattr"):
        allowed[name] = _denied(name)
    allowed["__import__"] = _restricted_import
    allowed["getattr"] = _safe_getattr
    allowed["hasattr"] = _safe_hasattr
    allowed["print"] = lambda *args, **kwargs: None
    return allowed


def _block_sockets():
    """Make `socket`/`_socket` unimportable even through the real import machinery."""
    for name in ("socket", "_socket", "ssl", "_ssl", "select", "selectors"):
        sys.modules[name] = None


def _apply_limits(limits):
    memory = int(limits["memory_bytes"])
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    # stdin, stdout and stderr are fds 0-2: no new descriptor of any kind can be created.
    resource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))


def _run(payload):
    tree = ast.parse(payload["code"], filename="<extraction code>")
    problem = _check_source(tree)
    if problem:
        return {"status": "error", "kind": "forbidden", "error": problem}
    code = compile(tree, "<extraction code>", "exec")
    namespace = {"__builtins__": _restricted_builtins(), "__name__": "__sandbox__",
                 "re": _VIEWS["re"]}
    local_names = {} if payload.get("split_namespace") else namespace
    exec(code, namespace, local_names)  # noqa: S102 - the sandboxed execution itself
    function = local_names.get(payload["function"])
    if not callable(function):
        return {"status": "error", "kind": "exception",
                "error": f"the code does not define a function {payload['function']!r}"}
    return {"status": "ok", "value": function(payload["text"])}


def _describe(exc):
    try:
        text = f"{type(exc).__name__}: {exc}"
    except BaseException:  # noqa: BLE001, B036 - a user-defined __str__ may fail
        text = type(exc).__name__
    return text if len(text) <= 500 else text[:500] + "..."


def _error(kind, message):
    return json.dumps({"status": "error", "kind": kind, "error": message}).encode("ascii")


def _outcome(payload):
    """Run the payload and encode its result; every failure becomes an error record."""
    try:
        result = _run(payload)
    except MemoryError:
        return _MEMORY_ERROR
    except BaseException as exc:  # noqa: BLE001, B036 - every failure of untrusted code is a result
        if _violations:
            return _error("forbidden", _violations[0])
        return _error("exception", _describe(exc))
    try:
        return json.dumps(result, ensure_ascii=True).encode("ascii")
    except MemoryError:
        return _MEMORY_ERROR
    except (TypeError, ValueError, RecursionError) as exc:
        return _error("bad_result", f"result is not JSON data: {_describe(exc)}")


_MEMORY_ERROR = b'{"status": "error", "kind": "memory", "error": "MemoryError"}'
_TOO_LARGE = b'{"status": "error", "kind": "bad_result", "error": "result too large"}'


def main():
    out = sys.stdout.buffer
    payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    limits = payload["limits"]
    _block_sockets()
    _apply_limits(limits)
    encoded = _outcome(payload)
    if len(encoded) > int(limits["max_output_bytes"]):
        encoded = _TOO_LARGE
    out.write(encoded)
    out.flush()


if __name__ == "__main__":
    main()

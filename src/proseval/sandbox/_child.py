"""Child side of the sandbox: runs one untrusted function and prints one JSON result.

This file is executed as a script by ``python -I -S -B`` in a throw-away working directory;
it imports nothing from proseval. It is the only place in the project that executes model
text. Protocol: a JSON object on stdin (``code``, ``function``, ``text``, ``split_namespace``,
``limits``, ``isolation``); one JSON object on stdout, ``{"status": "ok", "value": ...}`` or
``{"status": "error", "kind": ..., "error": ...}``, both with the isolation ``layers`` applied.

The boundary is the operating system's, set up before the untrusted code is even parsed
(see ``isolation.py``): a network namespace, the ``nobody`` user when started as root, a
parent-death signal, rlimits (address space, CPU, file size 0, no new descriptors or
processes), Landlock (no file system, no TCP, no signals out), and last a seccomp allow-list
that leaves only computation, memory, the clock and writes to stdout/stderr. The child
checks that the filter holds (opening ``/`` must fail) and refuses to run code otherwise.

The Python-level restrictions below (a source check for private attributes, reduced
builtins, an import allow-list of read-only module views) are a friendly pre-check that
gives clear errors for ordinary mistakes; they are not the security boundary.
"""

import ast
import builtins
import collections
import collections.abc
import ctypes
import functools
import itertools
import json
import math
import os
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
    "Any",
    "Callable",
    "Dict",
    "Iterable",
    "Iterator",
    "List",
    "Match",
    "Optional",
    "Pattern",
    "Sequence",
    "Set",
    "Tuple",
    "Union",
}
_FRAME_ATTRIBUTES = {
    "gi_frame",
    "gi_code",
    "gi_yieldfrom",
    "cr_frame",
    "cr_code",
    "cr_await",
    "ag_frame",
    "ag_code",
    "ag_await",
    "f_back",
    "f_globals",
    "f_locals",
    "f_builtins",
    "f_code",
    "tb_frame",
    "tb_next",
    "mro",
}
_DENIED_BUILTINS = {
    "open",
    "eval",
    "exec",
    "compile",
    "__import__",
    "input",
    "breakpoint",
    "help",
    "globals",
    "locals",
    "vars",
    "getattr",
    "setattr",
    "delattr",
    "dir",
    "memoryview",
    "exit",
    "quit",
    "copyright",
    "credits",
    "license",
    "__loader__",
    "__spec__",
    "__package__",
    "__doc__",
}


class SandboxViolation(PermissionError):
    """An operation the sandbox forbids."""


class ForbiddenImport(ImportError):
    """An import outside the allowlist."""


_violations: list[str] = []


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
    for name in (
        "open",
        "eval",
        "exec",
        "compile",
        "input",
        "breakpoint",
        "globals",
        "locals",
        "vars",
        "setattr",
        "delattr",
    ):
        allowed[name] = _denied(name)
    allowed["__import__"] = _restricted_import
    allowed["getattr"] = _safe_getattr
    allowed["hasattr"] = _safe_hasattr
    allowed["print"] = lambda *args, **kwargs: None
    return allowed


def _block_sockets():
    """Make `socket`/`_socket` unimportable even through the real import machinery."""
    for name in ("socket", "_socket", "ssl", "_ssl", "select", "selectors"):
        sys.modules[name] = None  # type: ignore[assignment]  # None in sys.modules: the import fails


# --- operating-system isolation (Linux) -------------------------------------------------------

_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_LANDLOCK_CREATE_RULESET = 444
_LANDLOCK_RESTRICT_SELF = 446
_NOBODY = 65534


class SetupError(OSError):
    """Isolation that was asked for could not be applied: no untrusted code runs."""


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _checked(result, what):
    if result != 0:
        raise SetupError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")


def _new_network_namespace(libc, as_root):
    """No network: a namespace with only a down loopback (user namespace first when not root)."""
    flags = _CLONE_NEWNET if as_root else _CLONE_NEWUSER | _CLONE_NEWNET
    return libc.unshare(ctypes.c_int(flags)) == 0


def _drop_to_nobody():
    os.setgroups([])
    os.setresgid(_NOBODY, _NOBODY, _NOBODY)
    os.setresuid(_NOBODY, _NOBODY, _NOBODY)


def _apply_limits(limits):
    memory = int(limits["memory_bytes"])
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    # Only stdout and stderr remain open (fds 1-2): no new descriptor of any kind.
    resource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


class _LandlockRuleset(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


def _landlock(libc, abi):
    """Deny every file-system access (and TCP, and signals out, where the ABI knows them)."""
    fs_bits = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}.get(abi, 16)
    ruleset = _LandlockRuleset((1 << fs_bits) - 1, 0b11 if abi >= 4 else 0, 0b11 if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    fd = libc.syscall(
        ctypes.c_long(_LANDLOCK_CREATE_RULESET), ctypes.byref(ruleset), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if fd < 0:
        raise SetupError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        _checked(
            libc.syscall(ctypes.c_long(_LANDLOCK_RESTRICT_SELF), ctypes.c_int(fd), ctypes.c_uint32(0)),
            "landlock_restrict_self",
        )
    finally:
        os.close(fd)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _seccomp(libc, program):
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    _checked(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp filter")
    try:
        os.close(os.open("/", os.O_RDONLY))
    except PermissionError:
        return
    raise SetupError(0, "the seccomp filter is not in force: opening / succeeded")


def _isolate(settings, limits, parent):
    """Apply every layer the parent asked for, in order; returns the names of those applied."""
    layers = []
    libc = _libc()
    as_root = os.geteuid() == 0
    if _new_network_namespace(libc, as_root):
        layers.append("network namespace")
    if settings.get("drop_to_nobody") and as_root:
        _drop_to_nobody()
        layers.append("unprivileged user")
    # After any change of credentials, which clears it.
    _checked(libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0), "parent-death signal")
    if os.getppid() != parent:
        raise SetupError(0, "the evaluating process is gone")
    _apply_limits(limits)
    layers.append("rlimits")
    _checked(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if settings.get("landlock_abi"):
        _landlock(libc, int(settings["landlock_abi"]))
        layers.append("landlock")
    if settings.get("seccomp_bpf"):
        _seccomp(libc, bytes.fromhex(settings["seccomp_bpf"]))
        layers.append("seccomp")
    return layers


def _run(payload):
    tree = ast.parse(payload["code"], filename="<extraction code>")
    guards = payload.get("python_guards", True)
    problem = _check_source(tree) if guards else None
    if problem:
        return {"status": "error", "kind": "forbidden", "error": problem}
    code = compile(tree, "<extraction code>", "exec")
    if guards:
        namespace = {"__builtins__": _restricted_builtins(), "__name__": "__sandbox__", "re": _VIEWS["re"]}
    else:  # the code gets what an escape would give it: real builtins and modules
        namespace = {"__builtins__": builtins, "__name__": "__sandbox__", "re": re}
    local_names = {} if payload.get("split_namespace") else namespace
    exec(code, namespace, local_names)  # noqa: S102 - the sandboxed execution itself
    function = local_names.get(payload["function"])
    if not callable(function):
        return {
            "status": "error",
            "kind": "exception",
            "error": f"the code does not define a function {payload['function']!r}",
        }
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
_TOO_LARGE = b'{"status": "error", "kind": "output_too_large", "error": "result too large"}'


def main():
    out = sys.stdout.buffer
    payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    os.close(0)
    limits = payload["limits"]
    _block_sockets()
    try:
        layers = _isolate(payload["isolation"], limits, int(payload["parent"]))
    except (OSError, ValueError) as exc:
        out.write(_error("sandbox_error", f"isolation could not be applied: {exc}"))
        out.flush()
        return
    encoded = _outcome(payload)
    if len(encoded) > int(limits["max_output_bytes"]):
        encoded = _TOO_LARGE
    out.write(encoded[:-1] + b', "layers": ' + json.dumps(layers).encode("ascii") + b"}")
    out.flush()


if __name__ == "__main__":
    main()

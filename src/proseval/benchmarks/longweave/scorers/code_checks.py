"""The per-answer work of the CF scorer, done for many code strings in a few worker processes.

For each code string: does it compile (``compile()`` of the parsed module; nothing is
executed), how many top-level functions it defines, and, if it compiles, its flake8
violations per code. flake8 checks a temporary ``.py`` file with its own file checker and
style guide, as a ``flake8`` command line would, with plugins loaded once per process; it gets
the tree already parsed for the compile check, and skips the second tokenization it does only to
place ``noqa`` comments when the file has none (the counts are the same; see `_Checker`).

With one process everything runs here. With more, worker subprocesses (this module run as a
script: it imports only the standard library and flake8) take one file at a time as soon as
they are free, so a batch costs about as much as one parallel ``flake8`` run over the same
files. Nothing is forked from the caller: callers need no main-module guard.

A batch checks each distinct code string once, and can check it under several settings at once
(`check_sources_under`): flake8's checkers run once per distinct selection, and settings that
differ only in the codes they ignore share that run (which violations count is decided after it,
by each settings' own style guide), so the official and the fixed settings cost about one check.
"""

from __future__ import annotations

import argparse
import ast
import atexit
import gc
import itertools
import json
import operator
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from typing import Any

from flake8.checker import FileChecker
from flake8.formatting.base import BaseFormatter
from flake8.options.parse_args import parse_args
from flake8.style_guide import DecisionEngine, StyleGuideManager
from flake8.violation import Violation

#: The families the official CF scorer selects.
CF_SELECT = ("E", "W", "F", "B", "N", "SIM", "C4")
#: flake8's default extend-ignore list, which an explicit selection switches off.
FLAKE8_DEFAULT_EXTEND_IGNORE = (
    "E121",
    "E123",
    "E126",
    "E226",
    "E24",
    "E704",
    "W503",
    "W504",
)
#: The flake8 stack the official scores were recorded with.
PINNED_VERSIONS = {
    "flake8": "7.2.0",
    "flake8-bugbear": "24.12.12",
    "flake8-comprehensions": "3.16.0",
    "flake8-simplify": "0.21.0",
    "pep8-naming": "0.15.1",
}

_CODE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)
# Every inline suppression comment contains "noqa" (any case); a file without it has none.
_NOQA = re.compile("noqa", re.IGNORECASE)
_TOP_LEVEL_DEF_LINE = re.compile(r"^(?:async[ \t]+)?def ", re.MULTILINE)


@dataclass(frozen=True)
class Flake8Settings:
    """Which codes count. flake8 runs isolated: configuration files are never read."""

    select: tuple[str, ...] = CF_SELECT
    extend_ignore: tuple[str, ...] = FLAKE8_DEFAULT_EXTEND_IGNORE

    def argv(self) -> list[str]:
        args = ["--isolated", "--jobs=1", "--select=" + ",".join(self.select)]
        if self.extend_ignore:
            args.append(_EXTEND_IGNORE + ",".join(self.extend_ignore))
        return args


_EXTEND_IGNORE = "--extend-ignore="


def _run_key(argv: Sequence[str]) -> tuple[str, ...]:
    """What flake8's checkers see of a command line: all of it but the ignore list, which only
    the style guide reads (to decide which of the checkers' violations count)."""
    return tuple(arg for arg in argv if not arg.startswith(_EXTEND_IGNORE))


@dataclass(frozen=True)
class CodeCheck:
    """What the CF scorer needs to know about one code string.

    compile_error: why it does not compile, None if it does.
    functions: top-level ``def``/``async def`` statements (column-0 def lines if it does not
        parse).
    violations: flake8 violations per code; None if the code does not compile or flake8 failed.
    flake8_error: why flake8 failed, if it did.
    original_functions: the same count for the original program, when the check was asked to
        count it too (the pool's workers do, so the main process need not parse it).
    """

    compile_error: str | None
    functions: int
    violations: dict[str, int] | None = None
    flake8_error: str | None = None
    original_functions: int | None = None


def installed_versions() -> dict[str, str | None]:
    """Installed versions of the pinned flake8 stack (`None` for a missing package)."""
    versions: dict[str, str | None] = {}
    for name in PINNED_VERSIONS:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


# CPython 3.11's AST constructor keeps a recursion-depth count that concurrent threads corrupt
# ("SystemError: AST constructor recursion depth mismatch"); parse in one thread at a time.
_AST_LOCK = threading.Lock()


def parse_and_compile(code: str) -> tuple[ast.Module | None, str | None]:
    """The parsed module (None if it does not parse) and the compile error (None if none).
    Thread-safe."""
    tree = None
    try:
        with _AST_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
            compile(tree, "<answer>", "exec", dont_inherit=True)
    except _CODE_ERRORS as exc:
        return tree, f"{type(exc).__name__}: {exc}"
    return tree, None


def parse_module(code: str) -> ast.Module | None:
    """The parsed module, or None if it does not parse (no compile step: enough to count
    functions, at about half the cost). Thread-safe."""
    try:
        with _AST_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(code)
    except _CODE_ERRORS:
        return None


def top_level_functions(code: str, tree: ast.Module | None) -> int:
    """Top-level function definitions of `tree`, or column-0 def lines of `code` without one."""
    if tree is None:
        return len(_TOP_LEVEL_DEF_LINE.findall(code))
    return sum(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) for node in tree.body)


def check_sources(
    sources: Sequence[str],
    settings: Flake8Settings = Flake8Settings(),
    *,
    processes: int = 1,
) -> list[CodeCheck]:
    """`CodeCheck`s for `sources`, in order, using `processes` processes."""
    return check_sources_under(sources, [settings], processes=processes)[0]


def check_sources_under(
    sources: Sequence[str],
    settings: Sequence[Flake8Settings],
    *,
    processes: int = 1,
) -> list[list[CodeCheck]]:
    """`CodeCheck`s for `sources` under each of `settings`: one list per settings, each in the
    order of `sources`. Each distinct source is checked once, using `processes` processes."""
    if processes < 1:
        raise ValueError(f"processes must be >= 1, got {processes}")
    if not settings:
        raise ValueError("no flake8 settings to check under")
    argvs = tuple(tuple(each.argv()) for each in settings)
    distinct = list(dict.fromkeys(sources))
    with tempfile.TemporaryDirectory(prefix="proseval_cf_") as folder:
        paths = []
        for index, source in enumerate(distinct):
            # A lower-case identifier as the module name, so that pep8-naming's N999 stays quiet.
            path = os.path.join(folder, f"answer_{index}.py")
            with open(path, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
                handle.write(source)
            paths.append(path)
        if processes == 1 or len(paths) <= 1:
            checker = _checker_for(argvs)
            checks = [checker.check(source, path) for source, path in zip(distinct, paths)]
        else:
            checks = _check_in_workers(paths, argvs, min(processes, len(paths)), folder)
    by_source = dict(zip(distinct, checks))
    return [[by_source[source][k] for source in sources] for k in range(len(argvs))]


def _check_in_workers(
    paths: list[str], argvs: tuple[tuple[str, ...], ...], processes: int, folder: str
) -> list[list[CodeCheck]]:
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(paths)):
        pending.put(index)
    checks: dict[int, list[CodeCheck]] = {}

    def serve(number: int) -> None:
        """Feed files to one worker; a worker that dies fails its current file and is replaced."""
        worker = _Worker(argvs, os.path.join(folder, f"worker_{number}.err"))
        try:
            while True:
                try:
                    index = pending.get_nowait()
                except queue.Empty:
                    return
                check = worker.check([paths[index]])
                if check is None:
                    checks[index] = [CodeCheck(f"check failed: {worker.close()}", 0)] * len(argvs)
                    worker = _Worker(argvs, worker.error_path)
                else:
                    checks[index] = check
        finally:
            worker.close()

    threads = [threading.Thread(target=serve, args=(n,)) for n in range(processes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [checks[index] for index in range(len(paths))]


class CheckerPool:
    """Worker subprocesses kept for the life of the process and shared by concurrent callers.

    `check` is blocking and thread-safe: each call writes its file, takes a free worker (at
    most `processes` checks run at once, in separate processes) and gives it back. Workers
    start on first use and load the plugins once; a worker that dies fails its current file
    and is replaced. Meant to be called from worker threads (``asyncio.to_thread``).
    """

    def __init__(self, settings: Flake8Settings, processes: int) -> None:
        if processes < 1:
            raise ValueError(f"processes must be >= 1, got {processes}")
        self.settings = settings
        self.processes = processes
        self._folder = tempfile.mkdtemp(prefix="proseval_cf_pool_")
        self._slots = threading.Semaphore(processes)
        self._free: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._names = itertools.count()

    def check(self, source: str, original: str | None = None) -> CodeCheck:
        """The `CodeCheck` of one code string (with `original`: its function count too)."""
        number = next(self._names)
        path = os.path.join(self._folder, f"answer_{number}.py")
        paths = [path] if original is None else [path, os.path.join(self._folder, f"original_{number}.py")]
        for target, text in zip(paths, (source, original)):
            with open(target, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
                handle.write(text or "")
        try:
            with self._slots:
                worker = self._take()
                checks = worker.check(paths)
                if checks is None:
                    check = CodeCheck(f"check failed: {worker.close()}", 0)
                    worker = self._replace(worker)
                else:
                    (check,) = checks
                self._free.put(worker)
        finally:
            for target in paths:
                os.remove(target)
        return check

    def _take(self) -> _Worker:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            with self._lock:
                worker = _Worker(
                    (tuple(self.settings.argv()),), os.path.join(self._folder, f"worker_{len(self._workers)}.err")
                )
                self._workers.append(worker)
            return worker

    def _replace(self, dead: _Worker) -> _Worker:
        with self._lock:
            self._workers.remove(dead)
            worker = _Worker((tuple(self.settings.argv()),), dead.error_path)
            self._workers.append(worker)
        return worker

    def close(self) -> None:
        """Stop every worker and remove the pool's files."""
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.end_input()  # all at once: they exit side by side
        for worker in workers:
            worker.close()
        shutil.rmtree(self._folder, ignore_errors=True)


_POOLS: dict[tuple[tuple[str, ...], int], CheckerPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(settings: Flake8Settings, processes: int | None = None) -> CheckerPool:
    """The process-wide pool for `settings` (default: one worker per CPU), closed at exit."""
    count = processes or os.cpu_count() or 1
    key = (tuple(settings.argv()), count)
    with _POOLS_LOCK:
        if key not in _POOLS:
            if not _POOLS:
                atexit.register(close_shared_pools)
            _POOLS[key] = CheckerPool(settings, count)
        return _POOLS[key]


def close_shared_pools() -> None:
    """Stop the workers of every shared pool (also done at exit)."""
    for pool in list(_POOLS.values()):
        pool.close()
    _POOLS.clear()


class _Worker:
    """One worker subprocess: this module run as a script, checking under each of `argvs`."""

    def __init__(self, argvs: tuple[tuple[str, ...], ...], error_path: str) -> None:
        self.error_path = error_path
        with open(error_path, "w", encoding="utf-8") as error_log:
            self._process = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), json.dumps(argvs)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=error_log,
                text=True,
                encoding="utf-8",
            )

    def check(self, paths: list[str]) -> list[CodeCheck] | None:
        """The checks of the file at ``paths[0]``, one per command line (and the function count
        of ``paths[1]``, the original, when given), or None if the worker died."""
        assert self._process.stdin is not None and self._process.stdout is not None
        try:
            self._process.stdin.write("\t".join(paths) + "\n")
            self._process.stdin.flush()
            reply = self._process.stdout.readline()
        except OSError:
            return None
        return [CodeCheck(**fields) for fields in json.loads(reply)] if reply else None

    def end_input(self) -> None:
        """Tell the worker there is no more work (it exits once its current file is done)."""
        try:
            assert self._process.stdin is not None
            self._process.stdin.close()
        except OSError:
            pass

    def close(self) -> str:
        """Stop the worker; its exit status and the end of its error output."""
        self.end_input()
        status = self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        with open(self.error_path, encoding="utf-8", errors="replace") as error_log:
            return f"exit status {status}: {error_log.read()[-500:]}"


class _CountingFormatter(BaseFormatter):
    """A flake8 formatter that counts reported violations per code instead of printing them."""

    def after_init(self) -> None:
        self.codes: Counter[str] = Counter()

    def handle(self, error: Violation) -> None:
        self.codes[error.code] += 1


@dataclass
class _Run:
    """One run of flake8's checkers (plugins loaded once) and the command lines that share it,
    each with its own options and its select/ignore decisions (made once per code, not per file).
    `argv` is the command line whose options the checkers run with."""

    plugins: Any
    options: argparse.Namespace
    guides: list[tuple[int, argparse.Namespace, DecisionEngine]]
    argv: tuple[str, ...]


# Plugins keep the options they were last given in class attributes (pep8-naming picks the checks it
# runs from the selection), so the options parsed for one run would change what another run finds. A
# run's options are given to the plugins again (flake8's option parsing, about 20 ms) whenever another
# run's were given since; the lock keeps two threads from checking under each other's options.
_PLUGIN_OPTIONS = threading.RLock()
_options_given: tuple[str, ...] | None = None  # the command line the plugins were last given


def _parse(argv: tuple[str, ...]) -> tuple[Any, argparse.Namespace]:
    """flake8's plugins and options for `argv`, given to the plugins (call with `_PLUGIN_OPTIONS` held)."""
    global _options_given
    plugins, options = parse_args(list(argv))
    _options_given = argv
    return plugins, options


class _Checker:
    """Compile check, function count and flake8 for one file at a time, under each of `argvs`."""

    def __init__(self, argvs: tuple[tuple[str, ...], ...]) -> None:
        self._count = len(argvs)
        self._runs: dict[tuple[str, ...], _Run] = {}
        with _PLUGIN_OPTIONS:
            for index, argv in enumerate(argvs):
                plugins, options = _parse(argv)
                run = self._runs.setdefault(_run_key(argv), _Run(plugins.checkers, options, [], argv))
                run.guides.append((index, options, DecisionEngine(options)))

    def check(self, source: str, path: str) -> list[CodeCheck]:
        """One check per command line, in their order."""
        tree, error = parse_and_compile(source)
        functions = top_level_functions(source, tree)
        if error is not None:
            return [CodeCheck(error, functions)] * self._count
        checks: list[CodeCheck | None] = [None] * self._count
        for run in self._runs.values():
            try:
                for index, violations in self._violations(run, path, tree):
                    checks[index] = CodeCheck(None, functions, violations=violations)
            except Exception as exc:  # noqa: BLE001 - a flake8 plugin failing on this file
                for index, _, _ in run.guides:
                    checks[index] = CodeCheck(None, functions, flake8_error=f"{type(exc).__name__}: {exc}")
        return [check for check in checks if check is not None]  # every command line is in a run

    def _violations(self, run: _Run, path: str, tree: ast.Module | None) -> list[tuple[int, dict[str, int]]]:
        with _PLUGIN_OPTIONS:
            if _options_given != run.argv:
                _parse(run.argv)
            checker = FileChecker(filename=path, plugins=run.plugins, options=run.options)
            if checker.processor is not None:
                if tree is not None:
                    # flake8 would parse the same source again; hand its AST plugins our tree.
                    checker.processor.build_ast = lambda: tree
                if not any(_NOQA.search(line) for line in checker.processor.lines):
                    # flake8 tokenizes the whole file a second time to find the line a noqa comment
                    # would be on. Without one no violation can be suppressed, so any line will do.
                    checker.processor.noqa_line_for = lambda line_number: ""
            filename, results, _ = checker.run_checks()
        results.sort(key=operator.itemgetter(1, 2))
        counted = []
        for index, options, decider in run.guides:
            formatter = _CountingFormatter(options)
            guide = StyleGuideManager(options, formatter, decider)
            with guide.processing_file(filename):
                for code, line, column, text, physical_line in results:
                    guide.handle_error(code, filename, line, column, text, physical_line)
            counted.append((index, dict(formatter.codes)))
        return counted


_CHECKERS: dict[tuple[tuple[str, ...], ...], _Checker] = {}


def _checker_for(argvs: tuple[tuple[str, ...], ...]) -> _Checker:
    if argvs not in _CHECKERS:
        _CHECKERS[argvs] = _Checker(argvs)
    return _CHECKERS[argvs]


def _worker_main(argvs: str) -> None:
    """Check the file named on each stdin line under each command line of `argvs` (JSON); answer
    each file with one JSON line on stdout."""
    checker = _checker_for(tuple(tuple(argv) for argv in json.loads(argvs)))
    # What is loaded now (flake8, its plugins, their options) lives as long as the worker: frozen, the
    # cycle collector stops walking it again for every file. A file's syntax trees (linked to their
    # parents by plugins, so in cycles) are collected after 50,000 allocations instead of 700, the
    # threshold runs use (`runtime.collector.YOUNG_THRESHOLD`; this script imports only the standard
    # library and flake8): about 13 % less CPU (bench/longweave_cf_configs.py --ways together).
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    while line := sys.stdin.readline().rstrip("\n"):
        path, _, original_path = line.partition("\t")
        checks = checker.check(_read(path), path)
        if original_path:
            original = _read(original_path)
            counted = top_level_functions(original, parse_module(original)) if original.strip() else 0
            checks = [replace(check, original_functions=counted) for check in checks]
        sys.stdout.write(json.dumps([asdict(check) for check in checks]) + "\n")
        sys.stdout.flush()
    # Nothing is left to clean up; skipping the interpreter's teardown of the plugins' objects
    # saves a few tenths of a second per worker (multiprocessing's workers exit the same way).
    sys.stderr.flush()
    os._exit(0)


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogatepass", newline="") as handle:
        return handle.read()


if __name__ == "__main__":
    _worker_main(sys.argv[1])

"""Counting flake8 violations of many code strings with a few flake8 worker processes.

Each code string is written to a temporary ``.py`` file and checked by flake8's own file
checker and style guide, as a ``flake8`` command line would, but per batch: plugins are loaded
once per worker and each worker checks a share of the files, so scoring thousands of answers
costs about as much as one parallel ``flake8`` run over the same files.

The checked code is only read and tokenised by flake8; nothing is executed.
"""

from __future__ import annotations

import json
import operator
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata

from flake8.checker import FileChecker
from flake8.formatting.base import BaseFormatter
from flake8.options.parse_args import parse_args
from flake8.style_guide import StyleGuideManager
from flake8.violation import Violation

#: The families the official CF scorer selects.
CF_SELECT = ("E", "W", "F", "B", "N", "SIM", "C4")
#: flake8's default extend-ignore list, which an explicit selection switches off.
FLAKE8_DEFAULT_EXTEND_IGNORE = ("E121", "E123", "E126", "E226", "E24", "E704", "W503", "W504")
#: The flake8 stack the official scores were recorded with.
PINNED_VERSIONS = {
    "flake8": "7.2.0",
    "flake8-bugbear": "24.12.12",
    "flake8-comprehensions": "3.16.0",
    "flake8-simplify": "0.21.0",
    "pep8-naming": "0.15.1",
}


@dataclass(frozen=True)
class Flake8Settings:
    """Which codes count. flake8 runs isolated: configuration files are never read."""

    select: tuple[str, ...] = CF_SELECT
    extend_ignore: tuple[str, ...] = FLAKE8_DEFAULT_EXTEND_IGNORE

    def argv(self) -> list[str]:
        args = ["--isolated", "--jobs=1", "--select=" + ",".join(self.select)]
        if self.extend_ignore:
            args.append("--extend-ignore=" + ",".join(self.extend_ignore))
        return args


@dataclass(frozen=True)
class Flake8Outcome:
    """Violations per code for one source, or the error that stopped flake8 on it."""

    codes: dict[str, int] | None
    error: str | None = None

    @property
    def count(self) -> int | None:
        return None if self.codes is None else sum(self.codes.values())


def installed_versions() -> dict[str, str | None]:
    """Installed versions of the pinned flake8 stack (`None` for a missing package)."""
    versions: dict[str, str | None] = {}
    for name in PINNED_VERSIONS:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def count_violations(
    sources: Sequence[str],
    settings: Flake8Settings = Flake8Settings(),
    *,
    processes: int = 1,
) -> list[Flake8Outcome]:
    """flake8 outcomes for `sources`, in order.

    With ``processes == 1`` flake8 runs in this process. Otherwise `processes` worker
    subprocesses (this module run as a script) check one file at a time, each taking the next
    file as soon as it is done; no process is forked from the caller, so callers need no
    main-module guard and their threads are not copied.
    """
    if processes < 1:
        raise ValueError(f"processes must be >= 1, got {processes}")
    with tempfile.TemporaryDirectory(prefix="proseval_cf_") as folder:
        paths = []
        for index, source in enumerate(sources):
            # A lower-case identifier as the module name, so that pep8-naming's N999 stays quiet.
            path = os.path.join(folder, f"answer_{index}.py")
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(source)
            paths.append(path)
        if processes == 1 or len(paths) <= 1:
            checker = _checker_for(tuple(settings.argv()))
            return [checker.check(path) for path in paths]
        return _check_in_workers(paths, settings, min(processes, len(paths)), folder)


def _check_in_workers(
    paths: list[str], settings: Flake8Settings, processes: int, folder: str
) -> list[Flake8Outcome]:
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(paths)):
        pending.put(index)
    outcomes: dict[int, Flake8Outcome] = {}

    def serve(number: int) -> None:
        """Feed files to one worker; a worker that dies fails its current file and is replaced."""
        worker = _Worker(settings, os.path.join(folder, f"worker_{number}.err"))
        try:
            while True:
                try:
                    index = pending.get_nowait()
                except queue.Empty:
                    return
                outcome = worker.check(paths[index])
                if outcome is None:
                    outcomes[index] = Flake8Outcome(None, f"flake8 worker died: {worker.close()}")
                    worker = _Worker(settings, worker.error_path)
                else:
                    outcomes[index] = outcome
        finally:
            worker.close()

    threads = [threading.Thread(target=serve, args=(n,)) for n in range(processes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [outcomes[index] for index in range(len(paths))]


class _Worker:
    """One flake8 worker subprocess: this module run as a script."""

    def __init__(self, settings: Flake8Settings, error_path: str) -> None:
        self.error_path = error_path
        with open(error_path, "w", encoding="utf-8") as error_log:
            self._process = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), *settings.argv()],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=error_log,
                text=True,
                encoding="utf-8",
            )

    def check(self, path: str) -> Flake8Outcome | None:
        """The outcome for `path`, or None if the worker died."""
        assert self._process.stdin is not None and self._process.stdout is not None
        try:
            self._process.stdin.write(path + "\n")
            self._process.stdin.flush()
            reply = self._process.stdout.readline()
        except OSError:
            return None
        if not reply:
            return None
        item = json.loads(reply)
        return Flake8Outcome(codes=item["codes"], error=item["error"])

    def close(self) -> str:
        """Stop the worker; its exit status and the end of its error output."""
        try:
            assert self._process.stdin is not None
            self._process.stdin.close()
        except OSError:
            pass
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


class _Checker:
    """flake8 with its plugins loaded once; checks one file at a time."""

    def __init__(self, argv: tuple[str, ...]) -> None:
        plugins, self._options = parse_args(list(argv))
        self._plugins = plugins.checkers

    def check(self, path: str) -> Flake8Outcome:
        try:
            return Flake8Outcome(codes=self._count(path))
        except Exception as exc:  # flake8 or a plugin failed on this file
            return Flake8Outcome(codes=None, error=f"{type(exc).__name__}: {exc}")

    def _count(self, path: str) -> dict[str, int]:
        formatter = _CountingFormatter(self._options)
        guide = StyleGuideManager(self._options, formatter)
        checker = FileChecker(filename=path, plugins=self._plugins, options=self._options)
        filename, results, _ = checker.run_checks()
        results.sort(key=operator.itemgetter(1, 2))
        with guide.processing_file(filename):
            for code, line, column, text, physical_line in results:
                guide.handle_error(code, filename, line, column, text, physical_line)
        return dict(formatter.codes)


_CHECKERS: dict[tuple[str, ...], _Checker] = {}


def _checker_for(argv: tuple[str, ...]) -> _Checker:
    if argv not in _CHECKERS:
        _CHECKERS[argv] = _Checker(argv)
    return _CHECKERS[argv]


def _worker_main(argv: list[str]) -> None:
    """Check the file named on each stdin line; answer each with one JSON line on stdout."""
    checker = _checker_for(tuple(argv))
    while path := sys.stdin.readline().rstrip("\n"):
        outcome = checker.check(path)
        sys.stdout.write(json.dumps({"codes": outcome.codes, "error": outcome.error}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _worker_main(sys.argv[1:])

"""Counting flake8 violations of many code strings with a few long-lived flake8 workers.

Each code string is written to a temporary ``.py`` file and checked by flake8's own file
checker and style guide, exactly as a ``flake8`` command line would, but plugins are loaded
once per worker process and files are handed out in small chunks, so that scoring thousands
of answers costs about as much as one parallel ``flake8`` run over the same files.

The checked code is only read and tokenised by flake8; nothing is executed.
"""

from __future__ import annotations

import multiprocessing
import operator
import os
import tempfile
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
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
    chunk_size: int = 8,
) -> list[Flake8Outcome]:
    """flake8 outcomes for `sources`, in order, using `processes` worker processes."""
    if processes < 1:
        raise ValueError(f"processes must be >= 1, got {processes}")
    indexed = list(enumerate(sources))
    chunks = [
        (settings, indexed[start : start + chunk_size])
        for start in range(0, len(indexed), chunk_size)
    ]
    outcomes: dict[int, Flake8Outcome] = {}
    if processes == 1 or len(chunks) <= 1:
        for chunk in chunks:
            outcomes.update(_check_chunk(chunk))
    else:
        # "spawn": workers must not inherit the caller's threads or locks.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
            for chunk_result in pool.map(_check_chunk, chunks):
                outcomes.update(chunk_result)
    return [outcomes[index] for index in range(len(sources))]


class _CountingFormatter(BaseFormatter):
    """A flake8 formatter that counts reported violations per code instead of printing them."""

    def after_init(self) -> None:
        self.codes: Counter[str] = Counter()

    def handle(self, error: Violation) -> None:
        self.codes[error.code] += 1


class _Checker:
    """flake8 with its plugins loaded once; checks one file at a time."""

    def __init__(self, settings: Flake8Settings) -> None:
        plugins, self._options = parse_args(settings.argv())
        self._plugins = plugins.checkers

    def check(self, path: str) -> dict[str, int]:
        formatter = _CountingFormatter(self._options)
        guide = StyleGuideManager(self._options, formatter)
        checker = FileChecker(filename=path, plugins=self._plugins, options=self._options)
        filename, results, _ = checker.run_checks()
        results.sort(key=operator.itemgetter(1, 2))
        with guide.processing_file(filename):
            for code, line, column, text, physical_line in results:
                guide.handle_error(code, filename, line, column, text, physical_line)
        return dict(formatter.codes)


_CHECKERS: dict[Flake8Settings, _Checker] = {}


def _checker_for(settings: Flake8Settings) -> _Checker:
    if settings not in _CHECKERS:
        _CHECKERS[settings] = _Checker(settings)
    return _CHECKERS[settings]


def _check_chunk(
    task: tuple[Flake8Settings, list[tuple[int, str]]],
) -> list[tuple[int, Flake8Outcome]]:
    settings, items = task
    checker = _checker_for(settings)
    results = []
    with tempfile.TemporaryDirectory(prefix="proseval_cf_") as folder:
        for index, source in items:
            # A lower-case identifier as the module name, so that pep8-naming's N999 stays quiet.
            path = os.path.join(folder, f"answer_{index}.py")
            try:
                with open(path, "w", encoding="utf-8", newline="") as handle:
                    handle.write(source)
                outcome = Flake8Outcome(codes=checker.check(path))
            except Exception as exc:  # flake8 or a plugin failed on this file
                outcome = Flake8Outcome(codes=None, error=f"{type(exc).__name__}: {exc}")
            results.append((index, outcome))
    return results

"""The run folders under a directory, and what the run list says of each."""

from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..runtime.records import Results, RunHeader
from ..runtime.runlog import HEADER, LOCK, RESULTS, SAMPLES, RunFolder, RunFolderError
from .index import IndexCache, Summary

_HOLDER = re.compile(r"pid (\d+) on (\S+),")


def find_runs(root: Path) -> dict[str, Path]:
    """Run folders by name: `root` itself when it is one, and its direct sub-folders that are."""
    runs: dict[str, Path] = {}
    if (root / HEADER).is_file():
        runs[root.resolve().name] = root
    if root.is_dir():
        for child in sorted(root.iterdir()):
            if child.is_dir() and (child / HEADER).is_file():
                runs.setdefault(child.name, child)
    return runs


def writer_alive(folder: Path) -> bool:
    """Whether a live process on this machine holds the folder's writer lock (read, never taken)."""
    try:
        holder = (folder / LOCK).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    found = _HOLDER.match(holder.strip())
    if not found or found.group(2) != socket.gethostname():
        return bool(found)  # another machine's writer: assume it is running
    try:
        os.kill(int(found.group(1)), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class RunInfo:
    name: str
    path: Path
    header: RunHeader | None
    results: Results | None
    status: str  # running, complete, interrupted, unreadable
    problem: str = ""

    @property
    def models(self) -> dict[str, str]:
        return {role: b.spec for role, b in self.header.roles.items()} if self.header else {}

    def headline(self) -> tuple[str, float | None] | None:
        if self.results is None or not self.results.metrics:
            return None
        metrics = self.results.metrics
        name = self.results.headline if self.results.headline in metrics else next(iter(metrics))
        return name, metrics[name].mean


def read_info(name: str, path: Path) -> RunInfo:
    folder = RunFolder(path)
    try:
        header = folder.read_header()
    except RunFolderError as exc:
        return RunInfo(name, path, None, None, "unreadable", str(exc))
    results = None
    problem = ""
    if (path / RESULTS).is_file():
        try:
            results = Results.model_validate_json((path / RESULTS).read_text(encoding="utf-8"))
        except ValueError as exc:  # being replaced, or damaged
            problem = f"{RESULTS}: {exc}".splitlines()[0]
    if writer_alive(path):
        status = "running"
    elif results is not None and results.complete:
        status = "complete"
    else:
        status = "interrupted"
    return RunInfo(name, path, header, results, status, problem)


def counts(info: RunInfo, cache: IndexCache) -> dict[str, int]:
    """Samples scored, unscored and failed: from results.json when the run is not being written,
    else from the records (summaries are cached and extended as the file grows)."""
    if info.results is not None and info.status != "running":
        c = info.results.counts
        return {
            "finished": c.finished,
            "scored": c.finished - c.failed - c.unscored,
            "unscored": c.unscored,
            "failed": c.failed,
        }
    return tally(cache.get(info.path / SAMPLES).summary_list())


def tally(summaries: list[Summary]) -> dict[str, int]:
    out = {"finished": len(summaries), "scored": 0, "unscored": 0, "failed": 0}
    for s in summaries:
        out[s.status] += 1
    return out


def pretty(value: Any) -> str:
    """Data as readable text: strings as they are, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)

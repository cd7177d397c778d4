"""What a run's figures are measured in, as its task declares them: the definitions of its metrics
that `proseval describe TASK` lists (the ``metrics=`` a benchmark registers with its task). A
definition names what a metric counts ("|T|: policy decisions consumed"), and one that says "in %"
is a percentage; a metric its task does not define says so rather than leaving the figure bare.

A definition's key is a metric's name, names separated by ", ", a name with a trailing ``.*`` for
a dict-valued score's parts (``rouge.*``: ``rouge.rougeL``), or a name with a note in parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from ..registry import tasks

__all__ = ["NOT_STATED", "Unit", "definitions", "metric_units", "unit_of"]

PERCENT = re.compile(r"\bin %")
NOTE = re.compile(r"\s*\(.*\)\s*$")
NOT_STATED = "unit not stated: the task defines no such metric (proseval describe {task} lists its metrics)"


@dataclass(frozen=True)
class Unit:
    """A metric's unit: `mark` follows each of its figures ("%", or "" for none), `said` is what the
    task's definition says of it (or that it says nothing)."""

    mark: str
    said: str
    stated: bool = True


@lru_cache(maxsize=64)
def definitions(task: str) -> tuple[tuple[str, str], ...]:
    """The task's metric definitions, as `proseval describe` lists them (none for an unknown task or
    one that defines none)."""
    entry = tasks().get(task)
    if entry is None or entry.metrics is None:
        return ()
    try:
        return tuple((str(key), str(text)) for key, text in dict(entry.metrics()).items())
    except Exception:  # noqa: BLE001 - a hook that cannot be read: the figures say their unit is not stated
        return ()


def _names(key: str) -> list[str]:
    """The metric names (or ``name.*`` patterns) a definition's key covers."""
    return [NOTE.sub("", part).strip() for part in key.split(",") if NOTE.sub("", part).strip()]


def _covers(pattern: str, metric: str) -> bool:
    if pattern.endswith(".*"):
        return metric.startswith(pattern[:-1]) or metric == pattern[:-2]
    return metric == pattern


def unit_of(metric: str, defined: Iterable[tuple[str, str]], task: str = "") -> Unit:
    """The unit of `metric` by the definitions `defined` (`definitions`): the first whose key covers it."""
    for key, text in defined:
        if any(_covers(name, metric) for name in _names(key)):
            return Unit("%" if PERCENT.search(text) else "", text)
    return Unit("", NOT_STATED.format(task=task or "TASK"), stated=False)


def metric_units(task: str, metrics: Iterable[str]) -> Mapping[str, Unit]:
    """The unit of each of `metrics` of a run of `task`."""
    defined = definitions(task)
    return {metric: unit_of(metric, defined, task) for metric in metrics}

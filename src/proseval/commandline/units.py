"""What a run's figures are measured in, as its task declares them (the viewer's pages and the report
show the same units): the definitions of its metrics that `proseval describe TASK` lists (the ``metrics=`` a benchmark registers with its task). A
definition names what a metric counts ("|T|: policy decisions consumed"), one that says "in %"
is a percentage, and one that names a range ("score 1-10", "fraction 0-1") has its figures read
on that scale; a metric its task does not define says so rather than leaving the figure bare.

A definition's key is a metric's name, names separated by ", ", a name with a trailing ``.*`` for
a dict-valued score's parts (``rouge.*``: ``rouge.rougeL``), or a name with a note in parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from ..registry import tasks

__all__ = ["NOT_STATED", "Unit", "definitions", "headed", "metric_units", "unit_of"]

PERCENT = re.compile(r"\bin %")
SCALE = re.compile(r"(?<![\w./-])(\d+(?:\.\d+)?-\d+(?:\.\d+)?)(?![\w./-])")  # "1-10", "0-1"
NOTE = re.compile(r"\s*\(.*\)\s*$")
NOT_STATED = "unit not stated: the task defines no such metric (proseval describe {task} lists its metrics)"


@dataclass(frozen=True)
class Unit:
    """A metric's unit: `mark` follows each of its figures ("%", or "" for none), `said` is what the
    task's definition says of it (or that it says nothing), `scale` the range it names ("1-10")."""

    mark: str
    said: str
    stated: bool = True
    scale: str = ""

    @property
    def short(self) -> str:
        """The unit in a few characters, for a column header or beside a figure: "%", "1-10" or ""."""
        return self.mark or self.scale


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
            if PERCENT.search(text):
                return Unit("%", text)
            scale = SCALE.search(text)
            return Unit("", text, scale=scale.group(1) if scale else "")
    return Unit("", NOT_STATED.format(task=task or "TASK"), stated=False)


def metric_units(task: str, metrics: Iterable[str]) -> Mapping[str, Unit]:
    """The unit of each of `metrics` of a run of `task`."""
    defined = definitions(task)
    return {metric: unit_of(metric, defined, task) for metric in metrics}


def headed(metric: str, unit: Unit) -> str:
    """A metric's name with its unit, for a column header or an axis: "quality (1-10)", "share (%)"."""
    return f"{metric} ({unit.short})" if unit.short else metric

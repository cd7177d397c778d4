"""The rule checkers' word lists, shipped as data files in ``data/<language>/``.

A list is one word per line (``<name>.txt``); a table of words is a JSON object (``<name>.json``).
Each is read once, when the rule module that uses it is imported.
"""

from __future__ import annotations

import json
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

_DATA = files(__package__).joinpath("data")


def _file(name: str, suffix: str) -> Traversable:
    return _DATA.joinpath(*f"{name}{suffix}".split("/"))


def word_list(name: str) -> tuple[str, ...]:
    """The words of ``data/<name>.txt`` (e.g. ``"french/h_aspire"``), in file order."""
    return tuple(_file(name, ".txt").read_text(encoding="utf-8").splitlines())


def word_table(name: str) -> dict[str, Any]:
    """The JSON object of ``data/<name>.json``, in file order."""
    return json.loads(_file(name, ".json").read_text(encoding="utf-8"))

"""Names a kit module lends from proseval's modules, imported on first use.

Registering a benchmark, as `proseval list` and `proseval --help` do for every one, must not
import the runtime: each kit module only says where its names live. `lint-imports` cannot see these
imports, so every table lent is kept in `LENT`, and a test holds each source to the layers contract.
"""

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

LENT: dict[str, Mapping[str, tuple[str, ...]]] = {}
"""Each lending table, by the module that lends it."""


def lend(module: str, sources: Mapping[str, tuple[str, ...]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module `__getattr__` and `__dir__` for `module`, whose names live in `sources`
    (``{"core.task": ("Task",)}``: relative to `proseval`). A name found is kept in the module, so that
    later look-ups skip `__getattr__`."""
    LENT[module] = sources
    home = {name: source for source, names in sources.items() for name in names}

    def __getattr__(name: str) -> Any:
        source = home.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"proseval.{source}"), name)
        setattr(sys.modules[module], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(home)

    return __getattr__, __dir__


def names(sources: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Every name `sources` lends, in order: a module's `__all__`."""
    return [name for group in sources.values() for name in group]

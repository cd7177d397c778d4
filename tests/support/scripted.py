"""Scripted models registered for a while: a test's, or those of runs built once for many tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from proseval.models.scripted import register_script, unregister_script


@contextmanager
def registered_scripts() -> Iterator[Callable[[str, object], str]]:
    """`scripts(name, script)` registers a scripted model and returns its spec; every model it
    registered is unregistered on leaving."""
    names: list[str] = []

    def register(name: str, script: object) -> str:
        register_script(name, script)
        names.append(name)
        return f"scripted/{name}"

    try:
        yield register
    finally:
        for name in names:
            unregister_script(name)

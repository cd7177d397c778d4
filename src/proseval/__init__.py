"""proseval: evaluate how well large language models write.

The public API: `run` a task, `resume` and `read_run` a run folder; `task` and `scorer` register
a benchmark's tasks and scorers; `Task`, `Sample`, `Score`, `State` and `PromptTemplate` are its
vocabulary; `ProsevalError` is the base of every error a user can fix. `proseval.kit` is the other
public module: everything a benchmark needs, these names included (proseval docs writing-a-benchmark).
Everything else is internal and may change.
"""

from typing import Any

__version__ = "0.1.0"
__all__ = [
    "PromptTemplate",
    "ProsevalError",
    "Run",
    "Sample",
    "Score",
    "State",
    "Task",
    "agreement",
    "read_run",
    "resume",
    "run",
    "run_set",
    "score",
    "scorer",
    "task",
]

_EXPORTS = {
    "Run": "proseval.api",
    "read_run": "proseval.api",
    "run": "proseval.api",
    "resume": "proseval.api",
    "score": "proseval.api",
    "agreement": "proseval.api",
    "run_set": "proseval.api",
    "PromptTemplate": "proseval.core",
    "ProsevalError": "proseval.errors",
    "Sample": "proseval.core",
    "Score": "proseval.core",
    "State": "proseval.core",
    "Task": "proseval.core",
    "scorer": "proseval.core",
    "task": "proseval.registry",
}


def __getattr__(name: str) -> Any:
    """Import the public names on first use, so that `import proseval` stays light."""
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'proseval' has no attribute {name!r}")

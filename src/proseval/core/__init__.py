"""The vocabulary every benchmark speaks: samples, tasks, states and scores.

The names are imported on first use, so that importing one small module of this package (the
registry needs `core.health`, `core.preset` and `core.views` to register a benchmark, as
`proseval --help` does) does not build every model of the others.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Imported now: the decorator shares its name with its module, which importing `core.scorer`
# anywhere would otherwise leave here in its place (and it imports nothing).
from .scorer import scorer

if TYPE_CHECKING:
    from .prompt import PromptTemplate
    from .sample import Sample
    from .score import Score
    from .state import State
    from .task import Task

_MODULE_OF = {"PromptTemplate": "prompt", "Sample": "sample", "Score": "score", "State": "state", "Task": "task"}

__all__ = ["PromptTemplate", "Sample", "Score", "State", "Task", "scorer"]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value

"""Everything a benchmark needs from proseval: a small core here, the rest in named namespaces.

A benchmark, built in or a plug-in, imports proseval only from here (the import contracts in
pyproject.toml and tests/core/test_benchmark_imports.py hold the built-in ones to it). Import
the module and register with ``@kit.task(...)``: a package with a ``task.py`` that imported the
bare name ``task`` would see its submodule shadow the decorator. The core is what a task needs;
`kit.cli`, `kit.runs`, `kit.views`, `kit.measures`, `kit.charts`, `kit.sandbox`, `kit.doctor` and
`kit.testing` hold the rest. Each name is imported on first use, so registering a benchmark, as
`proseval list` and `proseval --help` do for every one, imports nothing heavy. See
proseval docs writing-a-benchmark.
"""

import importlib
import warnings
from typing import Any

from proseval.kit._lazy import lend, names
from proseval.kit._plugin_warnings import KitDeprecationWarning

_SOURCES = {
    # Registration: tasks, scorers, commands and doctor checks (found through the entry point).
    "registry": ("task", "scorer_plugin", "command_group", "generate_command", "doctor_check"),
    "core.scorer": ("scorer",),
    # The vocabulary of a task.
    "core.task": ("Task",),
    "core.sample": ("Sample",),
    "core.state": ("State",),
    "core.score": ("Score", "ParseStatus"),
    "core.prompt": ("PromptTemplate", "PromptError"),
    "core.preset": ("Preset",),
    "runtime.context": ("SampleContext",),
    "core.protocols": ("single_turn", "as_messages"),
    # What a judge rated (the judge-reliability analysis compares these verdicts).
    "core.ratings": ("Rating", "Scale", "rated_metrics"),
    # Models: generation settings, completions and the errors a protocol may catch.
    "models.base": ("GenerateConfig", "Message", "Completion", "ModelError", "ContextOverflowError"),
    # Judges: bounded re-asks, parsing replies, asking for structured output.
    "judging.ask": ("ask_until",),
    "judging.parse": ("extract_json", "parse_score"),
    "judging.jsonfind": ("find_json_values", "repair_json_value"),
    "judging.reasoning": ("strip_reasoning", "CleanedResponse"),
    "judging.structured": ("json_schema_format", "score_schema", "named_scores_schema"),
    # Parameters, datasets and data files, and the errors a user can fix.
    "core.options": ("comma_list",),
    "core.ordering": ("round_robin",),
    "core.closeness": ("count_words",),
    "core.jsonl": ("iter_json_objects", "DataFormatError"),
    "errors": ("DataError", "MissingDataError", "describe_validation_error"),
}
NAMESPACES = ("cli", "runs", "views", "measures", "charts", "sandbox", "doctor", "testing")
REMOVED_IN = "0.3.0"  # when the names that moved to a namespace stop resolving here

__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
_core, _ = lend(__name__, _SOURCES)


def __dir__() -> list[str]:
    return sorted([*__all__, *NAMESPACES])


def __getattr__(name: str) -> Any:
    if name in NAMESPACES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in __all__:
        return _core(name)
    return _moved(name)


def _moved(name: str) -> Any:
    """A name that left the core, with a `KitDeprecationWarning` naming where it is now (the command
    line shows it: `_plugin_warnings`)."""
    if name == "format_validation_error":
        _deprecated(name, "proseval.kit.describe_validation_error(exc, task=NAME)")
        return importlib.import_module("proseval.registry").format_validation_error
    for namespace in NAMESPACES:
        module = importlib.import_module(f"{__name__}.{namespace}")
        if name in module.__all__:
            _deprecated(name, f"{module.__name__}.{name}")
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _deprecated(name: str, instead: str) -> None:
    warnings.warn(
        f"proseval.kit.{name} is deprecated and goes in proseval {REMOVED_IN}: use {instead}",
        KitDeprecationWarning,
        stacklevel=4,
    )

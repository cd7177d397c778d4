"""Everything a benchmark needs from proseval, in one place.

A benchmark, built in or a plug-in, imports proseval only from here and from the top-level
`proseval` package (the import contracts in pyproject.toml hold the built-in ones to it). Import
the module and register with ``@kit.task(...)``: a package with a ``task.py`` that imported the
bare name ``task`` would see its submodule shadow the decorator. See docs/writing-a-benchmark.md.
"""

from typing import Any

# Where each name lives, imported on first use (`__getattr__`): registering a benchmark, as
# `proseval list` and `proseval --help` do for every one, must not import the runtime.
_SOURCES = {
    "commandline.console": ("console", "fail"),
    "commandline.options": ("BaseUrlOpt", "ConcurrencyOpt", "DisplayOpt", "GenOpt", "PromptOpt"),
    "commandline.requests": ("checked", "display_mode", "prompt_files", "role_request"),
    "commandline.running": ("execute", "report_run"),
    "core.closeness": ("closeness", "count_words", "length_adherence", "word_matches"),
    "core.health": ("Check", "extra_check"),
    "core.jsonl": ("DataFormatError", "iter_json_objects"),
    "core.options": ("comma_list",),
    "core.ordering": ("round_robin",),
    "core.preset": ("Preset",),
    "core.prompt": ("PromptError", "PromptTemplate"),
    "core.ratings": ("Rating", "Scale", "rated_metrics"),
    "core.protocols": ("as_messages", "single_turn"),
    "core.sample": ("Sample",),
    "core.score": ("ParseStatus", "Score"),
    "core.scorer": ("scorer",),
    "core.state": ("State",),
    "core.task": ("Task",),
    "core.textdiff": ("highlight", "locate", "word_diff"),
    "core.views": ("LabelCriterion", "LabelForm", "ViewBlock"),
    "errors": ("DataError", "MissingDataError", "describe_validation_error"),
    "judging.ask": ("ask_until",),
    "judging.jsonfind": ("find_json_values", "repair_json_value"),
    "judging.parse": ("extract_json", "parse_score"),
    "judging.reasoning": ("CleanedResponse", "strip_reasoning"),
    "judging.structured": ("json_schema_format", "named_scores_schema", "score_schema"),
    "models.base": ("Completion", "ContextOverflowError", "GenerateConfig", "Message", "ModelError"),
    "models.scripted": ("register_script", "unregister_script"),
    "plots": ("chart", "ci_errors"),
    "registry": ("command_group", "doctor_check", "format_validation_error", "generate_command", "scorer_plugin",
                 "task"),
    "runtime.aggregate": ("bootstrap_ci",),
    "runtime.context": ("SampleContext",),
    "runtime.options": ("RunOptions",),
    "runtime.records": ("Results", "SampleRecord", "ScoredSample"),
    "runtime.runlog": ("RunFolder", "RunFolderError"),
    "sandbox": ("SandboxLimits", "SandboxResult", "isolation", "run_function_async"),
    "tokens": ("count_tokens",),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = [
    # Registration: tasks, scorers, commands and doctor checks (found through the entry point).
    "task", "scorer", "scorer_plugin", "command_group", "generate_command", "doctor_check",
    "format_validation_error",
    # The vocabulary of a task.
    "Task", "Sample", "State", "Score", "ParseStatus", "PromptTemplate", "PromptError", "Preset",
    "SampleContext", "single_turn", "as_messages",
    # What a judge rated (the judge-reliability analysis compares these verdicts).
    "Rating", "Scale", "rated_metrics",
    # What the viewer shows of a sample, and what a person labelling it is asked.
    "ViewBlock", "LabelForm", "LabelCriterion",
    # Text helpers for sample views: a word diff and highlighted snippets, as (kind, text) segments.
    "word_diff", "highlight", "locate",
    # Models: generation settings, completions and the errors a protocol may catch.
    "GenerateConfig", "Message", "Completion", "ModelError", "ContextOverflowError",
    # Judges: bounded re-asks, parsing replies, asking for structured output.
    "ask_until", "extract_json", "parse_score", "find_json_values", "repair_json_value", "strip_reasoning",
    "CleanedResponse", "json_schema_format", "score_schema", "named_scores_schema",
    # Measures and statistics.
    "closeness", "count_words", "length_adherence", "word_matches", "count_tokens", "bootstrap_ci",
    # Results, records and run folders (aggregate, artifacts, render and commands read them).
    "Results", "ScoredSample", "SampleRecord", "RunFolder", "RunFolderError",
    # Data files and the errors a user can fix.
    "iter_json_objects", "DataFormatError", "DataError", "MissingDataError",
    "describe_validation_error", "comma_list", "round_robin",
    # Charts (PNG bytes, or None without matplotlib).
    "chart", "ci_errors",
    # Running model-written code confined by the operating system.
    "run_function_async", "SandboxLimits", "SandboxResult", "isolation",
    # A benchmark's own commands: the common options, running a task, printing and failing.
    "BaseUrlOpt", "ConcurrencyOpt", "DisplayOpt", "GenOpt", "PromptOpt", "role_request", "prompt_files",
    "display_mode", "checked", "execute", "report_run", "RunOptions", "console", "fail",
    # `proseval doctor`: a benchmark's checks of its environment.
    "Check", "extra_check",
    # Tests: deterministic models answering as `scripted/NAME`.
    "register_script", "unregister_script",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'proseval.kit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"proseval.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

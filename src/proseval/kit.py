"""Everything a benchmark needs from proseval, in one place.

A benchmark, built in or a plug-in, imports proseval only from here and from the top-level
`proseval` package (the import contracts in pyproject.toml hold the built-in ones to it). Import
the module and register with ``@kit.task(...)``: a package with a ``task.py`` that imported the
bare name ``task`` would see its submodule shadow the decorator. See docs/writing-a-benchmark.md.
"""

from .commandline.console import console, fail
from .commandline.options import BaseUrlOpt, ConcurrencyOpt, DisplayOpt, GenOpt, PromptOpt
from .commandline.requests import checked, display_mode, prompt_files, role_request
from .commandline.running import execute, report_run
from .core.closeness import closeness, count_words, length_adherence, word_matches
from .core.health import Check, extra_check
from .core.jsonl import DataFormatError, iter_json_objects
from .core.options import comma_list
from .core.ordering import round_robin
from .core.preset import Preset
from .core.prompt import PromptError, PromptTemplate
from .core.ratings import Rating, Scale, rated_metrics
from .core.protocols import as_messages, single_turn
from .core.sample import Sample
from .core.score import ParseStatus, Score
from .core.scorer import scorer
from .core.state import State
from .core.task import Task
from .core.textdiff import highlight, locate, word_diff
from .core.views import LabelCriterion, LabelForm, ViewBlock
from .errors import DataError, MissingDataError, describe_validation_error
from .judging.ask import ask_until
from .judging.jsonfind import find_json_values, repair_json_value
from .judging.parse import extract_json, parse_score
from .judging.reasoning import CleanedResponse, strip_reasoning
from .judging.structured import json_schema_format, named_scores_schema, score_schema
from .models.base import Completion, ContextOverflowError, GenerateConfig, Message, ModelError
from .models.scripted import register_script, unregister_script
from .plots import chart, ci_errors
from .registry import command_group, doctor_check, format_validation_error, generate_command, scorer_plugin, task
from .runtime.aggregate import bootstrap_ci
from .runtime.context import SampleContext
from .runtime.options import RunOptions
from .runtime.records import Results, SampleRecord, ScoredSample
from .runtime.runlog import RunFolder, RunFolderError
from .sandbox import SandboxLimits, SandboxResult, isolation, run_function_async
from .tokens import count_tokens

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

"""The commands of `proseval`, in the order `proseval --help` lists them, then each benchmark's group.

One line per command: its name, the module of `proseval.cli` whose typer `app` declares it, and the
line `--help` lists (the first paragraph of its docstring, which a test holds them to). A command's
module is imported only when the command runs, so that `--help`, `list` and `describe` start fast.
"""

from __future__ import annotations

from importlib import import_module

from rich.markup import escape

from ..commandline.console import errors
from ..registry import command_groups, describe_registrant, registrant_of
from .lazy import LazyCommand, command_in, group_of


def command(name: str, module: str, summary: str) -> LazyCommand:
    return LazyCommand(name, command_in(f"{__package__}.{module}", name), summary)


def group(name: str, module: str, summary: str) -> LazyCommand:
    return LazyCommand(name, group_of(lambda: import_module(f"{__package__}.{module}").app), summary)


def built_in() -> list[LazyCommand]:
    return [
        command("list", "tasks", "List the tasks proseval can run."),
        command(
            "describe",
            "tasks",
            "Show a task's metrics, prompts, presets and options (pass them to run as --name value).",
        ),
        command(
            "describe-model",
            "models",
            "Show the request body a role would send to a model, what is not sent and why, and the model's rules.",
        ),
        command("run", "run", "Run a task and print its results table."),
        command(
            "run-set",
            "run_set",
            "Run an evaluation set: every missing run is started, finished ones skipped, "
            "unfinished ones resumed; then one leaderboard per task.",
        ),
        command(
            "profile",
            "profile",
            "Profile how a model writes: the six benchmarks as one suite, then one report "
            "with a row per benchmark, never averaged into one number.",
        ),
        command("resume", "resume", "Continue an interrupted run: only samples without a finished record are run."),
        command(
            "score",
            "score",
            "Re-score a run's stored outputs with other judge-like roles or prompts; the candidate is not called.",
        ),
        command(
            "agreement",
            "agreement",
            "Judge the judges: agreement between judges and with human labels, "
            "consistency across repeats, length bias, position flips, self-preference, panels, unscored rate, "
            "tokens, price and time per 1,000 ratings.",
        ),
        command("show", "show", "Print a run's results tables."),
        command("runs", "runs", "List past runs: task, models, state, samples, headline, start time and folder."),
        command(
            "compare",
            "compare",
            "Compare two runs of one task sample by sample: mean difference, paired bootstrap CI, p-value.",
        ),
        command(
            "report",
            "report",
            "Write one HTML file (no network needed to view it): leaderboards, slices, charts, comparisons, samples.",
        ),
        command(
            "export",
            "export",
            "Export a run: flat tables (one row per sample and score, plus the metrics) or an Inspect AI log.",
        ),
        command(
            "docs", "docs", "Read proseval's documentation in the terminal (the pages the help and errors point to)."
        ),
        command(
            "doctor",
            "doctor",
            "What a bug report needs: versions, CPU, llama.cpp build, extras, sandbox; checks each part.",
        ),
        command(
            "schema",
            "schema",
            "Write the JSON Schemas of header.json, samples.jsonl records, results.json and "
            "of the results.json of proseval agreement.",
        ),
        command(
            "view",
            "view",
            'Browse runs and their samples in a web browser, live while a run is written (needs the "view" extra).',
        ),
        group("cache", "cache", "Inspect or clear the response cache."),
        group("generate", "generate", "Write benchmark datasets: generated samples or items expanded from a template."),
    ]


def benchmark_groups() -> list[LazyCommand]:
    """`proseval NAME` of each benchmark that registers a command group (`kit.command_group`). A group
    named like one of proseval's own commands is not added (the command stays proseval's), with one
    line naming who registered it."""
    own = {c.name for c in built_in()}
    groups = []
    for name, entry in command_groups().items():
        if name in own:
            holder = describe_registrant(registrant_of("command group", name))
            errors.print(
                f"[yellow]warning:[/] {escape(holder)} registers a command group named {name!r}, "
                f"which is proseval's own command: `proseval {name}` stays proseval's",
                highlight=False,
                soft_wrap=True,
            )
            continue
        groups.append(LazyCommand(name, group_of(entry.load), entry.summary))
    return groups

"""docs/reproducing-papers.md: every `proseval` command of its bash blocks is one the CLI accepts.

Each command is resolved through the real command tree (no network, nothing run): the
subcommand must exist, every option must be one of that command's options or, for `proseval
run TASK`, a field of the task's parameter model with a value it accepts; a preset must be one
of the task's presets and a `--scorer` a registered scorer. The page lists, per paper, the
table or figure each command reruns; the page must name every table of the papers'
machine-readable copies (``../shared/data/papers``) and every table their README lists as
left out of them.
"""

from __future__ import annotations

import csv
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command

from proseval.cli import app
from proseval.cli.common import task_options
from proseval.registry import get_entry, get_scorer_plugin

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reproducing-papers.md"
PLACEHOLDERS = {"...", "…"}


def page_commands(text: str) -> list[list[str]]:
    """The `proseval` commands of the page's bash blocks, as argument lists (comments and `...` dropped)."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            tokens = [t for t in shlex.split(line, comments=True) if t not in PLACEHOLDERS]
            if tokens and tokens[0] == "proseval":
                commands.append(tokens[1:])
    return commands


def resolve(tokens: list[str]) -> Any:
    """The click context of the leaf command the tokens name (parsed leniently: values are not checked)."""
    command, context, name, rest = get_command(app), None, "proseval", list(tokens)
    while True:
        context = command.make_context(name, rest, parent=context, resilient_parsing=True)
        command = context.command  # the real command behind a lazily loaded placeholder
        if not hasattr(command, "list_commands"):
            return context
        assert rest and not rest[0].startswith("-"), f"{context.command_path}: a subcommand must follow"
        name, rest = rest[0], rest[1:]
        command = command.get_command(context, name)
        assert command is not None, f"{context.command_path} has no command {name!r}"


def own_options(context: Any) -> set[str]:
    return {
        flag
        for param in context.command.params
        for flag in (*param.opts, *param.secondary_opts)
        if flag.startswith("-")
    }


def check(tokens: list[str]) -> None:
    """Raise unless the CLI knows the command, its options (a run's: the task's) and its preset or scorer."""
    context = resolve(tokens)
    if context.command.name == "run":
        entry = get_entry(context.params["task"])
        if context.params.get("preset"):
            entry.preset(context.params["preset"])
        entry.params.model_validate(task_options(context.args))  # unknown fields are refused
        return
    known = own_options(context)
    unknown = [t for t in tokens if t.startswith("-") and t.partition("=")[0] not in known]
    assert not unknown, f"proseval {' '.join(tokens)}: {context.command_path} has no option {unknown}"
    if context.params.get("scorer"):
        get_scorer_plugin(context.params["scorer"])


COMMANDS = page_commands(PAGE.read_text(encoding="utf-8"))


def test_the_page_has_commands_for_every_benchmark():
    tasks = {tokens[1] for tokens in COMMANDS if tokens[0] == "run"}
    assert tasks == {"writingbench", "meeseeks", "longweave", "c3ebench", "ravel", "revision-distance"}


@pytest.mark.parametrize("tokens", COMMANDS, ids=[" ".join(t)[:80] for t in COMMANDS])
def test_every_command_is_accepted_by_the_cli(tokens):
    check(tokens)


@pytest.mark.parametrize(
    "tokens, message",
    [
        (["run", "c3ebench", "--judge-no-referee"], "judge_no_referee"),
        (["run", "ravel", "--preset", "paper"], "no preset 'paper'"),
        (["ravel", "plott", "RUN"], "no command 'plott'"),
        (["revision-distance", "stability", "--drafts", "d.jsonl", "--dry-run"], "no option"),
        (["score", "RUN", "--scorer", "no-such-scorer"], "unknown scorer"),
    ],
)
def test_a_wrong_command_is_caught(tokens, message):
    with pytest.raises(Exception, match=re.escape(message)):
        check(tokens)


def skipped_tables(readme: str) -> dict[str, set[str]]:
    """Per transcribed file, the tables its README names as left out of the copy (they still need a row)."""
    files = re.findall(r"^### (\w+)\.csv.*?\n(.*?)(?=^### |\Z)", readme, re.DOTALL | re.MULTILINE)
    return {
        name: set(re.findall(r"Table \d+", line))
        for name, text in files
        for line in text.splitlines()
        if line.startswith("- **Skipped:**")
    }


def test_the_page_names_every_published_table(shared_dir):
    page = PAGE.read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", page, re.DOTALL | re.MULTILINE))
    skipped = skipped_tables((shared_dir / "data" / "papers" / "README.md").read_text(encoding="utf-8"))
    assert skipped["writingbench"] and skipped["longweave"]
    for name, paper in (
        ("writingbench", "WritingBench"),
        ("meeseeks", "Meeseeks"),
        ("longweave", "LongWeave"),
        ("ravel_c3ebench", "RAVEL"),
        ("ravel_c3ebench", "C3EBench"),
        ("revision_distance", "Revision Distance"),
    ):
        with (shared_dir / "data" / "papers" / f"{name}.csv").open(encoding="utf-8") as handle:
            tables = {row["table"] for row in csv.DictReader(handle)} | skipped.get(name, set())
        section = next(text for title, text in sections.items() if title.startswith(paper))
        if paper == "RAVEL":
            tables = {"Table 2"}  # Table 3 (the judge's meta-evaluation) belongs to the C3EBench section
        missing = [t for t in sorted(tables) if f"| {t} " not in section]
        assert not missing, f"the {paper} section has no row for {missing}"


def ravel_role_ablations(page: Path) -> list[list[str]]:
    """The `run ravel` commands of a page that bind a tool role (§5.4's ablations)."""
    tools = {"planner", "writer", "reviewer", "reviser"}
    return [
        tokens
        for tokens in page_commands(page.read_text(encoding="utf-8"))
        if tokens[:2] == ["run", "ravel"] and any(t.partition("=")[0] in tools for t in tokens)
    ]


def test_both_ravel_pages_give_the_same_role_ablation_commands():
    ablations = ravel_role_ablations(PAGE)
    assert len(ablations) == 2
    assert ravel_role_ablations(PAGE.with_name("ravel.md")) == ablations

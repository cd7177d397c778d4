"""`proseval --help`, `list` and `describe TASK` start fast: they import no heavy library, no command
they do not run and no benchmark code beyond its registration (its package and parameter model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from proseval.cli import app
from proseval.cli.commands import benchmark_groups, built_in

HEAVY = ("scipy", "pandas", "matplotlib", "llama_cpp", "numpy", "aiohttp")
# What only running a command needs: the API, the judge analysis, the report, the runtime's runner,
# model providers, the viewer; and the commands' own modules.
NOT_AT_START = (
    "proseval.api",
    "proseval.reliability",
    "proseval.report",
    "proseval.plots",
    "proseval.view",
    "proseval.runtime.runner",
    "proseval.models.local",
    "proseval.models.http",
    "proseval.doctor",
)
# Loads the CLI as the console script does, runs it, and writes the names of the modules then imported.
CHILD = """
import json, sys
from proseval.cli import app
try:
    app(sys.argv[2:], prog_name="proseval")
except SystemExit as exit:
    status = exit.code
with open(sys.argv[1], "w") as out:
    json.dump({"status": status, "modules": sorted(sys.modules)}, out)
"""


def modules_after(tmp_path: Path, *args: str) -> set[str]:
    listing = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", CHILD, str(listing), *args], check=True, stdout=subprocess.DEVNULL, timeout=300
    )
    seen = json.loads(listing.read_text())
    assert seen["status"] == 0, f"proseval {' '.join(args)} exited {seen['status']}"
    return set(seen["modules"])


def benchmark_code(modules: set[str], allowed: str | None = None) -> list[str]:
    """Modules of a benchmark beyond its registration: its package and its parameter model (which the
    registry needs) are not counted, nor the code benchmarks share, nor anything of `allowed`."""
    found = []
    for module in modules:
        parts = module.split(".")
        if parts[:2] != ["proseval", "benchmarks"] or len(parts) < 4 or parts[2] in ("_shared", allowed):
            continue
        if parts[3] != "params":
            found.append(module)
    return sorted(found)


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("list",), ("describe", "writingbench")], ids=" ".join)
def test_help_list_and_describe_import_nothing_heavy_and_no_benchmark_code(tmp_path, args):
    modules = modules_after(tmp_path, *args)
    assert sorted(m for m in modules if m.split(".")[0] in HEAVY) == []
    assert sorted(m for m in modules if m.startswith(NOT_AT_START)) == []
    commands = {
        f"proseval.cli.{name}"
        for name in (
            "run",
            "run_set",
            "resume",
            "score",
            "agreement",
            "show",
            "compare",
            "report",
            "export",
            "doctor",
            "schema",
            "view",
            "cache",
            "generate",
            "common",
            "panel",
        )
    }
    assert sorted(modules & commands) == []
    assert benchmark_code(modules, allowed="writingbench" if args[0] == "describe" else None) == []
    assert {"proseval.benchmarks.writingbench", "proseval.benchmarks.meeseeks"} <= modules  # registered by name


def test_running_a_command_imports_it(tmp_path):
    modules = modules_after(tmp_path, "cache", "--help")
    assert "proseval.cli.cache" in modules and "proseval.cli.run" not in modules


def test_every_command_is_listed_with_its_own_help():
    """The line `--help` lists for a command (from the command table or a benchmark's registration) is
    the first paragraph of the help the command shows once imported."""
    listed = built_in() + benchmark_groups()
    assert [c.name for c in listed] == list(typer.main.get_group(app).commands)
    for command in listed:
        help_text = command.loaded.help or ""
        assert " ".join(command.help.split()) == " ".join(help_text.split("\n\n")[0].split()), command.name


def test_a_run_that_sends_no_http_request_imports_no_http_client(tmp_path):
    """A run on scripted models (as on the embedded one) never imports aiohttp or the OpenAI SDK, which
    build their TLS contexts and types on import."""
    offline = modules_after(
        tmp_path, "run", "demo", "-m", "scripted/echo", "-r", "judge=scripted/echo", "-n", "2", "--display", "none",
        "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert "proseval.runtime.runner" in offline  # it did run
    assert sorted(m for m in offline if m.split(".")[0] in ("aiohttp", "openai", "anthropic")) == []

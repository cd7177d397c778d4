"""Command-line interface: one module per command, over the Python API and the runtime.

Benchmarks add their own command groups and generators through the registry; they are
mounted here.
"""

from importlib import import_module

from ..registry import command_groups, generate_commands
from .app import app, generate_app

# Each module registers its commands; the order here is the order of `proseval --help`.
for _module in ("tasks", "run", "run_set", "resume", "score", "agreement", "show", "compare", "report", "export", "cache",
                "doctor", "schema", "view"):
    import_module(f"{__name__}.{_module}")

for _name, _load in command_groups().items():
    app.add_typer(_load(), name=_name)
for _name, _load in generate_commands().items():
    generate_app.command(_name)(_load())


def main() -> None:  # pragma: no cover - entry point
    app()


__all__ = ["app", "main"]

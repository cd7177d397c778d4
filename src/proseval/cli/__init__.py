"""Command-line interface: one module per command, over the Python API and the runtime.

`commands.py` lists the commands and benchmarks register their own command groups through the
registry; each is imported only when it runs (`lazy.py`).
"""

from .app import app


def main() -> None:  # pragma: no cover - entry point
    app()


__all__ = ["app", "main"]

"""What a plug-in should change, shown by the command line: a deprecated kit name it uses, a
registration it replaced on purpose.

Python hides a `DeprecationWarning` raised outside ``__main__``, so a plug-in's use of a name that
moved would go unseen under `proseval list` or `run`; and it shows other warnings with a path and
the line of source. `show_plugin_warnings` makes each of these one ``warning:`` line on stderr,
once per line of the plug-in that caused it, ending with where that line is; other warnings one
``warning:`` line too, without the source.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any, TextIO


class KitDeprecationWarning(DeprecationWarning):
    """A name of `proseval.kit` that moved or goes: the message names its new place."""


def short_path(filename: str) -> str:
    """`filename` from the folder on the import path that holds its package (``my_plugin/task.py``),
    else as it is."""
    path = Path(filename)
    if not path.is_absolute():
        return filename
    roots = {Path(entry or ".").resolve() for entry in sys.path}
    inside = [path.relative_to(root) for root in roots if path.is_relative_to(root)]
    return str(min(inside, key=lambda relative: len(relative.parts))) if inside else filename


def one_line(message: Warning | str, filename: str, lineno: int) -> str:
    """A plug-in's warning as the command line shows it."""
    return f"warning: {message} ({short_path(filename)}:{lineno})\n"


def _plugin_categories() -> tuple[type[Warning], ...]:
    from proseval.registry import RegistrationReplacedWarning

    return (KitDeprecationWarning, RegistrationReplacedWarning)


def show_plugin_warnings() -> None:
    """Show every plug-in warning once per line that raises it, as one line on stderr ending with
    where that line is; any other warning (a library's) as one `warning:` line without Python's
    source path and line of code. Warnings the user configured (``-W``, ``PYTHONWARNINGS``) keep
    their setting and Python's form. Calling it again changes nothing."""
    categories = _plugin_categories()
    if not sys.warnoptions:
        for category in categories:
            warnings.filterwarnings("default", category=category)
    if getattr(warnings.showwarning, "plugin_lines", False):
        return
    shown_before = warnings.showwarning

    def showwarning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> Any:
        if not issubclass(category, categories) and sys.warnoptions:  # the user asked for Python's own form
            return shown_before(message, category, filename, lineno, file, line)
        text = one_line(message, filename, lineno) if issubclass(category, categories) else f"warning: {message}\n"
        try:
            (file if file is not None else sys.stderr).write(text)
        except (OSError, AttributeError):  # no stderr to write to: the warning is lost, as Python's would be
            pass
        return None

    showwarning.plugin_lines = True  # type: ignore[attr-defined]  # a mark on the function
    warnings.showwarning = showwarning

"""The command line's error boundary: one `error:` line per user error, never a traceback.

Every command runs inside `ProsevalGroup.invoke`. A `ProsevalError` (a bad option or config
file, missing data or credentials, a refused resume, …) prints its message and exits with
its code (2: fix the command line or a file it names; 1: fix the environment or the data).
A missing file is reported the same way (exit 1). Anything else is a bug: a short message
names the file its traceback was written to and the command exits 1. `--debug` (anywhere on
the command line, or `PROSEVAL_DEBUG=1`) prints the traceback as well.
"""

from __future__ import annotations

import traceback
from typing import Any

import typer
from typer.core import TyperGroup

try:  # recent typer releases carry their own copy of click
    from typer._click import Context
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - older typer, on click itself
    from click import Context
    from click.exceptions import ClickException

from ..commandline.console import errors, print_error
from ..errors import ProsevalError
from ..runtime.errorlog import save_traceback
from ..runtime.secrets import scrub

DEBUG_ENV = "PROSEVAL_DEBUG"  # the environment's --debug (1, true, yes or on)


def print_traceback(exc: BaseException) -> None:
    """The traceback of `exc` on stderr, secrets scrubbed."""
    errors.print(scrub("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))).rstrip(),
                 markup=False, highlight=False, soft_wrap=True)


def user_error(exc: Exception) -> tuple[str, int] | None:
    """The message and exit status of an error the user can fix (None: a bug)."""
    if isinstance(exc, ProsevalError):
        return str(exc), exc.exit_code
    if isinstance(exc, FileNotFoundError):  # a data file a loader expected
        return (f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)), 1
    return None


def report(exc: Exception, debug: bool) -> int:
    """Tell the user about `exc` (its traceback too when debugging); the exit status."""
    if debug:
        print_traceback(exc)
    known = user_error(exc)
    if known is not None:
        print_error(known[0])
        return known[1]
    try:
        where = f"its traceback is in {save_traceback(exc)}" + ("" if debug else " (--debug prints it here)")
    except OSError as failed:  # nowhere to write it: show it rather than lose it
        if not debug:
            print_traceback(exc)
        where = f"its traceback is above (writing it to a file failed: {failed})"
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    print_error(f"unexpected {what} — a bug in proseval, please report it; {where}")
    return 1


class ProsevalGroup(TyperGroup):
    """The top-level command group: every command runs inside the error boundary."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """`--debug` anywhere before a `--` is the global option (no command has one of its own)."""
        end = args.index("--") if "--" in args else len(args)
        if "--debug" in args[:end]:
            args = ["--debug", *(arg for arg in args[:end] if arg != "--debug"), *args[end:]]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except (ClickException, typer.Exit, typer.Abort):  # typer's own usage errors and exits
            raise
        except Exception as exc:  # noqa: BLE001 - the boundary: every error is reported, none is lost
            raise typer.Exit(report(exc, bool(ctx.params.get("debug")))) from None

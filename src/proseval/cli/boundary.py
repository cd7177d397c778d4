"""The command line's error boundary: one `error:` line per user error, never a traceback.

Every command runs inside `ProsevalGroup.invoke`. A `ProsevalError` (a bad option or config
file, missing data or credentials, a refused resume, …) prints its message and exits with
its code (2: fix the command line or a file it names; 1: fix the environment or the data).
A file-system error the user can fix (a missing file, no permission, a file where a folder
should be, a full disk, a read-only file system) is one line naming the path (exit 1), and
click's usage errors (a value of the wrong type, a missing argument, an unknown command or
option) one line too (exit 2). Anything else is a bug: a short message names the file its
traceback was written to and the command exits 1. `--debug` (anywhere on the command line, or
`PROSEVAL_DEBUG=1`) prints the traceback as well.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import traceback
from collections.abc import Iterator
from typing import Any

import typer

try:  # recent typer releases carry their own copy of click
    from typer._click import Context
    from typer._click.exceptions import BadParameter, ClickException, MissingParameter, NoArgsIsHelpError
except ImportError:  # pragma: no cover - older typer, on click itself
    from click import Context  # type: ignore[assignment]  # the same classes, from click itself
    from click.exceptions import (  # type: ignore[assignment]  # the same classes, from click itself
        BadParameter,
        ClickException,
        MissingParameter,
        NoArgsIsHelpError,
    )
from pydantic import ValidationError

from ..commandline.console import errors, print_error, terminal_size_variables
from ..errors import ProsevalError, describe_os_error
from ..runtime.secrets import scrub
from .lazy import LazyGroup

DEBUG_ENV = "PROSEVAL_DEBUG"  # the environment's --debug (1, true, yes or on)
# File-system errors the user can fix, besides those with a class of their own (`FILE_ERRORS`).
FILE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.ENAMETOOLONG, errno.ELOOP, errno.EFBIG}
FILE_ERRORS = (FileNotFoundError, PermissionError, NotADirectoryError, IsADirectoryError, FileExistsError)


def print_traceback(exc: BaseException) -> None:
    """The traceback of `exc` on stderr, secrets scrubbed."""
    errors.print(
        scrub("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))).rstrip(),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def user_error(exc: Exception) -> tuple[str, int] | None:
    """The message and exit status of an error the user can fix (None: a bug)."""
    if isinstance(exc, ProsevalError):
        return str(exc), exc.exit_code
    if isinstance(exc, FILE_ERRORS) or (isinstance(exc, OSError) and exc.errno in FILE_ERRNOS):
        return describe_os_error(exc), 1
    return None


def sentence(text: str) -> str:
    """click's "Missing argument 'x'." as the project's own lines are written: "missing argument 'x'"."""
    text = text.strip().removesuffix(".")
    return text[0].lower() + text[1:] if text[:2].istitle() else text


def _from_environment(ctx: Context, name: str) -> bool:
    """Whether the value of parameter `name` came from its environment variable."""
    try:
        source = ctx.get_parameter_source(name)
    except (AttributeError, KeyError):
        return False
    return source is not None and source.name == "ENVIRONMENT"


def usage_message(exc: ClickException) -> str:
    """A usage error of click as one line: what is wrong (the option and the value given), and
    where the command's help is."""
    param = getattr(exc, "param", None)
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, MissingParameter) and param is not None and param.param_type_name == "argument":
        what = (getattr(param, "help", None) or "").strip().rstrip(".")
        message = f"{ctx.command_path if ctx else 'the command'} needs {param.name.upper()}" + (
            f": {what[:1].lower() + what[1:]}" if what else ""
        )
    elif isinstance(exc, BadParameter) and not isinstance(exc, MissingParameter) and param is not None:
        name = max(param.opts, key=len) if param.param_type_name == "option" else param.human_readable_name
        if ctx is not None and param.name and _from_environment(ctx, param.name):
            name = f"{param.envvar} (the environment's {name})"
        cause = exc.__cause__  # typer checks a value with pydantic, which keeps the value given
        if isinstance(cause, ValidationError) and cause.errors():
            first = cause.errors()[0]
            message = f"{name} {first['input']!r}: {sentence(first['msg'])}"
        else:
            message = f"{name}: {sentence(exc.message)}"
    message = sentence(message)
    if ctx is not None and ctx.command.get_help_option(ctx) is not None:
        message += f" (see: {ctx.command_path} {ctx.help_option_names[0]})"
    return message


@contextlib.contextmanager
def usage_errors() -> Iterator[None]:
    """click's usage errors as one `error:` line (its exit status, 2); `no_args_is_help` still prints the help."""
    try:
        yield
    except ClickException as exc:
        if isinstance(exc, NoArgsIsHelpError):  # the help, already printed by typer
            raise
        print_error(usage_message(exc))
        raise typer.Exit(exc.exit_code) from None


def report(exc: Exception, debug: bool) -> int:
    """Tell the user about `exc` (its traceback too when debugging); the exit status."""
    if debug:
        print_traceback(exc)
    known = user_error(exc)
    if known is not None:
        print_error(known[0])
        return known[1]
    from ..runtime.errorlog import save_traceback  # only now: it imports the response cache and the models

    try:
        where = f"its traceback is in {save_traceback(exc)}" + ("" if debug else " (--debug prints it here)")
    except OSError as failed:  # nowhere to write it: show it rather than lose it
        if not debug:
            print_traceback(exc)
        where = f"its traceback is above (writing it to a file failed: {failed})"
    said = scrub(str(exc)).strip() or "it gave no message"
    print_error(f"a bug in proseval: {said} — please report it; {where}")
    return 1


def standard_streams() -> None:
    """A process started with stdin, stdout or stderr closed (`<&-`, `>&-`) gets /dev/null in
    their place, so that no file, socket or pipe it opens later takes descriptor 0, 1 or 2 (the
    event loop's native code aborts when it closes one of those); the Python stream that was None
    writes there too. Output to a closed stream is dropped, as the user asked."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, mode, closefd=False, encoding="utf-8"))


class ProsevalGroup(LazyGroup):
    """The top-level command group: every command runs inside the error boundary."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Before anything prints or opens a file: the standard streams and the terminal's size."""
        standard_streams()
        terminal_size_variables()
        return super().main(*args, **kwargs)

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """`--debug` anywhere before a `--` is the global option (no command has one of its own)."""
        end = args.index("--") if "--" in args else len(args)
        if "--debug" in args[:end]:
            args = ["--debug", *(arg for arg in args[:end] if arg != "--debug"), *args[end:]]
        return super().parse_args(ctx, args)

    def make_context(
        self, info_name: str | None, args: list[str], parent: Context | None = None, **extra: Any
    ) -> Context:
        """The top level's own usage errors (an unknown option) as one line, like a command's."""
        with usage_errors():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: Context) -> Any:
        try:
            with usage_errors():
                return super().invoke(ctx)
        except (typer.Exit, typer.Abort, NoArgsIsHelpError):  # exits pass through (a usage error is one by now;
            raise  # a group called without a command has printed its help)
        except BrokenPipeError:  # the reader went away (`proseval ... | head`): click exits quietly
            raise
        except Exception as exc:  # noqa: BLE001 - the boundary: every error is reported, none is lost
            raise typer.Exit(report(exc, bool(ctx.params.get("debug")))) from None

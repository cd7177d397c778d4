"""The errors a user can fix, and the exit status each one gives.

Every such error derives from `ProsevalError`: the command line prints its message as one
`error:` line, without a traceback, and exits with its `exit_code` — 2 when the command line
or a file or folder it names must change (`UsageError`), 1 when the environment or the data
must (missing data files, a missing key, a failed download). Anything else that escapes a
command is a bug: the command line says where its traceback was written.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from typing import Any, ClassVar

from pydantic import ValidationError


class ProsevalError(Exception):
    """A problem the user can fix; the message says what is wrong and how to fix it."""

    exit_code: ClassVar[int] = 1

    def __str__(self) -> str:  # the message as given, also for KeyError subclasses (no quotes)
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class UsageError(ProsevalError):
    """An option, argument, configuration value, or a file or folder named by one, that cannot
    be used as given."""

    exit_code = 2


class DataError(ProsevalError):
    """A data file is missing, unreadable or malformed; the message names the file."""


class MissingDataError(DataError, FileNotFoundError):
    """Data files that should be there are not."""


_IN_TEXT = re.compile(r" at line \d+ column \d+")


def describe_validation_error(error: ValidationError, *, task: str | None = None, one_line: bool = False) -> str:
    """One-line summary of a pydantic error: ``field.path: message; ...`` (an unknown field says so;
    text that is not JSON says where the parser stopped). With `task`, the error is the task's
    parameters refusing its options: each field is named as its option (``--max-words``) and the
    line names the task and the command that lists its options. With `one_line` (the text was one
    line of a JSON Lines file, which the caller names), JSON's position inside that line is left out."""
    parts = []
    for item in error.errors():
        if item["type"] == "json_invalid":
            said = str(item["ctx"]["error"])  # a position inside one line contradicts the file line its reader names
            parts.append(f"not valid JSON ({_IN_TEXT.sub('', said) if one_line else said})")
            continue
        parts.append(f"{_location(item['loc'], task)}: {_message(item, task)}")
    if task is None:
        return "; ".join(parts)
    return f"task {task}: " + "; ".join(parts) + f" (see: proseval describe {task})"


def _location(loc: tuple[int | str, ...], task: str | None) -> str:
    if task is None:
        return ".".join(str(part) for part in loc) or "record"
    return "--" + "-".join(str(part) for part in loc).replace("_", "-") if loc else "parameters"


# pydantic's words that name Python types, and the project's for them
_TYPE_WORDS = {
    "model_type": "should be a mapping of names to values",
    "model_attributes_type": "should be a mapping of names to values",
}


def type_words(item: Any) -> str:
    """A pydantic error's message in the project's words: no Python type or model class named."""
    if item["type"] in _TYPE_WORDS:
        return f"Input {_TYPE_WORDS[item['type']]}"
    return str(item["msg"]).removeprefix("Value error, ")


def _message(item: Any, task: str | None) -> str:
    if item["type"] == "extra_forbidden":
        return "unknown field" if task is None else "unknown parameter"
    return type_words(item)


FULL_DISK_ADVICE = (
    "free space on that disk (or choose a folder on another one), then run the command again: a "
    "run continues where it stopped with proseval resume RUN"
)


def describe_os_error(exc: OSError) -> str:
    """`path: what is wrong` (a file in the way of a folder, or a folder in the way of a file, is named);
    a full disk or quota says what to do."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        where = f"{os.fsdecode(exc.filename)}: " if exc.filename else ""
        return f"{where}{exc.strerror or 'no space left'} — {FULL_DISK_ADVICE}"
    if not exc.filename:
        return exc.strerror or str(exc)
    path = Path(os.fsdecode(exc.filename))
    reason = exc.strerror or str(exc)
    if isinstance(exc, (NotADirectoryError, FileExistsError)):
        blocking = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            reason = "is a file, not a folder" if blocking == path else f"{blocking} is a file, not a folder"
    elif isinstance(exc, IsADirectoryError):
        reason = "is a folder, not a file"
    return f"{path}: {reason}" + (f" (to {exc.filename2})" if exc.filename2 else "")

"""The one reader of the files a user names as options: config, set, suite, prices and model-rules
files. Such a file is small text; a path given by mistake (`--config /dev/zero`, a model file, a
log) is refused before it is read whole: a device, which may never end, unread, anything else at
`OPTION_FILE_LIMIT` bytes. A pipe (`--config <(...)`) is read up to the limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import UsageError

OPTION_FILE_LIMIT = 16 * 1024 * 1024
LIMIT_TEXT = "16 MB"


class OptionFileError(UsageError):
    """An option file that cannot be read, or is not one."""


def _kind(mode: int) -> str | None:
    """What a file that is neither a regular file, a pipe nor a folder is (None: it is one of those)."""
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def _refuse_kind(path: Path, status: os.stat_result) -> None:
    kind = _kind(status.st_mode)
    if kind is not None:
        raise OptionFileError(
            f"{path}: {kind}, not a file (reading it might never end); give the path of the file itself"
        )


def _too_large(path: Path, limit: int) -> OptionFileError:
    size = LIMIT_TEXT if limit == OPTION_FILE_LIMIT else f"{limit:,} bytes"
    return OptionFileError(
        f"{path}: larger than {size}, the most an option file may hold; is it the file you meant to give?"
    )


def read_option_file(path: Path, limit: int = OPTION_FILE_LIMIT) -> bytes:
    """The bytes of the option file `path`; an `OptionFileError` naming it when it cannot be read,
    is a device or socket, or holds more than `limit` bytes."""
    try:
        _refuse_kind(path, os.stat(path))  # before opening: opening some devices has effects, or waits
        with open(path, "rb") as file:
            status = os.fstat(file.fileno())
            _refuse_kind(path, status)  # what was opened, should the path have changed meanwhile
            if stat.S_ISREG(status.st_mode) and status.st_size > limit:
                raise _too_large(path, limit)
            data = file.read(limit + 1)
    except OSError as exc:
        raise OptionFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise _too_large(path, limit)
    return data

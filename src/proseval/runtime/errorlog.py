"""Where the traceback of an unexpected error goes: `error.log` in the run folder that was being
written when it happened, else a new file under the cache folder; secrets scrubbed, as in records."""

from __future__ import annotations

import os
import sys
import traceback
from datetime import datetime, timezone
from pathlib import Path

from .cache import cache_dir
from .secrets import scrub

ERROR_LOG = "error.log"
_LOG_ATTRIBUTE = "proseval_error_log"


def errors_dir() -> Path:
    """`errors/` beside the response cache (`PROSEVAL_CACHE_DIR` moves both)."""
    return cache_dir() / "errors"


def note_log(exc: BaseException, path: Path) -> None:
    """Mark `path` as the log for `exc`'s traceback (the innermost run folder's log wins)."""
    if getattr(exc, _LOG_ATTRIBUTE, None) is None:
        setattr(exc, _LOG_ATTRIBUTE, path)


def save_traceback(exc: BaseException) -> Path:
    """Append `exc`'s traceback, with the time and the command line, to its noted log (else a new
    file under `errors_dir()`); the file written."""
    path = getattr(exc, _LOG_ATTRIBUTE, None) or errors_dir() / (
        f"traceback-{datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}.txt"
    )
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(scrub(f"--- {at}, pid {os.getpid()}: {' '.join(sys.argv)}\n{text}\n"))
    return path

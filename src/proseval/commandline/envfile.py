"""The `.env` file of the current folder: keys and settings for the commands that call models."""

from __future__ import annotations

import io
from pathlib import Path

from dotenv import load_dotenv

from ..errors import ProsevalError

ENV_FILE = ".env"


class EnvFileError(ProsevalError):
    """The `.env` file cannot be read as text."""


def load_env_file(folder: Path | None = None) -> None:
    """Set the variables of `.env` in `folder` (default: the current folder) that the environment
    does not set already; no file, nothing set. A file that is not UTF-8 is refused, naming the
    line and column of the first byte that is not."""
    path = (folder or Path.cwd()) / ENV_FILE
    if not path.is_file():
        return
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise EnvFileError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column}); save the file as UTF-8"
        ) from None
    load_dotenv(stream=io.StringIO(text))

"""The command line started with a standard stream closed (`>&-`, `<&-`) or with a terminal size
that is no size (`COLUMNS=0`) still runs and says what it says, in child processes as a shell
would start them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

RUN = ["run", "demo", "-m", "scripted/echo", "-r", "judge=scripted/echo", "-n", "2", "--display", "none"]


def proseval(args: list[str], tmp_path: Path, *, close: int | None = None, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PROSEVAL_CACHE_DIR": str(tmp_path / "cache"), **env}
    closing = (lambda: os.close(close)) if close is not None else None
    return subprocess.run(
        [sys.executable, "-m", "proseval", *args],
        cwd=tmp_path,
        env=environment,
        preexec_fn=closing,
        capture_output=close is None,
        timeout=300,
        stdin=subprocess.DEVNULL if close != 0 else None,
        stdout=None if close is None else (subprocess.DEVNULL if close != 1 else None),
        stderr=None if close is None else subprocess.DEVNULL,
    )


@pytest.mark.parametrize("closed", [0, 1])
def test_a_run_with_stdin_or_stdout_closed_finishes_and_writes_its_folder(tmp_path: Path, closed: int):
    done = proseval([*RUN, "-o", "runs"], tmp_path, close=closed)
    assert done.returncode == 0  # was 134: the event loop aborted closing a descriptor it took as 0 or 1
    (folder,) = (tmp_path / "runs").iterdir()
    assert (folder / "results.json").is_file()


def test_a_dry_run_with_stdout_closed_exits_0(tmp_path: Path):
    assert proseval([*RUN, "--dry-run"], tmp_path, close=1).returncode == 0


@pytest.mark.parametrize("columns", ["0", "", "wide"])
def test_a_terminal_size_that_is_no_size_is_ignored(tmp_path: Path, columns: str):
    listed = proseval(["list"], tmp_path, COLUMNS=columns)
    assert listed.returncode == 0 and "writingbench" in listed.stdout.decode()
    refused = proseval(["run", "no-such-task"], tmp_path, COLUMNS=columns)
    assert refused.returncode == 2 and "unknown task 'no-such-task'" in refused.stderr.decode()

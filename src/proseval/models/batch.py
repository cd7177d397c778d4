"""What a provider's batch API offers the run's batch engine (`proseval.runtime.batch`), and opening
one. The pieces the protocols share with it are in `batch_parts`, which imports no protocol.

A provider's protocol (`openai_batch.OpenAIBatchAPI`, `anthropic_batch.AnthropicBatchAPI`) builds a
request's line, *stages* lines (OpenAI: the file upload; Anthropic: nothing sent, the lines kept
for the create, which carries them), creates a batch, finds one whose create's answer was lost,
polls it and reads its results by custom id. The engine cuts batches, records them, retries and
waits; it knows nothing of a provider's endpoints or formats.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from .base import GenerateConfig, Message, ModelError
from .batch_parts import Answer, BatchExpiredError, Reader

__all__ = ["BATCH_PROVIDERS", "Answer", "Batch", "BatchAPI", "BatchExpiredError", "Reader", "open_batch_api"]

BATCH_PROVIDERS = ("openai", "openai-compatible", "anthropic")


class Batch(Protocol):
    """What the engine reads of a batch at the provider."""

    id: str
    status: str


class BatchAPI(Protocol):
    """One endpoint's batch API, as the engine uses it. ``staged_event`` and ``staged_field`` name
    how the run's batch log records staged lines; ``terminal`` lists the statuses of an ended batch."""

    base_url: str
    max_requests: int
    max_bytes: int
    staged_event: str
    staged_field: str
    terminal: tuple[str, ...]
    probe_path: str

    def body(self, model: str, messages: list[Message], config: GenerateConfig) -> dict[str, Any]: ...

    def line(self, cid: str, body: dict[str, Any]) -> bytes: ...

    async def stage(self, data: bytes, name: str) -> str: ...

    def claim(self, batch_ids: Iterable[str]) -> None:
        """Batches recorded by this run: never taken for a lost create."""

    async def probe(self) -> None: ...

    async def create(self, staged: str, window: str) -> Batch: ...

    async def find(self, staged: str, since: float, count: int = 0) -> Batch | None:
        """The batch a lost create made of ``staged`` (``count`` requests, sent at ``since``), if any."""

    async def retrieve(self, batch_id: str) -> Batch: ...

    async def results(self, batch: Any, latency: float, read: Reader, what: str) -> dict[str, Answer]:
        """The answers of an ended batch by custom id (those it lacks count as missing)."""

    def failure(self, batch: Any) -> str | None:
        """Why the provider says a failed batch failed (None: it says nothing)."""

    def error(self, exc: BaseException, what: str) -> ModelError:
        """An exception of a call to this API as a `ModelError` of the usual kind."""

    async def aclose(self) -> None: ...


def open_batch_api(provider: str, base_url: str, model: str) -> BatchAPI:
    """The batch API of an endpoint of a provider in `BATCH_PROVIDERS`, with the provider's key, for
    the requests of `model` (an Anthropic batch is created under the API version the model speaks)."""
    if provider == "anthropic":
        from .anthropic_batch import AnthropicBatchAPI
        from .anthropic_messages import api_version
        from .anthropic_messages import resolve_api_key as anthropic_key

        return AnthropicBatchAPI(base_url, anthropic_key(), api_version(model))
    from .openai_batch import OpenAIBatchAPI
    from .openai_compat import resolve_api_key

    return OpenAIBatchAPI(base_url, resolve_api_key(provider))

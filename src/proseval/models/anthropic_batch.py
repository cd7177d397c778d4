"""Anthropic's Message Batches (`/v1/messages/batches`), over aiohttp like `anthropic_messages`:
a batch is one create carrying its requests (each a real-time Messages body), polled until it ends,
its results read as JSONL from the batch's `results_url`. A batch carries nothing of ours that a
list shows, so a lost create is found by its request count and creation time."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from . import anthropic_messages as messages_api
from .base import Completion, GenerateConfig, Message, ModelError, RetryableError
from .batch_parts import Answer, BatchExpiredError, Reader, result_lines, status_error, transport_error
from .http import connection_words, short

ANTHROPIC_MAX_REQUESTS = 100_000  # requests in one Message Batch (Anthropic's documented limit)
ANTHROPIC_MAX_BYTES = 256 * 1024 * 1024  # bytes of one Message Batch create request (Anthropic's limit)

# Anthropic's error types (`error.type`) as the HTTP status a real-time request gets with them.
ANTHROPIC_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def anthropic_item_result(line: dict[str, Any], latency: float) -> Completion | ModelError:
    """One line of a Message Batch's results (`{custom_id, result: {type, message | error}}`) as the
    answer or the error of its request: `errored` with a retryable error type, `expired` and
    `canceled` can be retried (the next batch, then real time); `invalid_request_error` and the
    other errors no retry fixes fail as a real-time request would."""
    result = found if isinstance(found := line.get("result"), dict) else {}
    kind = result.get("type")
    if kind == "succeeded":
        try:
            return messages_api.to_completion(result.get("message"), latency).model_copy(update={"raw": None})
        except ModelError as exc:
            return exc
    if kind == "expired":
        return BatchExpiredError("batch item expired: not run before the batch expired")
    if kind == "canceled":
        return RetryableError("batch item canceled: not run before the batch was canceled")
    if kind == "errored":
        error = found if isinstance(found := result.get("error"), dict) else {}
        if isinstance(error.get("error"), dict):  # an error response: {"type": "error", "error": {...}}
            error = error["error"]
        error_type, message = str(error.get("type") or "error"), str(error.get("message") or "")
        status = ANTHROPIC_ERROR_STATUS.get(error_type)
        if status is None:
            return RetryableError(f"batch item errored: {error_type}: {short(message)}")
        return status_error(status, f"{error_type}: {message}", "batch item")
    return RetryableError(f"batch item without a result: {short(json.dumps(line))}")


@dataclass
class AnthropicBatch:
    """What proseval reads of a Message Batch."""

    id: str
    status: str  # processing_status: in_progress | canceling | ended
    results_url: str | None
    created_at: float  # seconds since the epoch (0 when unknown)
    total: int  # requests in the batch (the sum of request_counts)

    @classmethod
    def of(cls, data: Any) -> AnthropicBatch:
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            raise RetryableError(f"malformed message batch: {short(str(data))}")
        counts = found if isinstance(found := data.get("request_counts"), dict) else {}
        return cls(
            data["id"],
            str(data.get("processing_status")),
            data.get("results_url"),
            _timestamp(data.get("created_at")),
            sum(int(v or 0) for v in counts.values()),
        )


def _timestamp(value: Any) -> float:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


class AnthropicBatchAPI:
    """Anthropic's Message Batches (`/v1/messages/batches`) over aiohttp, behind `batch.BatchAPI`
    (as `OpenAIBatchAPI`), under `api_version`: the version the role's model speaks, so that the
    requests of a batch are read as their real-time twins are. There are no files: *staging* keeps
    the lines (nothing is sent), the create posts them as `{"requests": [{"custom_id", "params"},
    ...]}`. A batch carries nothing of ours that a list shows, so a lost create is found by its
    request count among the batches created since shortly before it and not recorded by this run
    (an adopted stranger costs no more than a retry: its custom ids are not ours, so our requests
    count as missing and go into the next batch)."""

    max_requests = ANTHROPIC_MAX_REQUESTS
    max_bytes = ANTHROPIC_MAX_BYTES - 64 * 1024  # the JSON around the requests, with room to spare
    staged_event, staged_field = "submitting", "submission"
    terminal: tuple[str, ...] = ("ended",)
    probe_path = "/v1/messages/batches"

    def __init__(self, base_url: str, key: str, api_version: str = messages_api.ANTHROPIC_VERSION):
        self.base_url = messages_api.normal_base_url(base_url)
        self._headers = messages_api.api_headers(key, api_version)
        self._session: Any = None
        self._staged: dict[str, bytes] = {}
        self.claimed: set[str] = set()  # batches created or adopted here, or recorded by this run

    @staticmethod
    def body(model: str, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """A request's params: the real-time Messages body (refused settings raise `FatalError`)."""
        return messages_api.request_body(model, messages, config)

    @staticmethod
    def line(cid: str, body: dict[str, Any]) -> bytes:
        """One request of the create's `requests` list, with the comma that separates it."""
        return (json.dumps({"custom_id": cid, "params": body}, ensure_ascii=False) + ",").encode()

    async def stage(self, data: bytes, name: str) -> str:
        submission = "sub-" + uuid.uuid4().hex[:24]  # unique even when the same requests are sent again
        self._staged[submission] = data
        return submission

    def claim(self, batch_ids: Iterable[str]) -> None:
        self.claimed.update(batch_ids)

    def _client(self) -> Any:
        import aiohttp

        if self._session is None or self._session.closed:  # created inside the running loop
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300))
        return self._session

    async def _request(self, method: str, url: str, *, data: bytes | None = None, what: str) -> bytes:
        """One call, its outcome mapped to the usual errors (no retries: the caller's)."""
        import aiohttp

        try:
            async with self._client().request(
                method, url, data=data, headers=self._headers, timeout=aiohttp.ClientTimeout(total=600.0)
            ) as reply:
                raw = await reply.read()
                if reply.status >= 400:
                    raise messages_api.status_error(
                        reply.status, messages_api.error_detail(raw), f"{what} ({self.base_url})", reply.headers
                    )
                return raw
        except asyncio.TimeoutError:
            raise RetryableError(f"{what}: timed out ({self.base_url})") from None
        except aiohttp.ClientError as exc:
            raise RetryableError(f"{what}: connection error ({self.base_url}): {connection_words(exc)}") from None

    async def _json(self, method: str, path: str, *, data: bytes | None = None, what: str) -> Any:
        raw = await self._request(method, self.base_url + path, data=data, what=what)
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise RetryableError(f"{what}: malformed response body: {short(str(exc))}") from None

    async def probe(self) -> None:
        await self._json("GET", "/v1/messages/batches?limit=1", what="listing message batches")

    async def create(self, submission: str, window: str) -> AnthropicBatch:
        """Create the batch of the staged lines (`window` is Anthropic's fixed 24 hours)."""
        data = b'{"requests": [' + self._staged[submission].rstrip(b",") + b"]}"
        batch = AnthropicBatch.of(
            await self._json("POST", "/v1/messages/batches", data=data, what="creating a message batch")
        )
        self._staged.pop(submission, None)
        self.claimed.add(batch.id)
        return batch

    async def find(self, submission: str, since: float, count: int = 0) -> AnthropicBatch | None:
        """The batch of `count` requests created since shortly before `since` and not claimed here
        (newest first; none older than an hour before `since` is looked at)."""
        after: str | None = None
        while True:
            query = "?limit=100" + (f"&after_id={after}" if after else "")
            page = await self._json("GET", "/v1/messages/batches" + query, what="listing message batches")
            data = page.get("data") if isinstance(page, dict) else None
            if not isinstance(data, list):
                return None
            for item in data:
                batch = AnthropicBatch.of(item)
                if batch.created_at and batch.created_at < since - 3600:
                    return None
                if batch.id not in self.claimed and batch.total == count and batch.created_at >= since - 120:
                    self._staged.pop(submission, None)
                    self.claimed.add(batch.id)
                    return batch
            if not page.get("has_more") or not page.get("last_id"):
                return None
            after = str(page["last_id"])

    async def retrieve(self, batch_id: str) -> AnthropicBatch:
        return AnthropicBatch.of(
            await self._json("GET", f"/v1/messages/batches/{batch_id}", what=f"polling message batch {batch_id}")
        )

    def _results_url(self, batch: AnthropicBatch) -> str:
        """`results_url` when it is on the API's own host (the key goes with it), else the usual path."""
        own = urlsplit(self.base_url)
        given = urlsplit(batch.results_url or "")
        if (given.scheme, given.netloc) == (own.scheme, own.netloc) and given.path:
            return str(batch.results_url)
        return f"{self.base_url}/v1/messages/batches/{batch.id}/results"

    async def results(self, batch: AnthropicBatch, latency: float, read: Reader, what: str) -> dict[str, Answer]:
        """The answers of an ended batch by custom id, from its JSONL results (`read` retries)."""
        url = self._results_url(batch)

        async def fetch() -> str:
            return (await self._request("GET", url, what=f"reading the results of {what}")).decode("utf-8", "replace")

        try:
            text = await read(fetch, f"reading the results of {what}")
        except ModelError:
            return {}  # its requests count as missing: retried
        return result_lines(text, anthropic_item_result, latency)

    @staticmethod
    def failure(batch: AnthropicBatch) -> str | None:
        """A Message Batch says nothing of why it failed (it only ends)."""
        return None

    @staticmethod
    def error(exc: BaseException, what: str) -> ModelError:
        return transport_error(exc, what)

    async def cancel(self, batch_id: str) -> AnthropicBatch:
        return AnthropicBatch.of(
            await self._json(
                "POST", f"/v1/messages/batches/{batch_id}/cancel", what=f"canceling message batch {batch_id}"
            )
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()

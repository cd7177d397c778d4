"""OpenAI's batch protocol (`/v1/files` with `/v1/batches`), also offered by OpenAI-compatible
servers: the requests of a batch are a JSONL file of chat-completions calls, uploaded
(`purpose=batch`); a batch is created from the file, polled, and its output and error files read.
A lost create is found by its input file."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import partial
from typing import Any

from .base import Completion, GenerateConfig, Message, ModelError, RetryableError
from .batch_parts import Answer, BatchExpiredError, Reader, result_lines, status_error, transport_error
from .http import short
from .openai_compat import _to_completion

OPENAI_MAX_REQUESTS = 50_000  # requests in one batch (OpenAI's documented limit)
OPENAI_MAX_BYTES = 200 * 1024 * 1024  # bytes of one batch input file (OpenAI's documented limit)
TERMINAL: tuple[str, ...] = ("completed", "failed", "expired", "cancelled")


def item_result(line: dict[str, Any], latency: float) -> Completion | ModelError:
    """One line of a batch's output or error file as the answer or the error of its request."""
    response = line.get("response") or {}
    status, body = response.get("status_code"), response.get("body")
    if status == 200 and isinstance(body, dict):
        try:
            return _to_completion(body, latency).model_copy(update={"raw": None})
        except ModelError as exc:
            return exc
    error = line.get("error")
    if isinstance(error, dict) and error:
        kind = BatchExpiredError if error.get("code") == "batch_expired" else RetryableError
        return kind(f"batch item {error.get('code') or 'error'}: {short(str(error.get('message')))}")
    if isinstance(status, int):
        detail = (
            body.get("error", {}).get("message")
            if isinstance(body, dict) and isinstance(body.get("error"), dict)
            else str(body)
        )
        return status_error(status, str(detail), "batch item")
    return RetryableError(f"batch item without a response: {short(json.dumps(line))}")


class OpenAIBatchAPI:
    """The provider's files and batches endpoints, through the `openai` client (its own retries
    off: a lost answer to a create is looked up, never sent twice)."""

    max_requests = OPENAI_MAX_REQUESTS
    max_bytes = OPENAI_MAX_BYTES
    staged_event, staged_field = "uploaded", "file_id"  # how batches.jsonl records staged lines
    terminal = TERMINAL
    probe_path = "/batches"

    def __init__(self, base_url: str, key: str):
        import openai  # here: the SDK takes 0.3 s to import, which only this provider needs

        self.base_url = base_url
        self.client = openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=600.0)

    @staticmethod
    def body(model: str, messages: list[Message], config: GenerateConfig) -> dict[str, Any]:
        """A request's body: the real-time chat-completions body."""
        return {"model": model, "messages": messages, **config.sent_params()}

    @staticmethod
    def line(cid: str, body: dict[str, Any]) -> bytes:
        return (
            json.dumps(
                {"custom_id": cid, "method": "POST", "url": "/v1/chat/completions", "body": body}, ensure_ascii=False
            )
            + "\n"
        ).encode()

    async def stage(self, data: bytes, name: str) -> str:
        return await self.upload(data, name)

    def claim(self, batch_ids: Iterable[str]) -> None:
        """Batches recorded by this run (the look-up by file needs no list of them)."""

    async def results(self, batch: Any, latency: float, read: Reader, what: str) -> dict[str, Answer]:
        """The answers of an ended batch by custom id: its output and error files (`read` retries)."""
        results: dict[str, Answer] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            try:
                text = await read(partial(self.content, file_id), f"reading {what}'s file {file_id}")
            except ModelError:
                continue  # its requests count as missing: retried
            results.update(result_lines(text, item_result, latency))
        return results

    @staticmethod
    def failure(batch: Any) -> str | None:
        """The first errors a failed batch lists."""
        errors = getattr(batch, "errors", None)
        if errors is not None and getattr(errors, "data", None):
            return "; ".join(short(str(e.message)) for e in errors.data[:3])
        return None

    @staticmethod
    def error(exc: BaseException, what: str) -> ModelError:
        """An exception of the `openai` client as a `ModelError` of the usual kind."""
        import openai

        if isinstance(exc, openai.APIStatusError):
            return status_error(exc.status_code, exc.message, what, exc.response.headers)
        return transport_error(exc, what)

    async def probe(self) -> None:
        await self.client.batches.list(limit=1)

    async def upload(self, data: bytes, name: str) -> str:
        return (await self.client.files.create(file=(name, data, "application/jsonl"), purpose="batch")).id

    async def create(self, file_id: str, window: str) -> Any:
        return await self.client.batches.create(
            input_file_id=file_id,
            endpoint="/v1/chat/completions",
            completion_window=window,  # type: ignore[arg-type]  # SDK: "24h" only
        )

    async def find(self, file_id: str, since: float, count: int = 0) -> Any | None:
        """The batch created from `file_id`, if any (newest first; none older than an hour before `since`)."""
        async for batch in self.client.batches.list(limit=100):
            if batch.input_file_id == file_id:
                return batch
            if batch.created_at < since - 3600:
                break
        return None

    async def retrieve(self, batch_id: str) -> Any:
        return await self.client.batches.retrieve(batch_id)

    async def content(self, file_id: str) -> str:
        return (await self.client.files.content(file_id)).text

    async def cancel(self, batch_id: str) -> Any:
        return await self.client.batches.cancel(batch_id)

    async def aclose(self) -> None:
        await self.client.close()

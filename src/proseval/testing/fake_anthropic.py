"""A fake Anthropic API on 127.0.0.1: the Messages API and Message Batches, for tests and dry runs.

`FakeAnthropicServer` answers what proseval's `anthropic` provider and its batch mode send:

- `POST /v1/messages` (real time): the body is checked as the API checks it (`model`, `max_tokens`
  and `messages` required, roles `user`/`assistant` only, no unknown field, `x-api-key` and
  `anthropic-version` headers), then answered by the responder after `latency` seconds; a
  *behaviour* function (the `Reply` of `fake_openai`) can make a request fail: a status (429 with
  `retry-after`, 500, 529, 400 …, with Anthropic's error body), a hang, a malformed body, a
  dropped connection, or (``echo_headers``) an error that echoes the request's headers, key included;
- `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, `GET /v1/messages/batches`
  (newest first, `limit`, `after_id`), `GET /v1/messages/batches/{id}/results` (JSONL),
  `POST /v1/messages/batches/{id}/cancel`.

The responder takes the request's body and returns the answer's text, or `(text, stop_reason)`
(default `end_turn`). Usage counts words: the system prompt and the messages in, the text out.

A batch stays `in_progress` for `polls_to_complete` retrievals, for `completion_delay` seconds
after its creation, and while `hold` is set; then each request is answered by the responder, or
per `item_fault(params, times_in_a_batch_before)`: ``"errored"`` (an `api_error`, retryable),
``"overloaded"``, ``"invalid_request"`` (fails for good), ``"expired"``, ``"canceled"`` or
``"missing"`` (no line). `lose_create_answers` makes that many creates answer 500 after the batch
was made. Counters: `creates`, `polls`, `lists`, `results_reads`, `cancels`, `realtime` (real-time
messages), and `submitted` (how often each custom id was in a created batch); `requests` holds
every body answered, in real time or in a batch; `api_keys` every key sent.

    python -m proseval.testing.fake_anthropic --port 8012 --latency 0.2
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .fake_openai import FakeOpenAIServer, Reply, serve_forever

Responder = Callable[[dict[str, Any]], "str | tuple[str, str]"]
ItemFault = Callable[[dict[str, Any], int], "str | None"]
BODY_FIELDS = {"model", "messages", "max_tokens", "system", "temperature", "top_p", "top_k", "stop_sequences",
               "metadata", "stream", "thinking", "tools", "tool_choice", "service_tier", "container", "mcp_servers"}
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
               529: "overloaded_error"}
CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def default_text(body: dict[str, Any]) -> str:
    """An echo of the last message's content."""
    messages = body.get("messages") or [{}]
    return f"echo: {messages[-1].get('content', '')}"


def _words(value: Any) -> int:
    return len(str(value or "").split())


def message_of(body: dict[str, Any], answer: str | tuple[str, str]) -> dict[str, Any]:
    """A Messages API `message` answering `body` with the responder's answer."""
    text, stop_reason = (answer, "end_turn") if isinstance(answer, str) else answer
    prompt = _words(body.get("system")) + sum(_words(m.get("content")) for m in body.get("messages") or [])
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": body.get("model", "fake"),
            "content": [{"type": "text", "text": text}], "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": _words(text)}}


def check_body(body: Any) -> str | None:
    """Why the API would refuse this Messages body (None: it would take it)."""
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            return f"{name}: Field required"
    unknown = sorted(set(body) - BODY_FIELDS)
    if unknown:
        return f"{unknown[0]}: Extra inputs are not permitted"
    if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
        return "max_tokens: must be a positive integer"
    if not isinstance(body["messages"], list) or not body["messages"]:
        return "messages: at least one message is required"
    for index, message in enumerate(body["messages"]):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages.{index}.role: Input should be 'user' or 'assistant'"
        if set(message) - {"role", "content"}:
            return f"messages.{index}: Extra inputs are not permitted"
    return None


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat().replace("+00:00", "Z")


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


@dataclass
class FakeMessageBatch:
    id: str
    requests: list[dict[str, Any]]
    created_at: float
    status: str = "in_progress"
    polls: int = 0
    ended_at: float | None = None
    cancel_at: float | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def info(self, base_url: str) -> dict[str, Any]:
        counts = self.counts or {"processing": len(self.requests), "succeeded": 0, "errored": 0, "canceled": 0,
                                 "expired": 0}
        return {"id": self.id, "type": "message_batch", "processing_status": self.status,
                "request_counts": dict(counts), "created_at": _iso(self.created_at), "ended_at": _iso(self.ended_at),
                "expires_at": _iso(self.created_at + 86400), "cancel_initiated_at": _iso(self.cancel_at),
                "archived_at": None,
                "results_url": f"{base_url}/v1/messages/batches/{self.id}/results" if self.status == "ended" else None}


class FakeAnthropicServer(FakeOpenAIServer):
    """The fake Anthropic API (see the module's text). Run with `async with` inside a loop, or
    `start_in_thread()` from synchronous code."""

    def __init__(self, *, latency: float = 0.0, behaviour: Callable[[int, dict[str, Any]], Reply] | None = None,
                 responder: Responder = default_text, port: int = 0, polls_to_complete: int = 1,
                 completion_delay: float = 0.0, item_fault: ItemFault | None = None):
        super().__init__(latency=latency, behaviour=behaviour, responder=responder, port=port)  # type: ignore[arg-type]
        self.polls_to_complete = polls_to_complete
        self.completion_delay = completion_delay
        self.item_fault = item_fault
        self.hold = False  # while set, no batch ends
        self.lose_create_answers = 0
        self.batches: dict[str, FakeMessageBatch] = {}
        self.creates = 0
        self.polls = 0
        self.lists = 0
        self.results_reads = 0
        self.cancels = 0
        self.realtime = 0
        self.submitted: Counter[str] = Counter()
        self.api_keys: list[str] = []
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _respond(self, request_line: str, raw: bytes, writer: Any, headers: dict[str, str] | None = None) -> bool:
        method, target, _ = (request_line.split(" ") + ["", ""])[:3]
        headers = headers or {}
        url = urlsplit(target)
        parts = [p for p in url.path.split("/") if p]
        key = headers.get("x-api-key")
        if key:
            self.api_keys.append(key)
        if not key:
            return await self._json(writer, 401, _error("authentication_error", "x-api-key header is required"))
        if headers.get("anthropic-version") != "2023-06-01":
            return await self._json(writer, 400, _error("invalid_request_error",
                                                        "anthropic-version header is required"))
        if parts == ["v1", "messages"] and method == "POST":
            return await self._message(raw, writer, headers)
        if parts[:3] != ["v1", "messages", "batches"]:
            return await self._json(writer, 404, _error("not_found_error", f"{method} {url.path} not found"))
        try:
            status, payload = self._route(method, parts[3:], parse_qs(url.query), raw)
        except KeyError as exc:
            status, payload = 404, _error("not_found_error", f"no such message batch: {exc}")
        except ValueError as exc:
            status, payload = 400, _error("invalid_request_error", str(exc))
        if isinstance(payload, bytes):
            await self._send(writer, status, payload)
            return True
        return await self._json(writer, status, payload)

    async def _json(self, writer: Any, status: int, payload: Any, headers: dict[str, str] | None = None) -> bool:
        await self._send(writer, status, json.dumps(payload).encode(), headers)
        return True

    # --- real time -----------------------------------------------------------------------------

    async def _message(self, raw: bytes, writer: Any, headers: dict[str, str]) -> bool:
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return await self._json(writer, 400, _error("invalid_request_error", "invalid JSON"))
        reply = await self._next_reply(body)
        if reply is None:
            return False
        if reply.kind == "echo_headers":  # a hostile or careless server: the request's headers in the error
            return await self._json(writer, reply.status, _error("invalid_request_error",
                                                                 f"bad request; headers were {headers}"))
        if reply.kind == "status":
            kind = ERROR_TYPES.get(reply.status, "api_error")
            return await self._json(writer, reply.status, _error(kind, reply.text or f"fake {kind}"), reply.headers)
        if reply.kind == "malformed":
            await self._send(writer, 200, b'{"id": "msg_x", "content": [ {"type": ')
            return True
        problem = check_body(body)
        if problem:
            return await self._json(writer, 400, _error("invalid_request_error", problem))
        self.realtime += 1
        self.requests.append(body)
        answer = reply.text if reply.text is not None else self.responder(body)
        return await self._json(writer, 200, message_of(body, answer), reply.headers)

    # --- message batches -----------------------------------------------------------------------

    def _route(self, method: str, parts: list[str], query: dict[str, list[str]], raw: bytes) -> tuple[int, Any]:
        if not parts and method == "POST":
            created = self._create(json.loads(raw or b"{}"))
            if self.lose_create_answers > 0:
                self.lose_create_answers -= 1
                return 500, _error("api_error", "fake: the batch was created, this answer is lost")
            return 200, created
        if not parts and method == "GET":
            return 200, self._list(query)
        if len(parts) == 1 and method == "GET":
            return 200, self._retrieve(parts[0])
        if len(parts) == 2 and parts[1] == "results" and method == "GET":
            batch = self.batches[parts[0]]
            if batch.status != "ended":
                raise ValueError(f"message batch {batch.id} is still {batch.status}: no results yet")
            self.results_reads += 1
            return 200, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in batch.results).encode()
        if len(parts) == 2 and parts[1] == "cancel" and method == "POST":
            return 200, self._cancel(parts[0])
        return 404, _error("not_found_error", f"{method} /v1/messages/batches/{'/'.join(parts)} not found")

    def _create(self, body: Any) -> dict[str, Any]:
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not requests:
            raise ValueError("requests: at least one request is required")
        ids = [r.get("custom_id") if isinstance(r, dict) else None for r in requests]
        for cid in ids:
            if not isinstance(cid, str) or not CUSTOM_ID.match(cid):
                raise ValueError(f"requests: custom_id {cid!r} must match ^[a-zA-Z0-9_-]{{1,64}}$")
        if len(set(ids)) != len(ids):
            raise ValueError("requests: custom_id values must be unique within a batch")
        if any(not isinstance(r.get("params"), dict) for r in requests):
            raise ValueError("requests: every request needs params")
        self.creates += 1
        batch = FakeMessageBatch(f"msgbatch_{next(self._ids):04d}", requests, time.time())
        self.submitted.update(ids)
        self.batches[batch.id] = batch
        return batch.info(self.base_url)

    def _list(self, query: dict[str, list[str]]) -> dict[str, Any]:
        self.lists += 1
        newest = sorted(self.batches.values(), key=lambda b: b.id, reverse=True)
        after = query.get("after_id", [None])[0]
        if after is not None:
            ids = [b.id for b in newest]
            newest = newest[ids.index(after) + 1:] if after in ids else []
        limit = int(query.get("limit", ["20"])[0])
        page = newest[:limit]
        return {"data": [b.info(self.base_url) for b in page], "has_more": len(newest) > limit,
                "first_id": page[0].id if page else None, "last_id": page[-1].id if page else None}

    def _retrieve(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        self.polls += 1
        batch.polls += 1
        if batch.status == "canceling":
            self._finish(batch, canceled=True)
        elif batch.status == "in_progress" and not self.hold and batch.polls > self.polls_to_complete \
                and time.time() - batch.created_at >= self.completion_delay:
            self._finish(batch)
        return batch.info(self.base_url)

    def _cancel(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        self.cancels += 1
        if batch.status == "in_progress":
            batch.status, batch.cancel_at = "canceling", time.time()
        return batch.info(self.base_url)

    def _finish(self, batch: FakeMessageBatch, *, canceled: bool = False) -> None:
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for request in batch.requests:
            cid, params = request["custom_id"], request["params"]
            fault = "canceled" if canceled else (
                self.item_fault(params, self.submitted[cid] - 1) if self.item_fault else None)
            problem = check_body(params) if fault is None else None
            if problem:
                fault = "invalid_request"
            if fault is None:
                self.requests.append(params)
                result: dict[str, Any] = {"type": "succeeded", "message": message_of(params, self.responder(params))}
            elif fault in ("errored", "overloaded", "invalid_request"):
                kind = {"errored": "api_error", "overloaded": "overloaded_error",
                        "invalid_request": "invalid_request_error"}[fault]
                result = {"type": "errored", "error": _error(kind, problem or f"fake {kind}")}
            elif fault in ("expired", "canceled"):
                result = {"type": fault}
            elif fault == "missing":
                continue
            else:
                raise ValueError(f"unknown item fault {fault!r}")
            counts["succeeded" if result["type"] == "succeeded" else result["type"]] += 1
            batch.results.append({"custom_id": cid, "result": result})
        batch.counts, batch.status, batch.ended_at = counts, "ended", time.time()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each real-time answer")
    parser.add_argument("--completion-delay", type=float, default=0.0, help="seconds before a batch can end")
    args = parser.parse_args()
    serve_forever(lambda: FakeAnthropicServer(latency=args.latency, port=args.port,
                                              completion_delay=args.completion_delay),
                  " (ANTHROPIC_API_KEY may be anything)")


if __name__ == "__main__":
    main()

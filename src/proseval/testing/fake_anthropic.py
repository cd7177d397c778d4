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
(default `end_turn`; `Reply("refusal")` answers with `stop_reason: "refusal"`). Usage counts words:
the system prompt and the messages in, the text out. A `Reply.reasoning` puts a `thinking` block
(with its `signature`; `redacted_thinking` while `redact_thinking` is set) before the text.

Off by default, *strict mode* (`strict=True`, `--strict`) enforces each Claude family's documented
request rules (`CLAUDE_FAMILIES`, a table with the date it was checked) with the errors the API
answers, `request_id` included: an unknown or retired model is a 404 `not_found_error`, a key other
than `api_key` (when set) a 401 `authentication_error`, and `temperature`/`top_p`/`top_k` (none at
all under API version 2026-10-21), `thinking` and `output_config.effort` are checked per family. A
request that thinks (asked to, or by its family's default) is answered with a thinking block of
`thinking_text` (empty where the family omits it by default), usage reports
`cache_read_input_tokens` and `cache_creation_input_tokens`, and the answer is cut at `max_tokens`
after the thinking (`stop_reason: "max_tokens"`). Batch items are checked and answered the same way.

A batch stays `in_progress` for `polls_to_complete` retrievals, for `completion_delay` seconds
after its creation, and while `hold` is set; then each request is answered by the responder, or
per `item_fault(params, times_in_a_batch_before)`: ``"errored"`` (an `api_error`, retryable),
``"overloaded"``, ``"invalid_request"`` (fails for good), ``"expired"``, ``"canceled"`` or
``"missing"`` (no line). `lose_create_answers` makes that many creates answer 500 after the batch
was made. Counters: `creates`, `polls`, `lists`, `results_reads`, `cancels`, `realtime` (real-time
messages), and `submitted` (how often each custom id was in a created batch); `requests` holds
every body answered, in real time or in a batch; `api_keys` every key sent; `model_requests` the
requests for each model, in real time or in a created batch, answered or refused.

    python -m proseval.testing.fake_anthropic --port 8012 --latency 0.2
    python -m proseval.testing.fake_anthropic --strict
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import itertools
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .fake_openai import (
    REASONING_TEXT,
    FakeOpenAIServer,
    Reply,
    add_strict_arguments,
    cut_text,
    key_from_env,
    serve_forever,
)

Responder = Callable[[dict[str, Any]], "str | tuple[str, str]"]
ItemFault = Callable[[dict[str, Any], int], "str | None"]
BODY_FIELDS = {
    "model",
    "messages",
    "max_tokens",
    "system",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "metadata",
    "stream",
    "thinking",
    "tools",
    "tool_choice",
    "service_tier",
    "container",
    "mcp_servers",
    "output_config",
}
# The `anthropic-version` values the API takes (Anthropic API docs, "API versions": 2023-06-01, and
# 2026-10-21, which the SDK's 2.x releases send by default; checked 2026-12-01).
VERSIONS = ("2023-06-01", "2026-10-21")
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def default_text(body: dict[str, Any]) -> str:
    """An echo of the last message's content."""
    messages = body.get("messages") or [{}]
    return f"echo: {messages[-1].get('content', '')}"


def _words(value: Any) -> int:
    return len(str(value or "").split())


def message_of(
    body: dict[str, Any],
    answer: str | tuple[str, str],
    *,
    before: Sequence[dict[str, Any]] = (),
    spent: int = 0,
    limit: int | None = None,
    cache: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """A Messages API `message` answering `body` with the responder's answer, after the content
    blocks `before` (thinking) that cost `spent` output tokens; cut at `limit` output tokens
    (`stop_reason: "max_tokens"`) when one is given; `cache` adds the prompt-cache usage fields."""
    text, stop_reason = (answer, "end_turn") if isinstance(answer, str) else answer
    if limit is not None and spent + _words(text) > limit:
        text, stop_reason = cut_text(text, max(limit - spent, 0)), "max_tokens"
    prompt = _words(body.get("system")) + sum(_words(m.get("content")) for m in body.get("messages") or [])
    shown = [] if not text and (before or stop_reason == "refusal") else [{"type": "text", "text": text}]
    output = spent + _words(text)
    usage = {"input_tokens": prompt, "output_tokens": output if limit is None else min(output, limit)}
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": [*before, *shown],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {**usage, **(cache or {})},
    }


def thinking_block(text: str, *, shown: bool = True, redacted: bool = False) -> dict[str, Any]:
    """A `thinking` block (its text empty when not `shown`, as with `display: "omitted"`) or a
    `redacted_thinking` one; either carries an opaque value the API checks when it is sent back."""
    opaque = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    if redacted:
        return {"type": "redacted_thinking", "data": opaque}
    return {"type": "thinking", "thinking": text if shown else "", "signature": opaque}


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


# --- strict mode: the Messages API's request rules ----------------------------------------------------

CHECKED = "2026-12-01"
SAMPLING = ("temperature", "top_p", "top_k")
SAMPLING_REMOVED_IN = "2026-10-21"  # the API version without sampling parameters on any model
THINKING_TYPES = ("adaptive", "between_tools", "disabled", "enabled")
EFFORTS = ("low", "medium", "high", "xhigh", "max")
_DATE = r"(-\d{8})?"


@dataclass(frozen=True)
class ClaudeFamily:
    """What one family of Claude models accepts on `/v1/messages`, as documented on `CHECKED`."""

    name: str
    pattern: str  # matches the whole model id (alias, or with its date)
    sampling_removed: bool = False  # `temperature`, `top_p` and `top_k` refused whatever their value
    thinking: tuple[str, ...] = ("enabled", "disabled")  # the `thinking.type`s taken
    default_thinking: str = "disabled"  # the thinking of a request that sends none
    efforts: tuple[str, ...] = ()  # the `output_config.effort` values taken; () refuses the parameter
    thinking_display: str = "summarized"  # what a thinking block shows unless `thinking.display` says


# First match wins; a model id matching none (retired, like Opus 4.1, or unknown) is a 404. Sources
# (checked 2026-12-01): Claude docs "What's new in Claude 4.5" (temperature or top_p, not both),
# "... 4.6" (adaptive thinking, effort "max"), "... Claude Opus 4.7" ("setting temperature, top_p,
# or top_k to any non-default value will return a 400 error"; manual thinking removed; thinking
# display "omitted" by default), "Effort" (Opus 4.5 and later, Sonnet 4.6 and Claude 5; not Haiku 4.5),
# "Extended thinking" (budget_tokens >= 1024 and < max_tokens), the Python SDK 2.15 (`thinking`
# types, effort values, model ids) and observed 400s; Claude 5 models think unless told not to,
# Sonnet 5.5 turns thinking down with "between_tools" only, and Opus 5.5 and Fable/Mythos always think.
CLAUDE_FAMILIES: tuple[ClaudeFamily, ...] = (
    ClaudeFamily("claude-4.5", rf"claude-(sonnet|haiku)-4-5{_DATE}"),
    ClaudeFamily("claude-opus-4.5", rf"claude-opus-4-5{_DATE}", efforts=("low", "medium", "high")),
    ClaudeFamily(
        "claude-4.6",
        rf"claude-(opus|sonnet)-4-6{_DATE}",
        thinking=("enabled", "adaptive", "disabled"),
        efforts=("low", "medium", "high", "max"),
    ),
    ClaudeFamily(
        "claude-opus-4.7/4.8",
        rf"claude-opus-4-[78]{_DATE}",
        sampling_removed=True,
        thinking=("adaptive", "disabled"),
        efforts=EFFORTS,
        thinking_display="omitted",
    ),
    ClaudeFamily(
        "claude-5",
        rf"claude-(opus-5|sonnet-5|haiku-5-5){_DATE}",
        sampling_removed=True,
        thinking=("adaptive", "disabled"),
        default_thinking="adaptive",
        efforts=EFFORTS,
        thinking_display="omitted",
    ),
    ClaudeFamily(
        "claude-sonnet-5.5",
        rf"claude-sonnet-5-5{_DATE}",
        sampling_removed=True,
        thinking=("adaptive", "between_tools"),
        default_thinking="adaptive",
        efforts=EFFORTS,
        thinking_display="omitted",
    ),
    ClaudeFamily(
        "claude-5-always-thinking",
        rf"claude-(opus-5-5|fable-5(-[12])?|mythos-5(-[12])?){_DATE}",
        sampling_removed=True,
        thinking=("adaptive",),
        default_thinking="adaptive",
        efforts=EFFORTS,
        thinking_display="omitted",
    ),
)
# A `thinking.type` a family does not take, as the API words it: the first two observed verbatim,
# the others after their pattern.
THINKING_REFUSED = {
    "enabled": (
        '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
        '"output_config.effort" to control thinking behavior.'
    ),
    "adaptive": '"thinking.type.adaptive" is not supported',
}


def claude_family_of(model: str) -> ClaudeFamily | None:
    """The family of a Claude model id; None for one the API does not serve."""
    return next((family for family in CLAUDE_FAMILIES if re.fullmatch(family.pattern, model)), None)


def thinking_of(body: dict[str, Any], family: ClaudeFamily | None) -> str:
    """The thinking a request runs with: its own `thinking.type`, else its family's default."""
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type"):
        return str(thinking["type"])
    return family.default_thinking if family else "disabled"


def _sampling_rule(body: dict[str, Any], family: ClaudeFamily, version: str) -> str | None:
    given = [name for name in SAMPLING if body.get(name) is not None]
    if given and family.sampling_removed:  # the model's own rule, observed in its refusals
        return f"`{given[0]}` is deprecated for this model."
    if given and version == SAMPLING_REMOVED_IN:  # the version's: the parameters are gone from its schema
        return f"{given[0]}: Extra inputs are not permitted"
    if {"temperature", "top_p"} <= set(given):
        return "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
    for name in (name for name in ("temperature", "top_p") if name in given):
        value = body[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{name}: Input should be a valid number"
        if value > 1:
            return f"{name}: Input should be less than or equal to 1"
        if value < 0:
            return f"{name}: Input should be greater than or equal to 0"
    return None


def _thinking_rule(body: dict[str, Any], family: ClaudeFamily, version: str) -> str | None:
    kind = thinking_of(body, family)
    if kind not in THINKING_TYPES:
        return (
            f"thinking: Input tag '{kind}' found using 'type' does not match any of the expected tags: "
            f"{', '.join(repr(known) for known in THINKING_TYPES)}"
        )
    if kind not in family.thinking:
        return THINKING_REFUSED.get(kind, f'"thinking.type.{kind}" is not supported for this model.')
    if kind == "enabled":
        budget = body["thinking"].get("budget_tokens")
        if not isinstance(budget, int):
            return "thinking.enabled.budget_tokens: Field required"
        if budget < 1024:
            return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        if budget >= body["max_tokens"]:
            return "`max_tokens` must be greater than `thinking.budget_tokens`."
    if kind not in ("enabled", "adaptive"):
        return None
    if body.get("temperature") is not None and body["temperature"] != 1:
        return (
            "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our "
            "documentation at https://platform.claude.com/docs/en/build-with-claude/extended-thinking"
        )
    if body.get("top_k") is not None:
        return "`top_k` must be unset when thinking is enabled or in adaptive mode"
    if body.get("top_p") is not None and body["top_p"] < 0.95:
        return "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled"
    return None


def _effort_rule(body: dict[str, Any], family: ClaudeFamily, version: str) -> str | None:
    config = body.get("output_config")
    effort = config.get("effort") if isinstance(config, dict) else None
    if effort is None:
        return None
    if not family.efforts:
        return "This model does not support the effort parameter."
    if effort not in family.efforts:
        quoted = [f"'{value}'" for value in family.efforts]
        return f"output_config.effort: Input should be {', '.join(quoted[:-1])} or {quoted[-1]}"
    return None


# Sampling first: a model without sampling parameters refuses them whatever its thinking.
RULES = (_sampling_rule, _thinking_rule, _effort_rule)


def request_problem(body: dict[str, Any], family: ClaudeFamily, version: str = VERSIONS[0]) -> str | None:
    """The API's 400 message for a (well-formed) request this family refuses under this API
    version; None when it takes it."""
    return next((problem for rule in RULES if (problem := rule(body, family, version))), None)


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat().replace("+00:00", "Z")


def _error(kind: str, message: str, request_id: str | None = None) -> dict[str, Any]:
    """An error body as the API words it (strict mode adds the `request_id` the API sends today)."""
    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    return body if request_id is None else {**body, "request_id": request_id}


@dataclass
class FakeMessageBatch:
    id: str
    requests: list[dict[str, Any]]
    created_at: float
    version: str  # the API version of the request that created it, which its items are checked under
    status: str = "in_progress"
    polls: int = 0
    ended_at: float | None = None
    cancel_at: float | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def info(self, base_url: str) -> dict[str, Any]:
        counts = self.counts or {
            "processing": len(self.requests),
            "succeeded": 0,
            "errored": 0,
            "canceled": 0,
            "expired": 0,
        }
        return {
            "id": self.id,
            "type": "message_batch",
            "processing_status": self.status,
            "request_counts": dict(counts),
            "created_at": _iso(self.created_at),
            "ended_at": _iso(self.ended_at),
            "expires_at": _iso(self.created_at + 86400),
            "cancel_initiated_at": _iso(self.cancel_at),
            "archived_at": None,
            "results_url": f"{base_url}/v1/messages/batches/{self.id}/results" if self.status == "ended" else None,
        }


class FakeAnthropicServer(FakeOpenAIServer):
    """The fake Anthropic API (see the module's text). Run with `async with` inside a loop, or
    `start_in_thread()` from synchronous code."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        behaviour: Callable[[int, dict[str, Any]], Reply] | None = None,
        responder: Responder = default_text,
        port: int = 0,
        polls_to_complete: int = 1,
        completion_delay: float = 0.0,
        item_fault: ItemFault | None = None,
        strict: bool = False,
        api_key: str | None = None,
        thinking_text: str = REASONING_TEXT,
        cache_read_tokens: int = 0,
        cache_creation_tokens: int = 0,
    ):
        super().__init__(
            latency=latency,
            behaviour=behaviour,
            port=port,
            strict=strict,
            api_key=api_key,
            responder=responder,  # type: ignore[arg-type]  # it may give a stop reason too
        )
        self.thinking_text = thinking_text  # strict: what a thinking block says (unless `Reply.reasoning` does)
        self.redact_thinking = False  # while set, thinking comes as `redacted_thinking` blocks
        self.cache_read_tokens = cache_read_tokens  # strict: reported as `usage.cache_read_input_tokens`
        self.cache_creation_tokens = cache_creation_tokens  # strict: `usage.cache_creation_input_tokens`
        self._request_ids = itertools.count(1)
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
            return await self._json(writer, 401, self._error("authentication_error", "x-api-key header is required"))
        if self.strict and self.api_key is not None and key != self.api_key:
            return await self._json(writer, 401, self._error("authentication_error", "invalid x-api-key"))
        version = headers.get("anthropic-version")
        if version not in VERSIONS:
            problem = (
                "anthropic-version: header is required"
                if not version
                else f"anthropic-version: {json.dumps(version)} is not a valid version"
            )
            return await self._json(writer, 400, self._error("invalid_request_error", problem))
        if parts == ["v1", "messages"] and method == "POST":
            return await self._message(raw, writer, headers, str(version))
        if parts[:3] != ["v1", "messages", "batches"]:
            return await self._json(writer, 404, self._error("not_found_error", f"{method} {url.path} not found"))
        try:
            status, payload = self._route(method, parts[3:], parse_qs(url.query), raw, str(version))
        except KeyError as exc:
            status, payload = 404, self._error("not_found_error", f"no such message batch: {exc}")
        except ValueError as exc:
            status, payload = 400, self._error("invalid_request_error", str(exc))
        if isinstance(payload, bytes):
            await self._send(writer, status, payload)
            return True
        return await self._json(writer, status, payload)

    async def _json(self, writer: Any, status: int, payload: Any, headers: dict[str, str] | None = None) -> bool:
        await self._send(writer, status, json.dumps(payload).encode(), headers)
        return True

    def _error(self, kind: str, message: str) -> dict[str, Any]:
        """An error body; strict mode gives it a `request_id`, as the API does."""
        return _error(kind, message, f"req_fake{next(self._request_ids):016d}" if self.strict else None)

    def _refused(self, body: Any, version: str) -> tuple[int, dict[str, Any]] | None:
        """The (status, error body) the API answers a Messages body it refuses with; None when it takes
        it. Lenient: the body's shape only. Strict: the model and its family's rules too."""
        problem = check_body(body)
        if problem:
            return 400, self._error("invalid_request_error", problem)
        if not self.strict:
            return None
        family = claude_family_of(str(body["model"]))
        if family is None:
            return 404, self._error("not_found_error", f"model: {body['model']}")
        problem = request_problem(body, family, version)
        return (400, self._error("invalid_request_error", problem)) if problem else None

    def _message_for(
        self, body: dict[str, Any], answer: str | tuple[str, str], reasoning: str | None
    ) -> dict[str, Any]:
        """The message answering `body`: after a thinking block when `reasoning` is given or (strict)
        the request turns thinking on; strict mode adds the cache usage and cuts at `max_tokens`."""
        if not self.strict:
            return (
                message_of(body, answer)
                if reasoning is None
                else message_of(
                    body,
                    answer,
                    before=[thinking_block(reasoning, redacted=self.redact_thinking)],
                    spent=_words(reasoning),
                )
            )
        cache = {
            "cache_creation_input_tokens": self.cache_creation_tokens,
            "cache_read_input_tokens": self.cache_read_tokens,
        }
        family = claude_family_of(str(body["model"]))
        if reasoning is None and thinking_of(body, family) not in ("enabled", "adaptive"):
            return message_of(body, answer, limit=body["max_tokens"], cache=cache)
        thought = self.thinking_text if reasoning is None else reasoning
        display = (body.get("thinking") or {}).get("display") or (family.thinking_display if family else "summarized")
        block = thinking_block(thought, shown=display != "omitted", redacted=self.redact_thinking)
        return message_of(body, answer, before=[block], spent=_words(thought), limit=body["max_tokens"], cache=cache)

    # --- real time -----------------------------------------------------------------------------

    async def _message(self, raw: bytes, writer: Any, headers: dict[str, str], version: str) -> bool:
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return await self._json(writer, 400, self._error("invalid_request_error", "invalid JSON"))
        if isinstance(body, dict):
            self.model_requests[str(body.get("model"))] += 1
        refused = self._refused(body, version) if self.strict else None
        if refused:
            return await self._json(writer, *refused)
        reply = await self._next_reply(body)
        if reply is None:
            return False
        if reply.kind == "echo_headers":  # a hostile or careless server: the request's headers in the error
            return await self._json(
                writer, reply.status, self._error("invalid_request_error", f"bad request; headers were {headers}")
            )
        if reply.kind == "status":
            kind = ERROR_TYPES.get(reply.status, "api_error")
            error = self._error(kind, reply.text or f"fake {kind}")
            return await self._json(writer, reply.status, error, reply.headers)
        if reply.kind == "malformed":
            await self._send(writer, 200, b'{"id": "msg_x", "content": [ {"type": ')
            return True
        refused = None if self.strict else self._refused(body, version)  # (strict: before the behaviour)
        if refused:
            return await self._json(writer, *refused)
        self.realtime += 1
        self.requests.append(body)
        answer: str | tuple[str, str] = reply.text if reply.text is not None else self.responder(body)
        if reply.kind == "refusal":  # the API's "refusal" stop reason: the answer stopped for safety reasons
            answer = (answer if isinstance(answer, str) else answer[0], "refusal")
        return await self._json(writer, 200, self._message_for(body, answer, reply.reasoning), reply.headers)

    # --- message batches -----------------------------------------------------------------------

    def _route(
        self, method: str, parts: list[str], query: dict[str, list[str]], raw: bytes, version: str
    ) -> tuple[int, Any]:
        if not parts and method == "POST":
            created = self._create(json.loads(raw or b"{}"), version)
            if self.lose_create_answers > 0:
                self.lose_create_answers -= 1
                return 500, self._error("api_error", "fake: the batch was created, this answer is lost")
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
        return 404, self._error("not_found_error", f"{method} /v1/messages/batches/{'/'.join(parts)} not found")

    def _create(self, body: Any, version: str) -> dict[str, Any]:
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
        batch = FakeMessageBatch(f"msgbatch_{next(self._ids):04d}", requests, time.time(), version)
        self.submitted.update(str(cid) for cid in ids)  # each one a string, checked above
        self.model_requests.update(str(r["params"].get("model")) for r in requests)
        self.batches[batch.id] = batch
        return batch.info(self.base_url)

    def _list(self, query: dict[str, list[str]]) -> dict[str, Any]:
        self.lists += 1
        newest = sorted(self.batches.values(), key=lambda b: b.id, reverse=True)
        after = query.get("after_id", [None])[0]
        if after is not None:
            ids = [b.id for b in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        limit = int(query.get("limit", ["20"])[0])
        page = newest[:limit]
        return {
            "data": [b.info(self.base_url) for b in page],
            "has_more": len(newest) > limit,
            "first_id": page[0].id if page else None,
            "last_id": page[-1].id if page else None,
        }

    def _retrieve(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        self.polls += 1
        batch.polls += 1
        if batch.status == "canceling":
            self._finish(batch, canceled=True)
        elif (
            batch.status == "in_progress"
            and not self.hold
            and batch.polls > self.polls_to_complete
            and time.time() - batch.created_at >= self.completion_delay
        ):
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
            fault = (
                "canceled"
                if canceled
                else (self.item_fault(params, self.submitted[cid] - 1) if self.item_fault else None)
            )
            refused = self._refused(params, batch.version) if fault is None else None
            if refused:
                fault = "invalid_request"
            if fault is None:
                self.requests.append(params)
                message = self._message_for(params, self.responder(params), None)
                result: dict[str, Any] = {"type": "succeeded", "message": message}
            elif fault in ("errored", "overloaded", "invalid_request"):
                kind = {
                    "errored": "api_error",
                    "overloaded": "overloaded_error",
                    "invalid_request": "invalid_request_error",
                }[fault]
                result = {"type": "errored", "error": refused[1] if refused else self._error(kind, f"fake {kind}")}
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
    add_strict_arguments(parser)
    args = parser.parse_args()
    api_key = key_from_env(args.api_key_env)
    note = (
        f"ANTHROPIC_API_KEY must be ${args.api_key_env}"
        if api_key and args.strict
        else "ANTHROPIC_API_KEY may be anything"
    )
    serve_forever(
        lambda: FakeAnthropicServer(
            latency=args.latency,
            port=args.port,
            completion_delay=args.completion_delay,
            strict=args.strict,
            api_key=api_key,
        ),
        f" ({'strict; ' if args.strict else ''}{note})",
    )


if __name__ == "__main__":
    main()

"""A fake OpenAI-compatible chat-completions server on 127.0.0.1.

It answers `POST /v1/chat/completions` after a fixed latency, and a *behaviour* function
can make any request fail the ways real servers do: 429 with `Retry-After`, 500, a hang past
the client's timeout, a truncated body, malformed JSON or a reply without choices, or answer
with a refusal (`message.refusal`, `content` null) or a content-filter stop. Every answer
reports `usage`: words by default, or with `usage="tokens"` (`--usage tokens`) cl100k tokens
counted as OpenAI counts them, for tests of what runs cost. With `reasoning_field` it answers as
an OpenAI-compatible reasoner does, the reasoning text beside the answer in
`message.reasoning_content` (DeepSeek; vLLM and SGLang reasoning parsers) or `message.reasoning`
(OpenRouter; vLLM since late 2025). `model_requests` counts the requests for each model.

Off by default, *strict mode* (`strict=True`, `--strict`) makes it a likeness of OpenAI's own API
rather than of a lenient compatible server: each model family's documented request rules
(`OPENAI_FAMILIES`, a table with the date it was checked) are enforced with the errors OpenAI
answers (status, body, `type`/`param`/`code`, wording); an unknown model is a 404, and when
`api_key` is set a missing or wrong `Authorization` is a 401. Usage then carries
`prompt_tokens_details` and `completion_tokens_details`, and an answer is cut at the request's
token limit, of which a reasoning model first spends `reasoning_cost` on reasoning. Used by the
tests and `bench/`, and handy for dry runs of a configuration:

    python -m proseval.testing.fake_openai --port 8011 --latency 0.2
    python -m proseval.testing.fake_openai --strict --reasoning-cost 200
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..runtime.loop import run_async


@dataclass
class Reply:
    """What to answer one request with."""

    # ok | status | echo_headers | hang | truncated | malformed | no_choices | close | refusal | content_filter
    kind: str = "ok"
    status: int = 200
    text: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    latency: float | None = None
    reasoning: str | None = None  # reasoning shown with the answer: with `reasoning_field`, or a thinking block


Behaviour = Callable[[int, dict[str, Any]], Reply]
REASONING_FIELDS = ("reasoning_content", "reasoning")
REASONING_TEXT = "Let me think this through before I answer."


def default_text(body: dict[str, Any]) -> str:
    """A deterministic answer derived from the request: an echo of the last user message."""
    messages = body.get("messages") or [{}]
    return f"echo: {messages[-1].get('content', '')}"


def count_text(text: str, usage: str = "words") -> int:
    """The units the fake reports for a text: words, or cl100k tokens with ``usage="tokens"``."""
    if usage == "tokens":
        from ..tokens import count_tokens

        return count_tokens(text)
    return len(text.split())


def count_usage(body: dict[str, Any], text: str, usage: str = "words") -> tuple[int, int]:
    """The (prompt, completion) tokens the fake reports: words (the default, as it always did), or
    with ``usage="tokens"`` cl100k_base tokens in OpenAI's chat format, as OpenAI counts them
    (`proseval.runtime.cost.message_tokens` for the prompt, the reply's own tokens)."""
    if usage == "tokens":
        from ..runtime.cost import message_tokens

        return message_tokens(body.get("messages") or []), count_text(text, usage)
    return sum(len(str(m.get("content", "")).split()) for m in body.get("messages", [])), count_text(text)


def cut_text(text: str, limit: int, usage: str = "words") -> str:
    """The longest word prefix of `text` that fits in `limit` units: an answer cut at its token limit."""
    words = text.split()
    low, high = 0, len(words)
    while low < high:  # the largest prefix within the limit (units grow with the prefix)
        middle = (low + high + 1) // 2
        if count_text(" ".join(words[:middle]), usage) <= limit:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low])


@dataclass
class Answer:
    """One choice as the server words it: the message's fields, why it stopped, what it cost."""

    content: str | None
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str = "stop"
    refusal: str | None = None
    reasoning: str | None = None
    reasoning_tokens: int = 0


def _completion(body: dict[str, Any], text: str, usage: str = "words") -> dict[str, Any]:
    """A plain completion answering `body` with `text` (the lenient server's, and each batch line's)."""
    prompt_tokens, completion_tokens = count_usage(body, text, usage)
    return render_completion(body, Answer(text, prompt_tokens, completion_tokens))


def render_completion(
    body: dict[str, Any],
    answer: Answer,
    *,
    strict: bool = False,
    reasoning_field: str | None = None,
    cached_tokens: int = 0,
) -> dict[str, Any]:
    """The `chat.completion` object for `answer`. Strict: every message has `refusal` (null unless
    refused) and `annotations`, and usage its details, as OpenAI's answers do today."""
    message: dict[str, Any] = {"role": "assistant", "content": answer.content}
    if strict or answer.refusal is not None:
        message["refusal"] = answer.refusal
    if strict:
        message["annotations"] = []
    if reasoning_field and answer.reasoning is not None:
        message[reasoning_field] = answer.reasoning
    usage: dict[str, Any] = {
        "prompt_tokens": answer.prompt_tokens,
        "completion_tokens": answer.completion_tokens,
        "total_tokens": answer.prompt_tokens + answer.completion_tokens,
    }
    if strict or reasoning_field:
        usage["prompt_tokens_details"] = {"cached_tokens": min(cached_tokens, answer.prompt_tokens), "audio_tokens": 0}
        usage["completion_tokens_details"] = {
            "reasoning_tokens": answer.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        }
    choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": answer.finish_reason}
    if strict:
        choice["logprobs"] = None
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [choice],
        "usage": usage,
    }


# --- strict mode: OpenAI's request rules ------------------------------------------------------------

CHECKED = "2026-12-01"
# Every `reasoning_effort` the API reference lists ("Currently supported values are none, minimal,
# low, medium, high, and xhigh"); which ones a model takes is per family below.
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
_DATE = r"(-\d{4}-\d{2}-\d{2}|-\d{4})?"


@dataclass(frozen=True)
class ModelFamily:
    """What one family of OpenAI models accepts on `/v1/chat/completions`, as documented on `CHECKED`.

    A reasoning family refuses `max_tokens` ("Use 'max_completion_tokens' instead"), takes
    `temperature`/`top_p` only at their default 1 unless its effort is `sampling_effort` (GPT-5.1 and
    later with effort "none", their default), and spends reasoning tokens unless its effort is "none".
    A family without `efforts` does not know the `reasoning_effort` argument at all."""

    name: str
    pattern: str  # matches the whole model name
    reasoning: bool = False
    efforts: tuple[str, ...] = ()
    default_effort: str = "medium"
    sampling_effort: str | None = None

    def effort(self, body: dict[str, Any]) -> str:
        return body.get("reasoning_effort") or self.default_effort

    def fixed_sampling(self, body: dict[str, Any]) -> bool:
        return self.reasoning and self.effort(body) != self.sampling_effort


# First match wins. Sources (checked 2026-12-01): OpenAI API reference, "Create chat completion"
# (`reasoning_effort`: "gpt-5.1 defaults to none ... supported values for gpt-5.1 are none, low,
# medium, and high"; "All models before gpt-5.1 default to medium ... and do not support none";
# "gpt-5-pro ... only supports high"; "xhigh is supported for all models after gpt-5.1-codex-max");
# the GPT-5.2 guide ("temperature, top_p ... only supported ... with reasoning effort set to none");
# the OpenAI community compatibility matrix for the GPT-5 series (chat-latest models: effort
# "medium" only) and observed 400s (o-series and gpt-5/-mini/-nano: default sampling only).
OPENAI_FAMILIES: tuple[ModelFamily, ...] = (
    ModelFamily("gpt-5-chat", rf"gpt-5-chat(-latest)?{_DATE}"),  # a chat model: sampling free, no effort
    ModelFamily("gpt-5.x-chat", rf"gpt-5\.\d+-chat(-latest)?{_DATE}", True, ("medium",)),
    ModelFamily("gpt-5-pro", rf"gpt-5-pro{_DATE}", True, ("high",), "high"),
    ModelFamily("gpt-5.x-pro", rf"gpt-5\.\d+-pro{_DATE}", True, ("medium", "high", "xhigh")),
    ModelFamily("gpt-5", rf"gpt-5(-mini|-nano)?{_DATE}", True, ("minimal", "low", "medium", "high")),
    ModelFamily("gpt-5.1", rf"gpt-5\.1(-mini|-nano)?{_DATE}", True, ("none", "low", "medium", "high"), "none", "none"),
    ModelFamily(
        "gpt-5.2+",
        rf"gpt-5\.([2-9]|\d\d+)(-mini|-nano)?{_DATE}",
        True,
        ("none", "low", "medium", "high", "xhigh"),
        "none",
        "none",
    ),
    ModelFamily("o-series", rf"o[134](-mini|-pro)?{_DATE}", True, ("low", "medium", "high")),
    ModelFamily(
        "chat", r"(gpt-4o(-mini)?|chatgpt-4o-latest|gpt-4\.1(-mini|-nano)?|gpt-4(-turbo)?|gpt-3\.5-turbo)" + _DATE
    ),
)
FAMILIES_BY_NAME = {family.name: family for family in OPENAI_FAMILIES}
# The `text` formats `response_format` takes ("Supported values are: 'json_object', 'json_schema', and 'text'.").
RESPONSE_FORMATS = ("json_object", "json_schema", "text")
JSON_TYPES = {str: "a string", bool: "a boolean", list: "an array", dict: "an object"}


def check_served(served: Mapping[str, str]) -> dict[str, str]:
    """Served model names -> family names, each family one of `OPENAI_FAMILIES`."""
    unknown = sorted(set(served.values()) - set(FAMILIES_BY_NAME))
    if unknown:
        raise ValueError(f"unknown model family {unknown[0]!r}; families: {', '.join(FAMILIES_BY_NAME)}")
    return dict(served)


def family_of(model: str, served: Mapping[str, str] | None = None) -> ModelFamily | None:
    """The family of a model name: one the server was told it serves (`served`: name -> family
    name), else the first of `OPENAI_FAMILIES` whose pattern matches; None for an unknown model."""
    if served and model in served:
        return FAMILIES_BY_NAME[served[model]]
    return next((family for family in OPENAI_FAMILIES if re.fullmatch(family.pattern, model)), None)


def openai_error(
    message: str, *, param: str | None = None, code: str | None = None, kind: str = "invalid_request_error"
) -> dict[str, Any]:
    """An error body as OpenAI words it: `{"error": {message, type, param, code}}`."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def _listed(values: Sequence[str]) -> str:
    """Values as OpenAI lists them: 'a', 'b', and 'c'."""
    quoted = [f"'{value}'" for value in values]
    return " and ".join(quoted) if len(quoted) < 3 else ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _shown(value: Any) -> str:
    """A number as OpenAI echoes it: 0 stays 0, 0.0 stays 0.0."""
    return json.dumps(value)


def _token_limit(body: dict[str, Any], family: ModelFamily) -> dict[str, Any] | None:
    if family.reasoning and body.get("max_tokens") is not None:
        return openai_error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            param="max_tokens",
            code="unsupported_parameter",
        )
    return None


def _effort(body: dict[str, Any], family: ModelFamily) -> dict[str, Any] | None:
    effort = body.get("reasoning_effort")
    if effort is None:
        return None
    if not family.efforts:  # a chat model does not know the argument
        return openai_error("Unrecognized request argument supplied: reasoning_effort")
    if effort not in EFFORTS:
        return openai_error(
            f"Invalid value: '{effort}'. Supported values are: {_listed(EFFORTS)}.",
            param="reasoning_effort",
            code="invalid_value",
        )
    if effort not in family.efforts:
        return openai_error(
            f"Unsupported value: 'reasoning_effort' does not support '{effort}' with this model. "
            f"Supported values are: {_listed(family.efforts)}.",
            param="reasoning_effort",
            code="unsupported_value",
        )
    return None


def _sampling(body: dict[str, Any], family: ModelFamily) -> dict[str, Any] | None:
    for name, top in (("temperature", 2), ("top_p", 1)):
        value = body.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return openai_error(
                f"Invalid type for '{name}': expected a decimal, but got "
                f"{JSON_TYPES.get(type(value), 'a value')} instead.",
                param=name,
                code="invalid_type",
            )
        if family.fixed_sampling(body) and value != 1:
            return openai_error(
                f"Unsupported value: '{name}' does not support {_shown(value)} with this model. "
                "Only the default (1) value is supported.",
                param=name,
                code="unsupported_value",
            )
        if value > top:
            return openai_error(
                f"Invalid '{name}': decimal above maximum value. Expected a value <= {top}, "
                f"but got {_shown(value)} instead.",
                param=name,
                code="decimal_above_max_value",
            )
        if value < 0:
            return openai_error(
                f"Invalid '{name}': decimal below minimum value. Expected a value >= 0, "
                f"but got {_shown(value)} instead.",
                param=name,
                code="decimal_below_min_value",
            )
    return None


def strict_schema_problem(schema: Any, context: tuple[Any, ...] = ()) -> str | None:
    """Why Structured Outputs' strict mode refuses a schema ("additionalProperties: false must always
    be set in objects"; "all fields must be required"), worded as the API words it; None when it is taken."""
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties")
    if schema.get("type") == "object" or isinstance(properties, dict):
        if schema.get("additionalProperties") is not False:
            return f"In context={context!r}, 'additionalProperties' is required to be supplied and to be false."
        missing = [key for key in properties or {} if key not in (schema.get("required") or [])]
        if missing:
            return (
                f"In context={context!r}, 'required' is required to be supplied and to be an array including "
                f"every key in properties. Missing '{missing[0]}'."
            )
    children: list[tuple[tuple[Any, ...], Any]] = [
        (("properties", key), sub) for key, sub in (properties or {}).items()
    ]
    children += [(("items",), schema["items"])] if "items" in schema else []
    children += [(("anyOf", index), sub) for index, sub in enumerate(schema.get("anyOf") or [])]
    for defs in ("$defs", "definitions"):
        children += [((defs, key), sub) for key, sub in (schema.get(defs) or {}).items()]
    return next((problem for path, sub in children if (problem := strict_schema_problem(sub, context + path))), None)


def _mentions_json(body: dict[str, Any]) -> bool:
    return any(
        "json" in str(message.get("content", "")).lower()
        for message in body.get("messages") or []
        if isinstance(message, dict)
    )


def _response_format(body: dict[str, Any], family: ModelFamily) -> dict[str, Any] | None:
    fmt = body.get("response_format")
    if fmt is None:
        return None
    kind = fmt.get("type") if isinstance(fmt, dict) else None
    if kind is None:
        return openai_error(
            "Missing required parameter: 'response_format.type'.",
            param="response_format.type",
            code="missing_required_parameter",
        )
    if kind not in RESPONSE_FORMATS:
        return openai_error(
            f"Invalid value: '{kind}'. Supported values are: {_listed(RESPONSE_FORMATS)}.",
            param="response_format.type",
            code="invalid_value",
        )
    if kind == "json_object" and not _mentions_json(body):
        return openai_error(
            "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
            param="messages",
        )
    if kind != "json_schema":
        return None
    spec = fmt.get("json_schema")
    for param, present in (
        ("response_format.json_schema", isinstance(spec, dict)),
        ("response_format.json_schema.name", isinstance(spec, dict) and bool(spec.get("name"))),
    ):
        if not present:
            return openai_error(
                f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter"
            )
    problem = strict_schema_problem(spec.get("schema") or {}) if spec.get("strict") is True else None
    if problem:
        return openai_error(
            f"Invalid schema for response_format '{spec['name']}': {problem}",
            param="response_format",
            code="invalid_json_schema",
        )
    return None


REQUEST_RULES = (_token_limit, _effort, _sampling, _response_format)


def request_problem(body: dict[str, Any], family: ModelFamily) -> dict[str, Any] | None:
    """OpenAI's 400 body for a request this model family refuses; None when it takes it."""
    return next((problem for rule in REQUEST_RULES if (problem := rule(body, family))), None)


def masked_key(key: str) -> str:
    """A key as OpenAI shows it in a 401: its first 8 and last 4 characters, starred between (all
    starred when that would show most of it)."""
    return key[:8] + "*" * (len(key) - 12) + key[-4:] if len(key) > 16 else "*" * len(key)


def auth_problem(authorization: str | None, api_key: str) -> dict[str, Any] | None:
    """OpenAI's 401 body for a request without the key, or with another one; None for the key."""
    if not authorization or not authorization.startswith("Bearer ") or not authorization[7:].strip():
        return openai_error(
            "You didn't provide an API key. You need to provide your API key in an Authorization "
            "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field "
            "(with blank username) if you're accessing the API from your browser and are prompted for "
            "a username. You can obtain an API key from https://platform.openai.com/account/api-keys."
        )
    sent = authorization[7:].strip()
    if sent != api_key:
        return openai_error(
            f"Incorrect API key provided: {masked_key(sent)}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            code="invalid_api_key",
        )
    return None


def model_problem(body: Any, served: Mapping[str, str] | None = None) -> tuple[int, dict[str, Any]] | None:
    """OpenAI's (status, body) for a request naming no model or an unknown one; None otherwise."""
    if not isinstance(body, dict):
        return 400, openai_error(
            "We could not parse the JSON body of your request. (HINT: This likely means you "
            "aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but "
            "what was sent was not valid JSON. If you have trouble figuring out how to fix this, "
            "please contact us through our help center at help.openai.com.)"
        )
    model = body.get("model")
    if not model:
        return 400, openai_error("you must provide a model parameter")
    if family_of(str(model), served) is None:
        return 404, openai_error(
            f"The model `{model}` does not exist or you do not have access to it.", code="model_not_found"
        )
    return None


# --- the server ---------------------------------------------------------------------------------------


class FakeOpenAIServer:
    """Run with `async with` inside a loop, or `start_in_thread()` from synchronous code."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        behaviour: Behaviour | None = None,
        responder: Callable[[dict[str, Any]], str] = default_text,
        port: int = 0,
        usage: str = "words",
        keep_requests: bool = True,
        strict: bool = False,
        api_key: str | None = None,
        models: Mapping[str, str] | None = None,
        reasoning_cost: int = 0,
        cached_tokens: int = 0,
        reasoning_field: str | None = None,
        reasoning_text: str = REASONING_TEXT,
    ):
        if usage not in ("words", "tokens"):
            raise ValueError(f"usage must be words or tokens, not {usage!r}")
        if reasoning_field not in (None, *REASONING_FIELDS):
            raise ValueError(f"reasoning_field must be one of {REASONING_FIELDS}, not {reasoning_field!r}")
        self.latency = latency
        self.usage = usage  # what `usage` reports: words (default) or cl100k tokens (`count_usage`)
        self.behaviour = behaviour
        self.responder = responder
        self.port = port
        self.requests: list[dict[str, Any]] = []  # every request body, for tests (kept unless `keep_requests` is False)
        self.keep_requests = keep_requests
        self.strict = strict  # enforce the providers' documented request rules (see the module's text)
        self.api_key = api_key  # strict: the one key accepted (None: any)
        self.models = check_served(models or {})  # strict: served model names -> families, beside the table
        self.reasoning_cost = reasoning_cost  # strict: tokens a reasoning model spends on reasoning per answer
        self.cached_tokens = cached_tokens  # `prompt_tokens_details.cached_tokens` (at most the prompt) where reported
        self.reasoning_field = reasoning_field  # where a compatible reasoner's reasoning text goes (None: nowhere)
        self.reasoning_text = reasoning_text  # that text, unless the behaviour's `Reply.reasoning` gives another
        self.model_requests: Counter[str] = Counter()  # requests per model name, answered or refused
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._count = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def __aenter__(self) -> FakeOpenAIServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def start_in_thread(self) -> FakeOpenAIServer:
        ready = threading.Event()

        def serve() -> None:
            self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(self.start())
            ready.set()
            try:
                self._loop.run_forever()
            finally:
                self._loop.close()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop_thread(self) -> None:
        if self._loop is not None:
            asyncio.run_coroutine_threadsafe(self.stop(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
                raw = await reader.readexactly(int(headers.get("content-length", "0")))
                if not await self._respond(lines[0], raw, writer, headers):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _next_reply(self, body: Any) -> Reply | None:
        """The behaviour's reply to the next real-time request, after its latency; None when the
        connection is to close unanswered (`hang`: after an hour)."""
        index = self._count
        self._count += 1
        reply = self.behaviour(index, body) if self.behaviour else Reply()
        await asyncio.sleep(self.latency if reply.latency is None else reply.latency)
        if reply.kind == "hang":
            await asyncio.sleep(3600)
            return None
        return None if reply.kind == "close" else reply

    def _refusal(self, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, Any]] | None:
        """Strict mode's (status, error body) for a request OpenAI would refuse; None when it would take it."""
        if self.api_key is not None and (problem := auth_problem(headers.get("authorization"), self.api_key)):
            return 401, problem
        refused = model_problem(body, self.models)
        if refused:
            return refused
        family = family_of(str(body["model"]), self.models)  # known: `model_problem` refuses an unknown one
        problem = request_problem(body, family) if family is not None else None
        return (400, problem) if problem else None

    def _answer(self, body: dict[str, Any], reply: Reply) -> Answer:
        """What one request is answered with: the text (cut at the token limit in strict mode, after
        a reasoning model's reasoning), a refusal or a content-filter stop, and its usage."""
        text = reply.text if reply.text is not None else self.responder(body)
        prompt_tokens, _ = count_usage(body, "", self.usage)
        if reply.kind == "refusal":  # as Structured Outputs documents it: `refusal` set, `content` null
            return Answer(None, prompt_tokens, count_text(text, self.usage), refusal=text)
        if reply.kind == "content_filter":  # "content was omitted due to a flag from our content filters"
            return Answer(None, prompt_tokens, 0, finish_reason="content_filter")
        shown = (self.reasoning_text if reply.reasoning is None else reply.reasoning) if self.reasoning_field else None
        family = family_of(str(body.get("model")), self.models) if self.strict else None
        reasons = family is not None and family.reasoning and family.effort(body) != "none"
        spent = (self.reasoning_cost if reasons else 0) + count_text(shown or "", self.usage)
        limit = body.get("max_completion_tokens") or body.get("max_tokens") if self.strict else None
        finish = "stop"
        if isinstance(limit, int) and spent >= limit:  # the whole budget went on reasoning
            return Answer("", prompt_tokens, limit, "length", reasoning=shown, reasoning_tokens=limit)
        if isinstance(limit, int) and spent + count_text(text, self.usage) > limit:
            text, finish = cut_text(text, limit - spent, self.usage), "length"
        return Answer(
            text, prompt_tokens, spent + count_text(text, self.usage), finish, reasoning=shown, reasoning_tokens=spent
        )

    async def _respond(
        self, request_line: str, raw: bytes, writer: asyncio.StreamWriter, headers: dict[str, str] | None = None
    ) -> bool:
        """Answer one request; False closes the connection."""
        method, path, _ = (request_line.split(" ") + ["", ""])[:3]
        headers = headers or {}
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            await self._send(writer, 404, b'{"error": {"message": "not found"}}')
            return True
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
            if not self.strict:
                await self._send(writer, 400, b'{"error": {"message": "invalid JSON"}}')
                return True
        if isinstance(body, dict):
            self.model_requests[str(body.get("model"))] += 1
            if self.keep_requests:
                self.requests.append(body)
        refused = self._refusal(body, headers) if self.strict else None
        if refused:
            await self._send(writer, refused[0], json.dumps(refused[1]).encode())
            return True
        reply = await self._next_reply(body)
        if reply is None:
            return False
        if reply.kind == "echo_headers":  # a hostile or careless server: the request's headers in the error
            payload = json.dumps({"error": {"message": f"bad request; headers were {headers}"}}).encode()
            await self._send(writer, reply.status, payload, reply.headers)
            return True
        if reply.kind == "status":
            payload = json.dumps({"error": {"message": reply.text or f"fake error {reply.status}"}}).encode()
            await self._send(writer, reply.status, payload, reply.headers)
            return True
        if reply.kind == "malformed":
            await self._send(writer, 200, b'{"id": "x", "choices": [ {"message": ')
            return True
        if reply.kind == "no_choices":
            await self._send(writer, 200, b'{"id": "x", "object": "chat.completion", "choices": []}')
            return True
        completion = render_completion(
            body,
            self._answer(body, reply),
            strict=self.strict,
            reasoning_field=self.reasoning_field,
            cached_tokens=self.cached_tokens,
        )
        payload = json.dumps(completion).encode()
        if reply.kind == "truncated":
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
            writer.write(head.encode() + payload[: len(payload) // 2])
            await writer.drain()
            return False
        await self._send(writer, 200, payload, reply.headers)
        return True

    @staticmethod
    async def _send(
        writer: asyncio.StreamWriter, status: int, payload: bytes, headers: dict[str, str] | None = None
    ) -> None:
        reason = {
            200: "OK",
            400: "Bad Request",
            401: "Unauthorized",
            403: "Forbidden",
            404: "Not Found",
            413: "Payload Too Large",
            429: "Too Many Requests",
            500: "Internal Server Error",
            503: "Service Unavailable",
            529: "Overloaded",
        }.get(status, "Status")
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head = (
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n{extra}\r\n"
        )
        writer.write(head.encode() + payload)
        await writer.drain()


def key_from_env(name: str | None) -> str | None:
    """The key a fake run as a program accepts: read from the environment variable `name`, so it
    never appears on a command line; None (any key) without a name."""
    if name is None:
        return None
    key = os.environ.get(name)
    if not key:
        raise SystemExit(f"error: the environment variable {name} is not set")
    return key


def add_strict_arguments(parser: argparse.ArgumentParser) -> None:
    """The options both fakes take for strict mode."""
    parser.add_argument(
        "--strict",
        action="store_true",
        help="enforce the provider's documented request rules with its own error bodies",
    )
    parser.add_argument(
        "--api-key-env",
        default=None,
        metavar="VARIABLE",
        help="strict: accept only the key in this environment variable (default: any key)",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--reply", default=None, help="answer every request with this text (default: an echo)")
    parser.add_argument(
        "--usage",
        choices=("words", "tokens"),
        default="words",
        help="what the reported usage counts: words (default) or cl100k tokens as OpenAI counts them",
    )
    parser.add_argument(
        "--responder",
        default=None,
        metavar="MODULE:FUNCTION",
        help="a function(request_body) -> reply text, imported from a module on the path",
    )
    add_strict_arguments(parser)
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME=FAMILY",
        help=f"strict: also serve this model name as one of the families {', '.join(FAMILIES_BY_NAME)}",
    )
    parser.add_argument(
        "--reasoning-cost",
        type=int,
        default=0,
        help="strict: tokens a reasoning model spends on reasoning before it answers",
    )
    parser.add_argument(
        "--reasoning-field",
        choices=REASONING_FIELDS,
        default=None,
        help="answer as a compatible reasoner, the reasoning text in this message field",
    )
    args = parser.parse_args()
    responder = (lambda body: args.reply) if args.reply is not None else default_text
    if args.responder:
        module, _, function = args.responder.partition(":")
        responder = getattr(importlib.import_module(module), function)
    try:
        served = check_served(dict(pair.partition("=")[::2] for pair in args.model))
    except ValueError as exc:
        parser.error(str(exc))
    api_key = key_from_env(args.api_key_env)
    # A server run as a program keeps no request bodies: no one can read them, and a benchmark's
    # hundreds of thousands of requests would grow its memory and its collector's work.
    serve_forever(
        lambda: FakeOpenAIServer(
            latency=args.latency,
            port=args.port,
            responder=responder,
            usage=args.usage,
            keep_requests=False,
            strict=args.strict,
            api_key=api_key,
            models=served,
            reasoning_cost=args.reasoning_cost,
            reasoning_field=args.reasoning_field,
        ),
        " (strict)" if args.strict else "",
    )


def serve_forever(make_server: Callable[[], FakeOpenAIServer], note: str = "") -> None:
    """Serve until Ctrl-C (a fake server run as a program), its address printed first; the server
    is made inside the event loop."""

    async def serve() -> None:
        server = make_server()
        await server.start()
        print(f"listening on {server.base_url}{note}", flush=True)
        await asyncio.Event().wait()

    try:
        run_async(serve())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

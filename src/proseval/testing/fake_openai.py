"""A fake OpenAI-compatible chat-completions server on 127.0.0.1.

It answers `POST /v1/chat/completions` after a fixed latency, and a *behaviour* function
can make any request fail the ways real servers do: 429 with `Retry-After`, 500, a hang past
the client's timeout, a truncated body, malformed JSON or a reply without choices. Every
answer reports `usage`: words by default, or with `usage="tokens"` (`--usage tokens`) cl100k
tokens counted as OpenAI counts them, for tests of what runs cost. Used by the tests and
`bench/`, and handy for dry runs of a configuration:

    python -m proseval.testing.fake_openai --port 8011 --latency 0.2
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..runtime.loop import run_async


@dataclass
class Reply:
    """What to answer one request with."""

    kind: str = "ok"  # ok | status | echo_headers | hang | truncated | malformed | no_choices | close
    status: int = 200
    text: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    latency: float | None = None


Behaviour = Callable[[int, dict[str, Any]], Reply]


def default_text(body: dict[str, Any]) -> str:
    """A deterministic answer derived from the request: an echo of the last user message."""
    messages = body.get("messages") or [{}]
    return f"echo: {messages[-1].get('content', '')}"


def count_usage(body: dict[str, Any], text: str, usage: str = "words") -> tuple[int, int]:
    """The (prompt, completion) tokens the fake reports: words (the default, as it always did), or
    with ``usage="tokens"`` cl100k_base tokens in OpenAI's chat format, as OpenAI counts them
    (`proseval.runtime.cost.message_tokens` for the prompt, the reply's own tokens)."""
    if usage == "tokens":
        from ..runtime.cost import message_tokens
        from ..tokens import count_tokens

        return message_tokens(body.get("messages") or []), count_tokens(text)
    return sum(len(str(m.get("content", "")).split()) for m in body.get("messages", [])), len(text.split())


def _completion(body: dict[str, Any], text: str, usage: str = "words") -> dict[str, Any]:
    prompt_tokens, completion_tokens = count_usage(body, text, usage)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


class FakeOpenAIServer:
    """Run with `async with` inside a loop, or `start_in_thread()` from synchronous code."""

    def __init__(self, *, latency: float = 0.0, behaviour: Behaviour | None = None,
                 responder: Callable[[dict[str, Any]], str] = default_text, port: int = 0, usage: str = "words",
                 keep_requests: bool = True):
        if usage not in ("words", "tokens"):
            raise ValueError(f"usage must be words or tokens, not {usage!r}")
        self.latency = latency
        self.usage = usage  # what `usage` reports: words (default) or cl100k tokens (`count_usage`)
        self.behaviour = behaviour
        self.responder = responder
        self.port = port
        self.requests: list[dict[str, Any]] = []  # every request body, for tests (kept unless `keep_requests` is False)
        self.keep_requests = keep_requests
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
            self._loop.run_forever()

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

    async def _respond(self, request_line: str, raw: bytes, writer: asyncio.StreamWriter,
                       headers: dict[str, str] | None = None) -> bool:
        """Answer one request; False closes the connection."""
        method, path, _ = (request_line.split(" ") + ["", ""])[:3]
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            await self._send(writer, 404, b'{"error": {"message": "not found"}}')
            return True
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            await self._send(writer, 400, b'{"error": {"message": "invalid JSON"}}')
            return True
        if self.keep_requests:
            self.requests.append(body)
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
        text = reply.text if reply.text is not None else self.responder(body)
        payload = json.dumps(_completion(body, text, self.usage)).encode()
        if reply.kind == "truncated":
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
            writer.write(head.encode() + payload[: len(payload) // 2])
            await writer.drain()
            return False
        await self._send(writer, 200, payload, reply.headers)
        return True

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests",
                  500: "Internal Server Error", 503: "Service Unavailable"}.get(status, "Status")
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\n{extra}\r\n")
        writer.write(head.encode() + payload)
        await writer.drain()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--reply", default=None, help="answer every request with this text (default: an echo)")
    parser.add_argument("--usage", choices=("words", "tokens"), default="words",
                        help="what the reported usage counts: words (default) or cl100k tokens as OpenAI counts them")
    parser.add_argument("--responder", default=None, metavar="MODULE:FUNCTION",
                        help="a function(request_body) -> reply text, imported from a module on the path")
    args = parser.parse_args()
    responder = (lambda body: args.reply) if args.reply is not None else default_text
    if args.responder:
        module, _, function = args.responder.partition(":")
        responder = getattr(importlib.import_module(module), function)
    # A server run as a program keeps no request bodies: no one can read them, and a benchmark's
    # hundreds of thousands of requests would grow its memory and its collector's work.
    serve_forever(lambda: FakeOpenAIServer(latency=args.latency, port=args.port, responder=responder,
                                           usage=args.usage, keep_requests=False))


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

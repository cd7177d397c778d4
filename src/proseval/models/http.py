"""What the providers that post JSON with aiohttp share: a pooled session, replicas chosen by the
fewest requests in flight, and one POST with transport failures mapped to retryable errors."""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import re
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .base import ContextOverflowError, FatalError, ModelError, RetryableError, is_context_overflow

# (HTTP status, response body, response headers, replica index) -> the error that status means for this provider
StatusError = Callable[[int, bytes, Mapping[str, str], int], ModelError]
_RETRYABLE_STATUS = {408, 409, 425, 429}

if TYPE_CHECKING:
    import aiohttp
    from yarl import URL

# aiohttp is imported where a request is made (it builds its TLS contexts on import, about 0.17 s):
# a run on the embedded model or a scripted one, a dry run and the commands that read runs never need it.


def short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def connection_words(exc: BaseException) -> str:
    """What went wrong with a connection, in words: "cannot connect to 127.0.0.1:9: connection
    refused", never the client library's own phrasing ("ssl:default", "Connect call failed (…)")."""
    import aiohttp

    if isinstance(exc, aiohttp.ClientSSLError):  # a certificate or TLS failure: its errno means nothing here
        cause = exc.os_error
        detail = getattr(cause, "verify_message", None) or getattr(cause, "reason", None) or str(cause)
        return f"cannot connect to {exc.host}:{exc.port}: the secure connection failed ({detail})"
    if isinstance(exc, aiohttp.ClientConnectorError):
        cause = exc.os_error
        reason = (os.strerror(cause.errno) if cause.errno else cause.strerror or "") or "no connection"
        return f"cannot connect to {exc.host}:{exc.port}: {reason.lower()}"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the server closed the connection before it answered"
    return short(re.sub(r" ssl:\S+", "", str(exc)) or "the connection failed")


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `Retry-After` (seconds or HTTP date) or `retry-after-ms`."""
    if headers is None:
        return None
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def http_error(status: int, message: str, detail: str, headers: Mapping[str, str] | None = None) -> ModelError:
    """The error an HTTP error status means, `message` its text: 408, 409, 425, 429 and 5xx (529
    overloaded) can be retried, after the `headers`' `Retry-After`; a 400, 413 or 422 whose `detail`
    says the prompt did not fit is a context overflow; any other is fatal."""
    if status in _RETRYABLE_STATUS or status >= 500:
        return RetryableError(message, retry_after=parse_retry_after(headers), status=status)
    if status in (400, 413, 422) and is_context_overflow(detail):
        return ContextOverflowError(message, status=status)
    return FatalError(message, status=status)


class JsonEndpoints:
    """One or more replicas of an HTTP JSON API behind one aiohttp session (made inside the running
    loop); a request goes to the replica with the fewest requests in flight."""

    def __init__(self, base_urls: list[str]):
        self.base_urls = base_urls
        self.in_flight = [0] * len(base_urls)
        self._session: aiohttp.ClientSession | None = None
        self._urls: dict[tuple[int, str], URL] = {}  # parsed once, not on every request

    def session(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300))
        return self._session

    def pick(self) -> int:
        return min(range(len(self.base_urls)), key=self.in_flight.__getitem__)

    async def post(
        self, path: str, body: str, headers: Mapping[str, str], timeout: float, status_error: StatusError
    ) -> tuple[Any, float]:
        """POST `body` to `path` of the least busy replica: the decoded JSON reply and the latency.
        `status_error(status, body, headers, replica)` is raised for a status of 400 or more; time-outs,
        dropped connections and malformed bodies are retryable."""
        import aiohttp
        from yarl import URL

        index = self.pick()
        url = self.base_urls[index]
        target = self._urls.get((index, path))
        if target is None:
            target = self._urls[index, path] = URL(url + path)
        self.in_flight[index] += 1
        start = time.perf_counter()
        try:
            async with self.session().post(
                target, data=body.encode("utf-8"), headers=dict(headers), timeout=aiohttp.ClientTimeout(total=timeout)
            ) as reply:
                raw = await reply.read()
                if reply.status >= 400:
                    raise status_error(reply.status, raw, reply.headers, index)
        except asyncio.TimeoutError:
            raise RetryableError(f"timed out after {timeout:g}s ({url})") from None
        except aiohttp.ClientError as exc:
            raise RetryableError(f"connection error ({url}): {connection_words(exc)}") from None
        finally:
            self.in_flight[index] -= 1
        try:
            return json.loads(raw), time.perf_counter() - start
        except ValueError as exc:
            raise RetryableError(f"malformed response body: {short(str(exc))}") from None

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()

"""What the providers that post JSON with aiohttp share: a pooled session, replicas chosen by the
fewest requests in flight, and one POST with transport failures mapped to retryable errors."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

import aiohttp

from .base import ModelError, RetryableError

# (HTTP status, response body, response headers, replica index) -> the error that status means for this provider
StatusError = Callable[[int, bytes, Mapping[str, str], int], ModelError]


def short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class JsonEndpoints:
    """One or more replicas of an HTTP JSON API behind one aiohttp session (made inside the running
    loop); a request goes to the replica with the fewest requests in flight."""

    def __init__(self, base_urls: list[str]):
        self.base_urls = base_urls
        self.in_flight = [0] * len(base_urls)
        self._session: aiohttp.ClientSession | None = None

    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300))
        return self._session

    def pick(self) -> int:
        return min(range(len(self.base_urls)), key=self.in_flight.__getitem__)

    async def post(self, path: str, body: str, headers: Mapping[str, str], timeout: float,
                   status_error: StatusError) -> tuple[Any, float]:
        """POST `body` to `path` of the least busy replica: the decoded JSON reply and the latency.
        `status_error(status, body, headers, replica)` is raised for a status of 400 or more; time-outs,
        dropped connections and malformed bodies are retryable."""
        index = self.pick()
        url = self.base_urls[index]
        self.in_flight[index] += 1
        start = time.perf_counter()
        try:
            async with self.session().post(url + path, data=body, headers=dict(headers),
                                           timeout=aiohttp.ClientTimeout(total=timeout)) as reply:
                raw = await reply.read()
                if reply.status >= 400:
                    raise status_error(reply.status, raw, reply.headers, index)
        except asyncio.TimeoutError:
            raise RetryableError(f"timed out after {timeout:g}s ({url})") from None
        except aiohttp.ClientError as exc:
            raise RetryableError(f"connection error ({url}): {short(str(exc) or type(exc).__name__)}") from None
        finally:
            self.in_flight[index] -= 1
        try:
            return json.loads(raw), time.perf_counter() - start
        except ValueError as exc:
            raise RetryableError(f"malformed response body: {short(str(exc))}") from None

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()

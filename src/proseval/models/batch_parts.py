"""What the providers' batch protocols (`openai_batch`, `anthropic_batch`) and the batch engine's
view of them (`batch`) share: an answer, a results reader, the expired-line error, and reading a
results file and an HTTP status as errors.

It imports no protocol, so that each protocol and `batch`, which opens them, stand on it alone.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .base import Completion, ModelError, RetryableError
from .http import http_error, short

Answer = Completion | ModelError
Reader = Callable[[Callable[[], Awaitable[str]], str], Awaitable[str]]
"""Reads a text (a results file) with the run's retries: ``read(fetch, what)``."""


class BatchExpiredError(RetryableError):
    """A batch line not run before its batch expired (retried like any retryable line; counted apart)."""


def result_lines(text: str, read: Callable[[dict[str, Any], float], Answer], latency: float) -> dict[str, Answer]:
    """Each line of a results file, by its custom_id; lines that are not results are skipped (their
    requests count as missing, and are retried)."""
    results: dict[str, Answer] = {}
    for raw in text.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("custom_id"), str):
            results[line["custom_id"]] = read(line, latency)
    return results


def status_error(status: int, detail: str, what: str, headers: Mapping[str, str] | None = None) -> ModelError:
    """The error a real-time request with this HTTP status raises (same retry classes)."""
    return http_error(status, f"{what}: HTTP {status}: {short(detail)}", detail, headers)


def transport_error(exc: BaseException, what: str) -> ModelError:
    """A `ModelError` as it is; any other exception as a retryable one."""
    if isinstance(exc, ModelError):
        return exc
    cause = exc.__cause__ or exc
    return RetryableError(f"{what}: {short(str(cause) or str(exc) or 'the connection failed, with no detail')}")

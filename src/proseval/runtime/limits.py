"""Per-endpoint concurrency limits shared by several runs in one process (an evaluation set).

Each role of a run has its own limit (`RoleBinding.concurrency`, a semaphore in its
`RoleModel`). When several runs send requests to one server at once — three tasks against one
vLLM, or every run's judge against one API — those limits add up. `EndpointLimits` is one
explicit object, created for the runs that share it and handed to each through
`RunOptions.endpoint_limits`: a request takes its role's own slot, then a slot of every
endpoint limit that names the role's endpoint, and holds them only while it is sent (never
while it waits to retry). A single run without it is unchanged.

A limit's key names an endpoint in one of three ways:

- a base URL (``http://gpu1:8000/v1``): the roles that send to it; a role spread over several
  replicas takes a slot of each listed replica's limit (a conservative count: the limit is
  never exceeded, and the role may use less than the replicas could serve);
- a model spec (``openai-compatible/qwen``, ``scripted/judge``): the roles bound to that model;
- a provider (``openai``, ``openai-compatible``, ``anthropic``, ``scripted``, ``local``): the
  provider's own endpoint, that is every role of that provider without a base URL of its own
  (``openai``: api.openai.com or ``OPENAI_BASE_URL``; ``openai-compatible``:
  ``PROSEVAL_BASE_URL``; ``anthropic``: api.anthropic.com or ``ANTHROPIC_BASE_URL``).

The semaphores bind to the event loop that first waits on them: one `EndpointLimits` serves
the runs of one event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..models.spec import PROVIDERS
from .records import RoleBinding


class EndpointSlot:
    """One endpoint's limit: a semaphore that also counts requests in flight and their peak."""

    def __init__(self, key: str, limit: int):
        if limit < 1:
            raise ValueError(f"endpoint limit {key}: must be at least 1 (got {limit})")
        self.key = key
        self.limit = limit
        self.in_flight = 0
        self.peak = 0
        self.requests = 0
        self._semaphore = asyncio.Semaphore(limit)

    async def acquire(self) -> None:
        await self._semaphore.acquire()
        self.in_flight += 1
        self.requests += 1
        self.peak = max(self.peak, self.in_flight)

    def release(self) -> None:
        self.in_flight -= 1
        self._semaphore.release()

    def summary(self) -> dict[str, int]:
        return {"limit": self.limit, "peak_in_flight": self.peak, "requests": self.requests}


def normal_url(url: str) -> str:
    return url.strip().rstrip("/")


def endpoint_key_problem(key: str) -> str | None:
    """Why `key` names no endpoint (None: it is a base URL, a model spec or a provider)."""
    if "://" in key:
        parts = urlsplit(key)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "a base URL must be an http(s) URL with a host, e.g. http://localhost:8000/v1"
        return None
    provider, sep, model = key.partition("/")
    if provider not in PROVIDERS:
        return f"name an endpoint by its base URL, a model spec (provider/model) or a provider ({', '.join(PROVIDERS)})"
    if sep and not model:
        return "a model spec looks like provider/model"
    return None


def matches(key: str, spec: str, base_urls: Iterable[str]) -> bool:
    """Whether the limit `key` names the endpoint of a role bound to `spec` at `base_urls`."""
    urls = [normal_url(u) for u in base_urls]
    if "://" in key:
        return normal_url(key) in urls
    if "/" in key:
        return key == spec
    return spec.partition("/")[0] == key and not urls


@dataclass
class EndpointLimits:
    """Endpoint limits by key (see the module's text); `for_binding` gives a role's slots."""

    limits: Mapping[str, int]
    slots: dict[str, EndpointSlot] = field(init=False)

    def __post_init__(self) -> None:
        for key in self.limits:
            problem = endpoint_key_problem(key)
            if problem:
                raise ValueError(f"endpoint limit {key!r}: {problem}")
        # A fixed order (sorted keys): every request takes its slots in the same order, so two
        # requests never each hold one slot the other waits for.
        self.slots = {key: EndpointSlot(key, self.limits[key]) for key in sorted(self.limits)}

    def keys_for(self, binding: RoleBinding) -> list[str]:
        return [key for key in self.slots if matches(key, binding.spec, binding.base_urls)]

    def for_binding(self, binding: RoleBinding) -> tuple[EndpointSlot, ...]:
        """The slots a request of a role bound so must take, in the fixed order."""
        return tuple(self.slots[key] for key in self.keys_for(binding))

    def limit_for(self, binding: RoleBinding) -> int | None:
        """The smallest limit over the role's endpoint (None: no limit names it)."""
        limits = [self.slots[key].limit for key in self.keys_for(binding)]
        return min(limits) if limits else None

    def summary(self) -> dict[str, dict[str, int]]:
        return {key: slot.summary() for key, slot in self.slots.items()}

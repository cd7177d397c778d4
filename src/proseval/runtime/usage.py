"""What runs used, summed: a run's requests, tokens and recorded spend over its roles (from
`results.json`'s `roles`), and the totals of several runs (an evaluation set's, a report's)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

COUNTS = ("requests", "prompt_tokens", "completion_tokens")


def _spend(items: Iterable[Mapping[str, Any]]) -> tuple[float | None, str | None]:
    """The sum of the items' recorded `cost` in their `currency`: (None, None) when none has a cost,
    (None, None) too when their currencies differ (amounts in two currencies do not add up)."""
    priced = [item for item in items if item.get("cost") is not None]
    currencies = {item.get("currency") for item in priced}
    if not priced or len(currencies) > 1:
        return None, None
    return round(sum(float(item["cost"]) for item in priced), 10), currencies.pop()


def run_usage(roles: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One run's usage over its roles: requests (cache hits included), prompt and completion
    tokens, and the spend recorded with a prices file (`cost` in `currency`; None without one)."""
    usage: dict[str, Any] = {key: sum(int(stats.get(key) or 0) for stats in roles.values()) for key in COUNTS}
    usage["cost"], usage["currency"] = _spend(roles.values())
    return usage


def total_usage(usages: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The sum of several runs' `run_usage`; the cost over the runs that recorded one."""
    usages = list(usages)
    total: dict[str, Any] = {key: sum(int(u[key]) for u in usages) for key in COUNTS}
    total["cost"], total["currency"] = _spend(usages)
    return total

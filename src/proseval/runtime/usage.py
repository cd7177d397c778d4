"""What runs used, summed: a run's requests, tokens and recorded spend over its roles (from
`results.json`'s `roles`, or from the sessions of its `usage.jsonl`), and the totals of several
runs (an evaluation set's, a report's)."""

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


def session_usage(sessions: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """What the sessions of a run (`usage.jsonl`, and the snapshot of a process running or killed)
    recorded over every role: the requests sent (cache hits included), the tokens of every answer
    received, the spend; None when no session recorded anything. Unlike `results.json`'s tokens (its
    records'), this counts the answers of samples left without a record (abandoned at a cost limit,
    interrupted), which were paid."""
    roles = [
        stats for session in sessions for stats in (session.get("roles") or {}).values() if isinstance(stats, Mapping)
    ]
    if not roles:
        return None
    usage: dict[str, Any] = {key: sum(int(stats.get(key) or 0) for stats in roles) for key in COUNTS}
    usage["cost"], usage["currency"] = _spend(roles)
    return usage


def folder_usage(results: Any, sessions: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """A run folder's usage for a summary (a set's members): its `results.json`'s (`run_usage`) when
    every sample has a record, else what its sessions recorded (`session_usage`), so that a run
    stopped before its end shows the tokens behind its spend, and one without `results.json` (killed)
    shows its usage at all."""
    if results is not None and results.complete:
        return run_usage(results.roles)
    recorded = session_usage(sessions)
    return recorded if recorded is not None or results is None else run_usage(results.roles)


def total_usage(usages: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The sum of several runs' `run_usage`; the cost over the runs that recorded one."""
    usages = list(usages)
    total: dict[str, Any] = {key: sum(int(u[key]) for u in usages) for key in COUNTS}
    total["cost"], total["currency"] = _spend(usages)
    return total

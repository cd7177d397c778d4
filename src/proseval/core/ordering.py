"""Sample orders that make a --limit prefix representative."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")


def round_robin(items: Iterable[T], key: Callable[[T], Hashable]) -> list[T]:
    """Alternate the groups of ``key`` (groups in order of first appearance, each in its own order),
    so that any prefix holds about as many items of every group."""
    groups: dict[Hashable, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    lists = list(groups.values())
    return [group[i] for i in range(max(map(len, lists), default=0)) for group in lists if i < len(group)]

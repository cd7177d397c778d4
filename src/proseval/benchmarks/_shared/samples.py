"""A task's samples made from its items as they are read."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar, overload

from proseval.kit import Sample

Item = TypeVar("Item")


class SampleList(Sequence[Sample], Generic[Item]):
    """The samples of `items`, each made by `to_sample` when it is read (and again on each read).

    A run with a limit, and the planning and estimates before it, read only the first samples of
    a dataset of thousands; a Meeseeks sample carries its whole item as JSON, so making every
    sample each time would cost more than the work they plan.
    """

    def __init__(self, items: Sequence[Item], to_sample: Callable[[Item], Sample]) -> None:
        self._items = items
        self._to_sample = to_sample

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Sample: ...

    @overload
    def __getitem__(self, index: slice) -> list[Sample]: ...

    def __getitem__(self, index: int | slice) -> Sample | list[Sample]:
        if isinstance(index, slice):
            return [self._to_sample(item) for item in self._items[index]]
        return self._to_sample(self._items[index])

    def __iter__(self) -> Iterator[Sample]:
        return map(self._to_sample, self._items)

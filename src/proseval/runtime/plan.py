"""Which samples of a task a run covers."""

from __future__ import annotations

from collections.abc import Iterator

from ..core.sample import Sample
from ..core.task import Task
from ..errors import UsageError

# The most (sample, epoch) pairs one run may plan: far beyond any benchmark, and a bound on what a
# mistyped --epochs or limit would send and write.
MAX_SAMPLE_EPOCHS = 1_000_000


def check_run_size(samples: int, epochs: int) -> None:
    """Refuse a run of more than `MAX_SAMPLE_EPOCHS` (sample, epoch) pairs, before anything is sent."""
    if samples * epochs > MAX_SAMPLE_EPOCHS:
        raise UsageError(
            f"{samples:,} samples x {epochs:,} epochs = {samples * epochs:,} sample-epochs, more than "
            f"the {MAX_SAMPLE_EPOCHS:,} a run may have; lower --epochs or --limit"
        )


class SamplePlan:
    """The selected samples of a task, streamed from its dataset rather than held in memory.

    The first pass counts them and checks that ids are unique; later passes re-read the
    dataset (datasets are deterministic), so a run of any size keeps only ids in memory.
    """

    def __init__(self, task: Task, limit: int | None):
        self.task = task
        self.limit = limit
        self.ids: set[str] = set()
        for sample in self.samples(check=True):
            self.ids.add(sample.id)
        self.count = len(self.ids)

    def samples(self, *, check: bool = False) -> Iterator[Sample]:
        seen: set[str] = set()
        for sample in self.task.dataset():
            if check and sample.id in seen:
                raise ValueError(f"duplicate sample id {sample.id!r} in the dataset of {self.task.name}")
            seen.add(sample.id)
            yield sample
            if self.limit is not None and len(seen) >= self.limit:
                return

"""A run's results from its records: generic metrics, counts, per-role usage, the task's own figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.task import Task
from .aggregate import Accumulator, canonical_order, epoch_means, mean_tree
from .batch import BATCH_COUNTS
from .records import Results, ScoredSample
from .runlog import RunFolder, now_iso

TOKENS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")  # summed per role over records


def _add_tokens(tokens: dict[str, list[int]], sample: ScoredSample) -> None:
    for role, usage in sample.usage.items():
        counts = tokens.setdefault(role, [0] * len(TOKENS))
        for index, key in enumerate(TOKENS):
            counts[index] += getattr(usage, key)


def role_usage(tokens: dict[str, list[int]], sessions: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per-role totals over the whole run, across every process that worked on it.

    Tokens (`TOKENS`: reasoning and cached tokens are parts of the completion and prompt tokens) are
    summed over the records (so a killed process's finished samples count);
    requests, cache hits, retries and errors over the sessions of `usage.jsonl` (a killed
    process's as they stood at its last record, `runlog.UsageSnapshot`), and so is the spend
    (`cost`, in `currency`) of the sessions run with a prices file (`priced_sessions` of
    `sessions`; a cache hit costs nothing), and so are the batch counts (`BATCH_COUNTS`) of a
    role in batch mode, present only for such a role.
    """
    totals: dict[str, dict[str, Any]] = {}

    def entry(role: str) -> dict[str, Any]:
        return totals.setdefault(
            role, {"requests": 0, "cache_hits": 0, "retries": 0, "errors": 0, "latency_total": 0.0}
        )

    for session in sessions:
        for role, stats in session.get("roles", {}).items():
            totals_of_role = entry(role)
            for key in ("requests", "cache_hits", "retries", "errors"):
                totals_of_role[key] += int(stats.get(key) or 0)
            calls = int(stats.get("requests") or 0) - int(stats.get("cache_hits") or 0)
            totals_of_role["latency_total"] += (stats.get("mean_latency_s") or 0.0) * max(calls, 0)
            if stats.get("cost") is not None:  # spend recorded with --prices (`runtime.cost`)
                totals_of_role["cost"] = round(totals_of_role.get("cost", 0.0) + float(stats["cost"]), 10)
                totals_of_role["currency"] = stats.get("currency")
                totals_of_role["priced_sessions"] = totals_of_role.get("priced_sessions", 0) + 1
            if any(key in stats for key in BATCH_COUNTS):  # a session with the role in batch mode
                for key in BATCH_COUNTS:
                    totals_of_role[key] = totals_of_role.get(key, 0) + int(stats.get(key) or 0)
    for role in set(totals) | set(tokens):
        totals_of_role = entry(role)
        totals_of_role.update(zip(TOKENS, tokens.get(role, [0] * len(TOKENS))))
        calls = totals_of_role["requests"] - totals_of_role["cache_hits"]
        latency = totals_of_role.pop("latency_total")
        totals_of_role["mean_latency_s"] = round(latency / calls, 4) if calls > 0 else None
        totals_of_role["sessions"] = len(sessions)
    return dict(sorted(totals.items()))


def _streams(task: Task, epochs: int) -> bool:
    """Whether a run's figures come from one pass over its records, holding none of them (flat
    memory however large the run): one epoch, and no figures of the task's own over the records."""
    return epochs == 1 and task.aggregate is None


class SessionRecords:
    """What `aggregate_run` reads from a run's records, gathered as a process writes them, so a run
    that had no records before it finishes without reading them back: the tally (`_streams`), else
    the records without their texts."""

    def __init__(self, task: Task, epochs: int):
        self.tally: Accumulator | None = Accumulator(task.slice_keys) if _streams(task, epochs) else None
        self.tokens: dict[str, list[int]] = {}
        self.samples: list[ScoredSample] = []

    def add(self, sample: ScoredSample) -> None:
        if self.tally is not None:
            self.tally.add(sample)
            _add_tokens(self.tokens, sample)
        else:
            self.samples.append(sample)


def _streamed(task: Task, folder: RunFolder) -> SessionRecords | None:
    """One streaming pass over the records; None if the folder holds a duplicate record, which
    needs the de-duplicating path."""
    read, seen = SessionRecords(task, 1), set()
    for sample in folder.iter_scored():
        key = (sample.id, sample.epoch)
        if key in seen:
            return None
        seen.add(key)
        read.add(sample)
    return read


def aggregate_run(
    task: Task,
    folder: RunFolder,
    total: int,
    run_id: str,
    *,
    seed: int = 0,
    epochs: int = 1,
    written: SessionRecords | None = None,
) -> Results:
    """Generic numbers over one record per (sample, epoch); task-specific ones on top.

    With several epochs the headline metrics are over each sample's mean across its epochs,
    `epochs` holds each epoch's metrics, and the task's own figures are computed per epoch
    (`extra_epochs`) with their element-wise mean in `extra`. `written`: every record the folder
    holds, as the one process that wrote them all gathered them (nothing is read back).
    """
    gathered = written if written is not None else _streamed(task, folder) if _streams(task, epochs) else None
    samples: list[ScoredSample] = []
    duplicates = 0
    if gathered is not None and gathered.tally is not None:
        records, tokens = gathered.tally, gathered.tokens
    else:
        samples, duplicates = (gathered.samples, 0) if gathered is not None else folder.unique_scored()
        samples = canonical_order(samples)  # so no figure depends on the order samples finished in
        records, tokens = Accumulator(task.slice_keys), {}
        for sample in samples:
            records.add(sample)
            _add_tokens(tokens, sample)
    counts = records.counts(total)
    counts.duplicates = duplicates
    headline, per_epoch, extra_epochs = records, [], []
    if epochs > 1:
        headline = Accumulator(task.slice_keys)
        for sample in epoch_means(samples):
            headline.add(sample)
        groups = [[s for s in samples if s.epoch == epoch] for epoch in range(epochs)]
        per_epoch = [Accumulator() for _ in groups]
        for accumulator, group in zip(per_epoch, groups):
            for sample in group:
                accumulator.add(sample)
        if task.aggregate:
            extra_epochs = [task.aggregate(group) for group in groups if group]
        extra = mean_tree(extra_epochs) if extra_epochs else {}
    else:
        extra = task.aggregate(samples) if task.aggregate else {}
    metrics = headline.metrics(seed)
    results = Results(
        run_id=run_id,
        task=task.name,
        finished_at=now_iso(),
        complete=counts.finished >= total,
        counts=counts,
        metrics=metrics,
        headline=task.headline if task.headline in metrics else None,
        slices=headline.slice_tables(seed),
        roles=role_usage(tokens, folder.read_usage()),
        extra=extra,  # type: ignore[arg-type]  # the mean of the epochs' dicts is a dict
        epochs=[accumulator.metrics(seed) for accumulator in per_epoch],
        extra_epochs=extra_epochs,
    )
    results.outcome = results.final_outcome()
    return results

"""Provider batch mode (`proseval run --batch ROLE`): a role's requests sent through the provider's
batch API (OpenAI's `/v1/batches` with `/v1/files`, or Anthropic's Message Batches) instead of one
by one (docs/many-models.md, "Batch mode").

Phases without changing a benchmark: a role in batch mode has a `RoleBatcher` in its
`RoleModel`. A request that misses the cache is not sent; it waits in the batcher's *pending*
set. The run's `BatchCoordinator` knows how many samples are in flight and how many of them wait
on a batched request. When every sample in flight waits (no sample can make another request) and
stays so for `settle` seconds, every pending set is *flushed*: written as JSONL (`custom_id` = a
hash of the request's cache key), uploaded (`purpose=batch`), and a batch is created. So all
candidate calls go out in one batch, then all judge calls; a multi-round protocol batches round
by round. A pending set is also flushed, without waiting, when it reaches the provider's limits
(`max_requests`, `max_bytes`: OpenAI's 50,000 requests and 200 MB per file; Anthropic's 100,000
requests and 256 MB per batch). Under a cost limit (`runtime.cost`) a request joins a pending set
only once its expected cost is reserved; one that does not fit waits, its sample counted as
waiting, until answers release reservations: a phase the limit would cut goes out as several
batches, each of what fits.

This module is the provider-neutral engine. The providers' protocols sit behind one interface
(`models.batch.BatchAPI`; `models.openai_batch`, `models.anthropic_batch`): a request's line,
*staging* the lines (OpenAI: the file upload; Anthropic: nothing sent, the lines kept for the
create, which carries them), create, find (a lost create), retrieve, the results.

Every upload (Anthropic: every set of requests about to be created) and every created batch is
recorded in the run folder's `batches.jsonl` (appended and synced to disk) as soon as it happens,
before anything waits on it. A resumed run reads it first: a request whose custom id belongs to a
recorded batch waits for that batch (polled again, never created again); a recorded upload without
a batch is looked up among the provider's batches (a kill between the two calls) before anything is
sent anew — by its input file at OpenAI, by its request count and creation time at Anthropic
(whose batches carry nothing of ours).

A batch is polled with exponential backoff (`poll_initial` doubling up to `poll_max`); once it
ends, its output and error files are read and each request gets its answer by custom id. An
answer is cached like a real-time one. An item that failed in a way a retry can fix (a 429 or 5xx
in the error file, expired, cancelled, missing, the whole batch failed) goes into the next batch
once; failing again, it is sent in real time with the usual retries; then the usual failure
policy applies (the score is unscored, the sample failed: never a 0). An item the provider
refused for good (a 400, an unknown model) fails as a real-time request would. Requests whose
batch could not be submitted at all (the endpoint unreachable, the upload or create refused,
after the usual retries) raise `BatchFailedError`: their samples fail (`--retry-failed` runs them
again), whatever the benchmark does with a failed request.

Each role counts what happened to its lines (`RoleBatcher.counts`, recorded with the session's
usage; `BATCH_COUNTS`): the lines of its batches that ended, those that failed and those that
expired there, the requests put into a next batch, and those sent in real time after failing in
batches. A request counts as sent (`executor.Sending`) once the batch holding it is created; one
whose sample stops while it waits for a batch was never sent. The run is told when a batch is
created (`BatchCoordinator.on_submitted`) and, before anything else happens, when a batch's
results are read (`BatchCoordinator.on_results`: the answers are paid then), so that it keeps
the session's usage and spend on disk.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..models.anthropic_batch import AnthropicBatchAPI, anthropic_item_result  # noqa: F401 - also importable here
from ..models.base import (
    Completion,
    FatalError,
    GenerateConfig,
    Message,
    ModelError,
    RetryableError,
)
from ..models.batch import BATCH_PROVIDERS, BatchAPI, BatchExpiredError, open_batch_api
from .secrets import scrub, scrub_url

BATCH_LOG = "batches.jsonl"
BATCH_TRIES = 2  # batches a request may fail in (retryably) before it is sent in real time
POLL_ERRORS = 20  # polls in a row that fail before a batch is given up (its requests retried)
# A batch role's counts in `usage.jsonl` and `results.json` `roles` (docs/many-models.md, "Batch mode").
BATCH_COUNTS = ("batch_lines", "batch_failed", "batch_expired", "rebatched", "realtime_fallbacks")

T = TypeVar("T")
Sample = tuple[str, int]  # (sample id, epoch)


@dataclass(frozen=True)
class BatchSettings:
    """How batches are cut and polled (`RunOptions.batch_settings`; the roles: `RunOptions.batch_roles`)."""

    poll_initial: float = 5.0  # seconds before the second poll (the first is at once), doubling...
    poll_max: float = 300.0  # ...up to this
    settle: float = 1.0  # every sample in flight waits on a batch for this long: the pending requests are sent
    max_requests: int | None = None  # requests per batch; None: the provider's limit (at most that anyway)
    max_bytes: int | None = None  # bytes per batch; None: the provider's limit (at most that anyway)
    completion_window: str = "24h"
    max_in_flight: int = 50_000  # samples in flight at once (a batch can only hold the requests of these)


def batch_problem(bindings: Mapping[str, Any], roles: Iterable[str], where: str = "--batch") -> str | None:
    """Why `roles` cannot be in batch mode with these role bindings (None: they can)."""
    for role in roles:
        binding = bindings.get(role)
        if binding is None:
            return f"{where} {role}: this task has no role {role}; its roles: {', '.join(sorted(bindings))}"
        provider = binding.spec.partition("/")[0]
        if provider not in BATCH_PROVIDERS:
            return (
                f"{where} {role}: {binding.spec} has no batch API; batch mode needs an OpenAI-compatible "
                "endpoint with /v1/files and /v1/batches (provider openai or openai-compatible) or "
                "Anthropic's Message Batches (provider anthropic)"
            )
        if len(binding.base_urls) > 1:
            return (
                f"{where} {role}: batch mode sends to one endpoint, and {role} has {len(binding.base_urls)} "
                "replicas; give it one base URL"
            )
    return None


def custom_id(key: str) -> str:
    """A request's id in a batch: stable across runs (its cache key), so a resumed run finds it."""
    return "pe-" + key[:40]


class BatchFailedError(RetryableError):
    """A request whose batch could not be submitted after the run's retries: its sample fails (a
    failed sample, retried by `--retry-failed`), even where a failed request would leave a score
    unscored — the role's endpoint is down, not one answer."""


def _copy(error: ModelError) -> ModelError:
    return type(error)(str(error), retry_after=error.retry_after, status=error.status)


class BatchLog:
    """`batches.jsonl`: one JSON line per event (`uploaded` — Anthropic: `submitting` —, `created`,
    `ended`), each written,
    flushed and synced to disk before the run goes on."""

    def __init__(self, path: Path):
        self.path = path
        self._checked = False

    def append(self, **entry: Any) -> None:
        line = json.dumps({**entry, "at": time.time()}, ensure_ascii=False) + "\n"
        if not self._checked:  # a line torn by a kill is left alone, not glued to ours
            self._checked = True
            if self.path.exists() and self.path.stat().st_size:
                with open(self.path, "rb") as existing:
                    existing.seek(-1, os.SEEK_END)
                    if existing.read(1) != b"\n":
                        line = "\n" + line
        with open(self.path, "a", encoding="utf-8") as file:
            file.write(line)
            file.flush()
            os.fsync(file.fileno())

    def read(self) -> list[dict[str, Any]]:
        if not self.path.is_file():
            return []
        entries = []
        for text in self.path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(text)
            except ValueError:
                continue  # torn by a kill before it was complete: the event did not happen for us
            if isinstance(entry, dict):
                entries.append(entry)
        return entries


class BatchTracker:
    """One batch at the provider: polled until it ends (once, however many requests wait on it),
    then its results by custom id."""

    def __init__(
        self,
        batcher: RoleBatcher,
        batch_id: str,
        custom_ids: list[str],
        *,
        resumed: bool = False,
        counted: bool = False,
    ):
        self.batcher = batcher
        self.batch_id = batch_id
        self.custom_ids = custom_ids
        self.resumed = resumed
        self.counted = counted  # its lines were counted by the session that saw it end (batches.jsonl)
        self.status: str | None = None
        self.results: dict[str, Completion | ModelError] = {}
        self._task: asyncio.Future[dict[str, Completion | ModelError]] | None = None
        self._since = time.monotonic()

    def start(self) -> asyncio.Future[dict[str, Completion | ModelError]]:
        if self._task is None:
            self._task = self.batcher.coordinator.spawn(self._follow())
            self.batcher.coordinator.batch_started(self)
        return self._task

    async def wait(self) -> dict[str, Completion | ModelError]:
        return await asyncio.shield(self.start())

    async def _follow(self) -> dict[str, Completion | ModelError]:
        coordinator = self.batcher.coordinator
        api, options = self.batcher.api, coordinator.options
        delay, failures = 0.0, 0
        what = f"batch {self.batch_id}"
        while True:
            if delay:
                await asyncio.sleep(delay)
            delay = min(max(delay * 2, options.poll_initial), options.poll_max)
            try:
                batch = await api.retrieve(self.batch_id)
            except Exception as exc:  # noqa: BLE001 - every transport error is a failed poll
                error = api.error(exc, f"polling {what}")
                failures += 1
                if error.kind == "fatal" or failures >= POLL_ERRORS:
                    return self._end("unreachable", {}, RetryableError(f"{what} could not be polled: {error}"))
                continue
            failures = 0
            if batch.status in api.terminal:
                break
        latency = time.monotonic() - self._since
        results = await api.results(batch, latency, self.batcher.retrying, what)
        reason = f"missing from the results of {what} ({batch.status})"
        if batch.status == "failed" and (why := api.failure(batch)):
            reason = f"{what} failed: {why}"
        missing = BatchExpiredError if batch.status == "expired" else RetryableError
        return self._end(batch.status, results, missing(reason))

    def _end(
        self, status: str, results: dict[str, Completion | ModelError], missing: ModelError
    ) -> dict[str, Completion | ModelError]:
        for cid in self.custom_ids:
            results.setdefault(cid, missing)
        results = {
            cid: r.model_copy(update={"batched": True}) if isinstance(r, Completion) else r
            for cid, r in results.items()
        }
        self.status, self.results = status, results
        answered = sum(isinstance(r, Completion) for r in results.values())
        coordinator = self.batcher.coordinator
        if coordinator.on_results is not None:  # paid now: recorded before the 'ended' line and any record
            mine = (results[cid] for cid in self.custom_ids)
            coordinator.on_results(self.batcher.role, [r for r in mine if isinstance(r, Completion)], not self.counted)
        coordinator.log.append(
            event="ended",
            role=self.batcher.role,
            batch_id=self.batch_id,
            status=status,
            answered=answered,
            failed=len(results) - answered,
        )
        if not self.counted:
            self.counted = True
            self.batcher.count_lines(results[cid] for cid in self.custom_ids)
        coordinator.batch_ended(self, answered, len(results) - answered)
        return results


@dataclass
class _Pending:
    line: bytes
    future: asyncio.Future[BatchTracker]


class RoleBatcher:
    """The batch side of one role: its pending requests, the batches that hold its requests,
    and what each request got (see the module's text)."""

    def __init__(self, coordinator: BatchCoordinator, role: str, model_name: str, api: BatchAPI):
        self.coordinator = coordinator
        self.role = role
        self.model_name = model_name
        self.api = api
        self.pending: dict[str, _Pending] = {}
        self.pending_bytes = 0
        self.known: dict[str, BatchTracker] = {}  # custom id -> the batch that holds it
        self.tries: Counter[str] = Counter()  # custom id -> batches it failed in (retryably)
        self.counts: Counter[str] = Counter()  # `BATCH_COUNTS` of this session

    async def generate(
        self, messages: list[Message], config: GenerateConfig, *, key: str, sample: Sample, sending: Any = None
    ) -> Completion | None:
        """The request's answer from a batch; None: send it in real time (it failed in batches);
        raises `ModelError` for what a retry cannot fix, or when no batch could be submitted.
        `sending` (`executor.Sending`) is told once a batch of this session holds the request."""
        cid = custom_id(key)
        body: dict[str, Any] | None = None
        while True:
            tracker = self.known.get(cid)
            if tracker is None:
                if self.tries[cid] >= BATCH_TRIES:
                    self.counts["realtime_fallbacks"] += 1
                    return None
                body = body or self.api.body(self.model_name, messages, config)
                tracker = await self.coordinator.waiting(sample, self._enqueue(cid, body))
                if sending is not None:
                    sending.sent()
            results = await self.coordinator.waiting(sample, tracker.wait())
            result = results.get(cid)
            if result is None:
                result = RetryableError(f"missing from the results of batch {tracker.batch_id}")
            if isinstance(result, Completion):
                return result  # marked `batched` as its batch's results were read
            if result.kind == "fatal":
                raise _copy(result)
            if self.known.get(cid) is tracker:  # the first of its waiters to see it failed
                del self.known[cid]
                self.tries[cid] += 1

    def _enqueue(self, cid: str, body: dict[str, Any]) -> asyncio.Future[BatchTracker]:
        if (waiting := self.pending.get(cid)) is not None:  # the same request twice: one line
            return waiting.future
        line = self.api.line(cid, body)
        max_requests, max_bytes = self.limits()
        if self.pending and self.pending_bytes + len(line) > max_bytes:
            self.flush()
        future: asyncio.Future[BatchTracker] = asyncio.get_running_loop().create_future()
        self.pending[cid] = _Pending(line, future)
        self.pending_bytes += len(line)
        if self.tries[cid]:  # it failed in an earlier batch
            self.counts["rebatched"] += 1
        if len(self.pending) >= max_requests:
            self.flush()
        return future

    def count_lines(self, results: Iterable[Completion | ModelError]) -> None:
        """Count the outcomes of an ended batch's lines."""
        for result in results:
            self.counts["batch_lines"] += 1
            if isinstance(result, BatchExpiredError):
                self.counts["batch_expired"] += 1
            elif isinstance(result, ModelError):
                self.counts["batch_failed"] += 1

    def usage(self) -> dict[str, int]:
        """This session's `BATCH_COUNTS`, for its line in `usage.jsonl`."""
        return {name: self.counts[name] for name in BATCH_COUNTS}

    def limits(self) -> tuple[int, int]:
        """Requests and bytes per batch: the settings' (when set), never past the provider's."""
        options, api = self.coordinator.options, self.api
        return (
            min(options.max_requests or api.max_requests, api.max_requests),
            min(options.max_bytes or api.max_bytes, api.max_bytes),
        )

    def flush(self) -> None:
        """Submit the pending requests as one batch (they fit the limits: `_enqueue` saw to it)."""
        if self.pending:
            chunk, self.pending, self.pending_bytes = self.pending, {}, 0
            self.coordinator.spawn(self._submit(chunk))

    async def retrying(
        self, call: Callable[[], Awaitable[T]], what: str, *, recover: Callable[[], Awaitable[T | None]] | None = None
    ) -> T:
        """`call` with the run's retries and backoff for what a retry can fix; before a retry,
        `recover` may find what a failed call did after all (its result then stands)."""
        from .executor import WaitRetryAfter

        coordinator = self.coordinator
        wait = WaitRetryAfter(coordinator.backoff_initial, 60.0)
        attempt = 0
        while True:
            attempt += 1
            try:
                return await call()
            except Exception as exc:  # noqa: BLE001 - mapped to the usual error classes
                error = self.api.error(exc, what)
            if error.kind == "fatal" or attempt >= coordinator.max_attempts:
                raise error
            if recover is not None and (found := await recover()) is not None:
                return found
            await asyncio.sleep(wait.delay(error, attempt))

    async def _submit(self, chunk: dict[str, _Pending]) -> None:
        ids = list(chunk)
        coordinator = self.coordinator
        try:
            data = b"".join(p.line for p in chunk.values())
            api = self.api
            staged = await self.retrying(
                lambda: api.stage(data, f"proseval-{self.role}.jsonl"),
                f"uploading a batch file of {len(ids)} {self.role} requests",
            )
            uploaded = time.time()
            coordinator.log.append(event=api.staged_event, role=self.role, **{api.staged_field: staged}, custom_ids=ids)
            batch = await self._create(staged, uploaded, len(ids))
            coordinator.log.append(event="created", role=self.role, **{api.staged_field: staged}, batch_id=batch.id)
        except ModelError as exc:
            failure = BatchFailedError(
                scrub(f"batch for {self.role} failed at {scrub_url(self.api.base_url)}: {exc}"), status=exc.status
            )
            coordinator.say(f"{failure}; the samples of its {len(ids)} requests failed")
            for pending in chunk.values():
                if not pending.future.done():
                    pending.future.set_exception(_copy(failure))
            return
        tracker = BatchTracker(self, batch.id, ids)
        for cid in ids:
            self.known[cid] = tracker
        coordinator.say(f"{self.role}: batch {batch.id} submitted ({len(ids)} requests)")
        tracker.start()
        for pending in chunk.values():
            if not pending.future.done():
                pending.future.set_result(tracker)
        if coordinator.on_submitted is not None:  # after the waiters that count their requests as sent
            asyncio.get_running_loop().call_soon(coordinator.on_submitted)

    async def _create(self, staged: str, uploaded: float, count: int) -> Any:
        """Create the batch; when the answer is lost, look the batch up before creating it again."""
        window = self.coordinator.options.completion_window
        return await self.retrying(
            lambda: self.api.create(staged, window),
            "creating a batch",
            recover=lambda: self.find_lost(staged, uploaded, count),
        )

    async def find_lost(self, staged: str, since: float, count: int) -> Any | None:
        """The batch a create whose answer was lost made of `staged`; None: none (or the look-up failed)."""
        try:
            return await self.api.find(staged, since, count)
        except Exception:  # noqa: BLE001 - not found: its requests are sent anew
            return None

    def follow_again(self, batch_id: str, custom_ids: list[str], *, counted: bool) -> None:
        """Wait for a batch an earlier attempt at this run recorded, instead of sending its requests anew."""
        tracker = BatchTracker(self, batch_id, list(custom_ids), resumed=True, counted=counted)
        for cid in tracker.custom_ids:
            if cid in self.known:  # in an earlier batch too: it failed there
                self.tries[cid] += 1
            self.known[cid] = tracker


class BatchCoordinator:
    """The batch mode of one run: its roles' batchers, the samples in flight and those waiting on
    a batch (when all wait, pending requests are sent), the log, the counts for the display."""

    def __init__(
        self,
        options: BatchSettings,
        folder: Path,
        *,
        max_attempts: int = 6,
        backoff_initial: float = 1.0,
        say: Callable[[str], None] | None = None,
    ):
        self.options = options
        self.log = BatchLog(folder / BATCH_LOG)
        self.max_attempts = max_attempts
        self.backoff_initial = backoff_initial
        self._say = say
        self.batchers: dict[str, RoleBatcher] = {}
        self.active = 0  # samples in flight
        self.waiting_on: Counter[Sample] = Counter()  # samples waiting on a batched request: how many requests
        self.started = 0  # batches followed (submitted here, or recorded by an earlier attempt)
        self.ended = 0
        self.on_change: Callable[[], None] | None = None  # the progress display's refresh
        # The run's usage keeping (`runtime.runner`): told when a batch of requests was created, and
        # when a batch's results are read, with the role, its answers and whether this session pays them
        # (False: an earlier session saw the batch end and recorded them).
        self.on_submitted: Callable[[], None] | None = None
        self.on_results: Callable[[str, list[Completion], bool], None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Future[Any]] = set()

    def add_role(self, role: str, model: Any) -> RoleBatcher:
        """The batcher of `role`, whose model is an OpenAI-compatible endpoint or Anthropic's
        (`batch_problem` checked)."""
        api = open_batch_api(model.provider, model.base_urls[0], model.name)
        self.batchers[role] = RoleBatcher(self, role, model.name, api)
        return self.batchers[role]

    async def probe(self) -> None:
        """Refuse a role whose endpoint answers that it has no batch API (before the run writes anything)."""
        for role, batcher in self.batchers.items():
            try:
                await batcher.api.probe()
            except Exception as exc:  # noqa: BLE001 - only a definite refusal stops the run
                error = batcher.api.error(exc, f"GET {batcher.api.base_url}{batcher.api.probe_path}")
                if error.kind == "fatal":
                    raise FatalError(f"--batch {role}: {batcher.api.base_url} offers no batch API ({error})") from None

    async def start(self) -> None:
        """Follow the batches an earlier attempt at this run recorded (see the module's text)."""
        entries = self.log.read()
        ended = {
            str(e.get("batch_id"))
            for e in entries  # seen to end by an earlier session: counted there
            if e.get("event") == "ended" and e.get("status") != "unreachable"
        }
        recorded = {str(e["batch_id"]) for e in entries if e.get("event") == "created" and e.get("batch_id")}
        for each in self.batchers.values():
            each.api.claim(recorded)
        resumed = 0
        for staged, upload in _staged_lines(entries).items():
            batcher = self.batchers.get(str(upload.get("role")))
            if batcher is None:
                continue
            batch_id = upload["batch_id"]
            if batch_id is None and (batch_id := await self._adopt(batcher, staged, upload)) is None:
                continue  # its requests are sent anew
            batcher.follow_again(str(batch_id), upload["custom_ids"], counted=str(batch_id) in ended)
            resumed += 1
        if resumed:
            self.say(
                f"{resumed} batch(es) recorded in {BATCH_LOG}: their requests wait for them (polled, "
                "not submitted again)"
            )

    async def _adopt(self, batcher: RoleBatcher, staged: str, upload: dict[str, Any]) -> str | None:
        """The id of the batch made of `staged` by a create whose answer a kill lost (recorded now),
        if the provider has one."""
        found = await batcher.find_lost(staged, float(upload.get("at", 0)), len(upload["custom_ids"]))
        if found is None:
            return None
        self.log.append(
            event="created", role=batcher.role, **{batcher.api.staged_field: staged}, batch_id=found.id, adopted=True
        )
        return found.id

    # --- samples in flight, and when to send ----------------------------------------------------

    def enter(self) -> None:
        self.active += 1

    def leave(self) -> None:
        self.active -= 1
        self._poke()

    async def waiting(self, sample: Sample, awaitable: Awaitable[T]) -> T:
        """Await `awaitable` with `sample` counted as waiting on a batch."""
        self.waiting_on[sample] += 1
        self._poke()
        try:
            return await awaitable
        finally:
            self.waiting_on[sample] -= 1
            if self.waiting_on[sample] <= 0:
                del self.waiting_on[sample]

    def quiescent(self) -> bool:
        """Every sample in flight waits on a batch: no other request can come (a request made
        outside the runner's samples counts as a sample of its own)."""
        return bool(self.waiting_on) and len(self.waiting_on) >= self.active

    def _poke(self) -> None:
        if self._timer is None and self.quiescent() and any(b.pending for b in self.batchers.values()):
            self._timer = asyncio.get_running_loop().call_later(self.options.settle, self._settled)

    def _settled(self) -> None:
        self._timer = None
        if self.quiescent():  # else a later change pokes again
            for batcher in self.batchers.values():
                batcher.flush()

    # --- tasks, display, closing ----------------------------------------------------------------

    def spawn(self, coroutine: Awaitable[T]) -> asyncio.Future[T]:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def say(self, text: str) -> None:
        if self._say is not None:
            self._say(text)

    def batch_started(self, tracker: BatchTracker) -> None:
        self.started += 1
        if tracker.resumed:
            self.say(f"{tracker.batcher.role}: polling batch {tracker.batch_id} again (recorded in {BATCH_LOG})")
        self._changed()

    def batch_ended(self, tracker: BatchTracker, answered: int, failed: int) -> None:
        self.ended += 1
        self.say(
            f"{tracker.batcher.role}: batch {tracker.batch_id} {tracker.status}: {answered} answered, "
            f"{failed} failed ({self.status_text()})"
        )
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def status_text(self) -> str:
        waiting = sum(len(b.pending) for b in self.batchers.values())
        text = f"batches {self.started} submitted, {self.started - self.ended} in progress, {self.ended} done"
        return text + (f", {waiting} requests waiting for a batch" if waiting else "")

    async def close(self) -> None:
        """Stop following batches (they go on at the provider; a resume follows them again)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for batcher in self.batchers.values():
            await batcher.api.aclose()


def _staged_lines(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The staged lines `batches.jsonl` records (OpenAI: `uploaded` with a `file_id`; Anthropic:
    `submitting` with a `submission`), by staged id, each with the `batch_id` of the batch created
    of them (None: no create recorded)."""
    staged_lines: dict[str, dict[str, Any]] = {}
    for entry in entries:
        staged = str(entry.get("file_id", entry.get("submission")))
        if entry.get("event") in ("uploaded", "submitting") and isinstance(entry.get("custom_ids"), list):
            staged_lines[staged] = {**entry, "batch_id": None}
        elif entry.get("event") == "created" and staged in staged_lines:
            staged_lines[staged]["batch_id"] = entry.get("batch_id")
    return staged_lines


def plain_notice(label: str) -> Callable[[str], None]:
    """A `say` that prints batch events as log lines on stderr."""
    return lambda text: print(f"{label}: {text}", file=sys.stderr, flush=True)

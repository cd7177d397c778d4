"""Executing a task into a run folder: the sample loop (every sample not yet done), and new runs."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..core.ratings import Rating
from ..core.sample import Sample
from ..core.score import Score
from ..core.scorer import declared_metrics, scorer_name
from ..core.state import State
from ..core.task import Task
from ..errors import UsageError
from ..models.base import Completion, ModelAPI, ModelError, RefusalError, error_text
from ..models.spec import ModelSpec, build_model, parse_model_spec
from .batch import BatchCoordinator, batch_problem, plain_notice
from .cache import ResponseCache
from .collector import fewer_collections
from .context import SampleContext
from .cost import RunSpend, observed_outputs
from .errorlog import ERROR_LOG, note_log
from .executor import RoleModel
from .interrupts import RunInterrupted
from .options import RunOptions
from .plan import SamplePlan, check_run_size
from .probe import probe_roles
from .progress import RunProgress
from .provenance import build_header, new_run_id
from .records import ModelFailure, Results, RoleBinding, SampleRecord
from .results import SessionRecords, aggregate_run
from .runlog import (
    SESSION_USAGE,
    RunExistsError,
    RunFolder,
    SampleWriter,
    UsageSnapshot,
    scored_view,
)
from .secrets import scrub
from .turns import EndOfTurn

SNAPSHOT_INTERVAL = (
    0.0  # seconds between two usage snapshots: none, every answer is on disk by the end of its loop step
)


class SessionSnapshots:
    """The session's usage kept on disk as it changes (`UsageSnapshot`, `usage.session.json`), so that
    a process killed (kill -9, a crash) loses only the usage of its requests in flight.

    Each answer a provider sent, and each batch created, asks for a write (`changed`), made at the
    end of the current step of the event loop, so that the answer that asked for it is counted in it
    (its spend is recorded after the request returns) and every answer of the same step shares one
    write: a kill -9 loses only the answers of the step it interrupts, which are still in flight.
    With `interval` > 0 the writes after the first are spaced by at least that many seconds. `write`
    writes at once: before records are written, and when a batch's results are read (its answers
    are paid then)."""

    def __init__(
        self,
        snapshot: UsageSnapshot,
        usage: Callable[[], dict[str, dict[str, Any]]],
        interval: float = SNAPSHOT_INTERVAL,
    ):
        self._snapshot = snapshot
        self._usage = usage
        self.interval = interval
        self._due: asyncio.Handle | None = None
        self._last: float | None = None  # when the last write was (time.monotonic)
        self._closed = False

    def changed(self) -> None:
        if self._due is not None or self._closed:
            return
        loop = asyncio.get_running_loop()
        wait = 0.0 if self._last is None else self._last + self.interval - time.monotonic()
        self._due = loop.call_later(wait, self.write) if wait > 0 else loop.call_soon(self.write)

    def write(self) -> None:
        if self._due is not None:
            self._due.cancel()
            self._due = None
        if self._closed:
            return
        self._last = time.monotonic()
        self._snapshot.write(self._usage())

    def close(self) -> None:
        if self._due is not None:
            self._due.cancel()
            self._due = None
        if not self._closed:
            self._closed = True
            self._snapshot.close()


def _model_spec(binding: RoleBinding) -> ModelSpec:
    return parse_model_spec(binding.spec, binding.base_urls)


def seeded_config(binding: RoleBinding, seed: int | None) -> RoleBinding:
    """The run seed becomes every role's generation seed unless one was set explicitly."""
    if seed is None or binding.config.seed is not None:
        return binding
    return binding.model_copy(update={"config": binding.config.model_copy(update={"seed": seed})})


def build_checked(binding: RoleBinding, where: str) -> ModelAPI:
    """The model of `binding`, built (a missing key, endpoint, script or model file raises
    `FatalError`) and its settings checked by its provider (`check_config`: a setting it has no
    field for, or a value beyond its range, is a UsageError naming `where`): before anything is sent."""
    model = build_model(_model_spec(binding))
    if (check := getattr(model, "check_config", None)) is not None:
        try:
            check(binding.config)
        except ModelError as exc:
            raise UsageError(f"{where}: {exc}") from None
    return model


def bug_text(exc: BaseException) -> str:
    """What a bug said, in the run's words: its message (secrets scrubbed), or that it said nothing."""
    return scrub(str(exc)).strip() or "it gave no message"


class Runner:
    """Executes one task against bound roles into one run folder."""

    def __init__(self, task: Task, bindings: dict[str, RoleBinding], folder: RunFolder, options: RunOptions):
        self.task = task
        self.bindings = bindings
        self.folder = folder
        self.options = options
        self.cache = ResponseCache(options.cache_path) if options.use_cache else None
        self.roles: dict[str, RoleModel] = {}
        self._reported: set[str] = set()
        self._closed = False
        # --prices / --max-cost (`runtime.cost`): the run's spend, and the samples abandoned at the
        # limit (no record: a resume runs them). The batch option names the roles in batch mode.
        meter = options.cost
        self.spend = (
            None
            if meter is None
            else RunSpend(
                meter,
                {role: b.spec for role, b in bindings.items()},
                {role: b.config for role, b in bindings.items()},
                batch_roles=frozenset(getattr(options, "batch_roles", None) or ()),
                outputs=observed_outputs(folder.read_usage()),
            )
        )
        if meter is not None:
            meter.metered(folder.path, task)
        self.abandoned: set[tuple[str, int]] = set()
        self.batches: BatchCoordinator | None = None  # --batch ROLE (`runtime.batch`)
        self.snapshots: SessionSnapshots | None = None  # while `execute` runs: the session's usage on disk

    def build_roles(self, needed: Iterable[str]) -> None:
        """Build the model of each role in `needed` (once): a missing key, endpoint or model file
        raises `FatalError` here, before anything is sent (and, for a new run, written)."""
        for role in needed:
            if role in self.roles:
                continue
            binding = self.bindings[role]
            if self.options.batch_roles and self.batches is None:
                problem = batch_problem(self.bindings, self.options.batch_roles)
                if problem:
                    raise UsageError(problem)
                say = plain_notice(self.options.label or self.task.name) if self.options.display != "none" else None
                self.batches = BatchCoordinator(
                    self.options.batch_settings,
                    self.folder.path,
                    say=say,
                    max_attempts=self.options.max_attempts,
                    backoff_initial=self.options.backoff_initial,
                )
                self.batches.on_submitted = self._usage_changed
                self.batches.on_results = self._batch_results
            model = build_checked(binding, "--model" if role == "candidate" else f"--role {role}")
            shared = self.options.endpoint_limits
            self.roles[role] = RoleModel(
                role=role,
                model=model,
                config=binding.config,
                concurrency=binding.concurrency,
                cache=self.cache,
                max_attempts=self.options.max_attempts,
                backoff_initial=self.options.backoff_initial,
                repeat=self.options.repeat,
                endpoint_slots=shared.for_binding(binding) if shared is not None else (),
                on_answer=self._usage_changed,
            )
            if self.batches is not None and role in self.options.batch_roles:
                self.roles[role].batcher = self.batches.add_role(role, model)

    async def preflight(self) -> None:
        """The checks that need the network, before anything is written: with --batch, an endpoint that
        answers it has no batch API refused (a free look-up, first); then every remote binding's probe
        (`runtime.probe`, when the options ask for it: its structured-output mode kept in the binding)."""
        if self.batches is not None:
            await self.batches.probe()
        if self.options.probe:
            modes = await probe_roles(self.roles, self.bindings, self.spend)
            self.bindings = {
                role: b.model_copy(update={"structured_output": modes[role]}) if modes.get(role) else b
                for role, b in self.bindings.items()
            }

    def _log_bug(self, exc: Exception) -> Path | str:
        """Append `exc`'s traceback to the run folder's error log; where it went."""
        from .errorlog import save_traceback

        note_log(exc, self.folder.path / ERROR_LOG)
        try:
            return save_traceback(exc)
        except OSError:
            return "no file (it could not be written)"

    def _usage_changed(self) -> None:
        if self.snapshots is not None:
            self.snapshots.changed()

    def _batch_results(self, role: str, answers: list[Completion], paid_here: bool) -> None:
        """A batch's results were read: its answers' spend is recorded and written at once (`runtime.cost`)."""
        if self.spend is not None:
            self.spend.paid_in_batch(role, answers, record=paid_here)
            if self.snapshots is not None and paid_here:
                self.snapshots.write()

    def _report_internal(
        self, where: str, detail: str, effect: str = "the affected scores are recorded as unscored"
    ) -> None:
        if where not in self._reported:
            self._reported.add(where)
            print(f"warning: a bug in {where}: {detail}; {effect} (please report it)", file=sys.stderr)

    def _stats(self) -> tuple[int, int]:
        tokens = sum(r.stats.prompt_tokens + r.stats.completion_tokens for r in self.roles.values())
        hits = sum(r.stats.cache_hits for r in self.roles.values())
        return tokens, hits

    async def run_sample(self, sample: Sample, epoch: int) -> SampleRecord:
        ctx = SampleContext(
            sample, self.roles, epoch=epoch, prompts=self.task.prompts, checkpoints=self.folder, spend=self.spend
        )
        record = await self._run_in(ctx, sample, epoch)
        if ctx.cost_refused:  # a request was not sent at --max-cost: the record would be half of one
            self.abandoned.add((sample.id, epoch))
        return record

    async def _run_in(self, ctx: SampleContext, sample: Sample, epoch: int) -> SampleRecord:
        start = time.perf_counter()
        base = {
            "id": sample.id,
            "epoch": epoch,
            "input": sample.input,
            "target": sample.target,
            "metadata": sample.metadata,
        }

        def failed(exc: ModelError) -> SampleRecord:
            return SampleRecord(
                **base,
                status="error",
                error=scrub(error_text(exc)),
                model_failure="context_overflow" if ctx.candidate_overflow else None,
                usage=ctx.usage,
                calls=ctx.calls,
                reasoning=ctx.reasoning,
                duration_s=time.perf_counter() - start,
            )

        try:
            state = await self.task.protocol(sample, ctx)
            if ctx.batch_failure is not None:  # caught by the protocol: the sample failed all the same
                raise ctx.batch_failure
        except ModelError as exc:
            return failed(exc)
        except Exception as exc:  # a bug in a protocol must not sink the whole run
            where = self._log_bug(exc)
            return SampleRecord(
                **base,
                status="error",
                error=f"a bug in the {self.task.name} task: {bug_text(exc)} "
                f"(its traceback is in {where}; please report it)",
                usage=ctx.usage,
                calls=ctx.calls,
                reasoning=ctx.reasoning,
                duration_s=time.perf_counter() - start,
            )
        scores: dict[str, Score] = {}
        for scorer in self.task.scorers:
            name = scorer_name(scorer)
            try:
                produced = await scorer(sample, state, ctx)
                declared = declared_metrics(scorer)
                if declared is not None and not set(produced) <= set(declared):
                    raise ValueError(
                        f"scorer {name} returned {sorted(set(produced) - set(declared))}, "
                        f"which it does not declare ({', '.join(declared)})"
                    )
                scores.update(produced)
            except ModelError as exc:
                # a judge's refusal is its answer, unscored as such; any other failed request can be retried
                refused = isinstance(exc, RefusalError)
                scores[name] = Score.unscored("refused" if refused else "error", scrub(error_text(exc)))
            except Exception as exc:  # a scorer bug on one odd answer must not sink the run
                where = self._log_bug(exc)
                detail = f"{bug_text(exc)} (its traceback is in {where})"
                scores[name] = Score.unscored("error", f"a bug in scorer {name}: {detail}")
                self._report_internal(name, detail)
        if ctx.batch_failure is not None:  # a scorer's request whose batch could not be sent: failed, not unscored
            return failed(ctx.batch_failure)
        return SampleRecord(
            **base,
            status="ok",
            state=state,
            scores=scores,
            usage=ctx.usage,
            calls=ctx.calls,
            reasoning=ctx.reasoning,
            model_failure=model_failure(state),
            cache_hits=ctx.cache_hits,
            duration_s=time.perf_counter() - start,
            ratings=self._ratings(scores),
        )

    def _ratings(self, scores: dict[str, Score]) -> list[Rating] | None:
        """The judges' verdicts in these scores (`Task.ratings`), recorded so the judge analysis needs
        no task; a bug in the task's `ratings` leaves them unrecorded, not the run failed."""
        if self.task.ratings is None:
            return None
        try:
            return self.task.ratings(scores)
        except Exception as exc:
            detail = f"{bug_text(exc)} (its traceback is in {self._log_bug(exc)})"
            self._report_internal(
                "the task's ratings", detail, "the affected samples' verdicts are not recorded for proseval agreement"
            )
            return None

    async def execute(self, plan: SamplePlan, done: set[tuple[str, int]], needed: Iterable[str]) -> Results:
        """Run every (sample, epoch) of `plan` not in `done`, streaming samples from the dataset.

        Cancelled (an interrupt, `runtime.interrupts`), it starts no new sample, cancels those in
        flight (no record), closes the samples file, models and cache, appends this session's
        usage and raises `RunInterrupted`."""
        self.build_roles(needed)
        epochs = self.options.epochs
        total = plan.count * epochs
        n_pending = total - sum(1 for key in done if key[1] < epochs and key[0] in plan.ids)
        pending = (
            (sample, epoch) for epoch in range(epochs) for sample in plan.samples() if (sample.id, epoch) not in done
        )
        progress = RunProgress(
            n_pending,
            display=self.options.display,
            description=self.options.label or self.task.name,
            stats=self._stats,
            shared=self.options.progress,
        )
        # A few more samples in flight than request slots, so that a slot freed by a finishing
        # sample is taken at once instead of waiting for that sample's bookkeeping.
        slots = max((b.concurrency for b in self.bindings.values()), default=1)
        workers = max(1, min(n_pending, slots + max(1, slots // 4) if slots > 1 else 1))
        batches = self.batches
        if batches is not None:  # batch mode: every sample in flight, so a batch holds all of a phase's requests
            workers = max(1, min(n_pending, self.options.batch_settings.max_in_flight))
            progress.note = batches.status_text
            batches.on_change = progress.refresh
            await batches.start()
        stopped = False  # cancelled, or a worker failed: no sample starts any more
        written = 0  # records this session

        async def worker() -> None:
            for sample, epoch in pending:
                if stopped or (self.spend is not None and self.spend.meter.full()):  # --max-cost: start nothing new
                    break
                if batches is not None:
                    batches.enter()
                try:
                    record = await self.run_sample(sample, epoch)
                finally:
                    if batches is not None:
                        batches.leave()
                if (sample.id, epoch) in self.abandoned:
                    await asyncio.sleep(0)  # the event loop's turn, which the write below gives otherwise
                    continue
                # Written with the others that finished in this turn of the event loop. Waiting for
                # that also gives every worker the loop in turn, and a signal is seen, even when
                # every answer comes from the cache at once.
                await finished.add(record)
                progress.advance(failed=record.status == "error")

        def write_finished(records: list[SampleRecord]) -> None:
            nonlocal written
            snapshots.write()  # first: what a kill -9 leaves counts every record's usage
            lines = writer.append(*records)
            written += len(records)
            for record, line in zip(records, lines):
                if gathered is not None:
                    gathered.add(scored_view(line))
                if record.status == "ok":  # a failed sample keeps its progress for --retry-failed
                    self.folder.clear_checkpoint(record.id, record.epoch)

        # A run with no records yet is finished from what this process gathers as it writes them.
        fresh = not self.folder.samples_path.is_file() or self.folder.samples_path.stat().st_size == 0
        gathered = SessionRecords(self.task, epochs) if fresh else None
        writer = SampleWriter(self.folder.samples_path)
        snapshots = self.snapshots = SessionSnapshots(
            UsageSnapshot(self.folder.path / SESSION_USAGE), self.session_usage
        )
        finished: EndOfTurn[SampleRecord] = EndOfTurn(write_finished)
        tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]
        interrupted = False
        try:
            # `wait`, unlike `gather`, leaves the workers to the `finally` when cancelled
            with progress, fewer_collections():
                await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        except asyncio.CancelledError:
            interrupted = True
        finally:
            stopped = True  # a worker whose sample ended as it was cancelled stops at its next one
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)  # nothing is written after the samples file and the cache close
            try:
                finished.flush()  # the samples that finished as the workers were cancelled
            finally:
                writer.close()
                snapshots.close()
                self.snapshots = None
                await self.close()
        failures = [task.exception() for task in tasks if not task.cancelled()]
        if any(failures):  # a worker's error (writing the samples file) is the run's
            raise next(error for error in failures if error is not None)
        if interrupted:
            self.folder.append_usage(self.session_usage())
            raise RunInterrupted(self.folder.path, total - n_pending + written, total)
        return self.finish(total, gathered)

    async def close(self) -> None:
        """Close the models and the cache (a second call does nothing)."""
        if self._closed:
            return
        self._closed = True
        if self.batches is not None:
            await self.batches.close()
        for role in self.roles.values():
            await role.model.aclose()
        if self.cache is not None:
            self.cache.close()

    def session_usage(self) -> dict[str, dict[str, Any]]:
        """This process's line of `usage.jsonl`: per role, its requests, tokens, batch counts and spend."""
        spend = self.spend.session_usage(self.roles) if self.spend is not None else {}
        return {
            role: {**model.stats.as_dict(), **(model.batcher.usage() if model.batcher else {}), **spend.get(role, {})}
            for role, model in self.roles.items()
        }

    def finish(self, total: int, written: SessionRecords | None = None) -> Results:
        """Aggregate the run and write its results (`written`: every record, gathered as written)."""
        self.folder.append_usage(self.session_usage())
        results = aggregate_run(
            self.task,
            self.folder,
            total,
            self.folder.read_header().run_id,
            seed=self.options.seed or 0,
            epochs=self.options.epochs,
            written=written,
        )
        self.folder.write_results(results)
        if self.task.artifacts is not None:
            for name, content in self.task.artifacts(results).items():
                path = self.folder.path / name
                path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, encoding="utf-8")
        return results


def model_failure(state: State) -> ModelFailure | None:
    """How the candidate failed on a finished sample, if it did (counted apart, scored by the task)."""
    if state.finish_reason == "content_filter":
        return "refusal"
    if not state.output.strip():
        return "empty"
    if state.finish_reason == "length":
        return "truncated"
    return None


async def start_run(
    task: Task,
    bindings: dict[str, RoleBinding],
    options: RunOptions,
    *,
    demo: bool = False,
    run_dir: Path | None = None,
) -> tuple[RunFolder, Results]:
    """A new run in `run_dir` (default `out_dir/<run-id>`).

    Everything that can refuse the run is checked before anything is written or sent: the
    dataset is read, the folder must not hold a run, the response cache is opened, the folder is
    made (a folder that cannot be made refuses the run) and every role's model is built (keys,
    endpoints, model files); a refused run leaves nothing behind.
    """
    bindings = {role: seeded_config(b, options.seed) for role, b in bindings.items()}
    plan = SamplePlan(task, options.limit)
    check_run_size(plan.count, options.epochs)
    run_id = run_dir.name if run_dir else new_run_id(task)
    folder = RunFolder(run_dir or options.out_dir / run_id)
    if folder.exists():
        raise RunExistsError(f"{folder.path} already holds a run; use: proseval resume {folder.path}")
    runner = Runner(task, bindings, folder, options)
    try:
        with folder.made():  # removed again if a check refuses the run
            runner.build_roles(tuple(bindings))
            await runner.preflight()
        with folder.locked():
            folder.write_header(build_header(task, runner.bindings, options, run_id, demo=demo, n_samples=plan.count))
            folder.write_prompts(task.prompts)
            return folder, await runner.execute(plan, set(), tuple(bindings))
    finally:
        await runner.close()

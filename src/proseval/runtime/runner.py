"""Running a task: new runs, resumed runs and re-scoring, with results written as they come."""

from __future__ import annotations

import asyncio
import hashlib
import platform
import secrets
import subprocess
import sys
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .. import __version__
from ..core.sample import Sample
from ..core.score import Score
from ..core.scorer import declared_metrics, scorer_name
from ..core.state import State
from ..core.task import Task
from ..errors import UsageError
from ..models.base import ModelError
from ..models.spec import ModelSpec, build_model, parse_model_spec
from .aggregate import Accumulator, epoch_means, mean_tree
from .cache import ResponseCache, canonical_json
from .context import SampleContext
from .executor import RoleModel
from .progress import Display, RunProgress
from .records import PromptInfo, Results, ResumeEvent, RoleBinding, RunHeader, SampleRecord, ScoredSample
from .roles import RoleError
from .runlog import RunExistsError, RunFolder, SampleWriter
from .secrets import REDACTED, scrub, scrub_url


class ConfigMismatchError(UsageError):
    """A resume whose task, parameters or role bindings differ from the run's (without --force)."""


@dataclass
class RunOptions:
    out_dir: Path = Path("runs")
    limit: int | None = None
    seed: int | None = None
    epochs: int = 1
    use_cache: bool = True
    cache_path: Path | None = None
    display: Display = "plain"
    force: bool = False
    retry_failed: bool = False
    max_attempts: int = 6
    backoff_initial: float = 1.0


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def config_hash(task: Task, bindings: dict[str, RoleBinding], seed: int | None, epochs: int) -> str:
    """What must match for a resumed run to continue the same experiment (not concurrency, not limit)."""
    payload = {
        "task": task.name,
        "version": task.version,
        "params": task.params,
        "roles": {
            role: {"spec": b.spec, "base_urls": sorted(scrub_url(u) for u in b.base_urls),
                   "config": b.config.model_dump()}
            for role, b in sorted(bindings.items())
        },
        "seed": seed,
        "epochs": epochs,
    }
    replaced = {name: t.sha256 for name, t in sorted(task.prompts.items()) if t.source != "builtin"}
    if replaced:  # absent otherwise, so that runs without prompt files keep their hash
        payload["prompts"] = replaced
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()[:16]


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
            cwd=Path(__file__).resolve().parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def new_run_id(task: Task) -> str:
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in task.name)
    return f"{slug}-{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def build_header(
    task: Task, bindings: dict[str, RoleBinding], options: RunOptions, run_id: str, *, demo: bool,
    rescored_from: str | None = None, n_samples: int,
) -> RunHeader:
    return RunHeader(
        run_id=run_id,
        task=task.name,
        task_version=task.version,
        task_params=task.params,
        dataset={**task.dataset_source, "n_samples": n_samples},
        roles={role: b.model_copy(update={"base_urls": [scrub_url(u) for u in b.base_urls]})
               for role, b in bindings.items()},
        seed=options.seed,
        limit=options.limit,
        epochs=options.epochs,
        config_hash=config_hash(task, bindings, options.seed, options.epochs),
        package_version=__version__,
        git_commit=git_commit(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        started_at=now_iso(),
        demo_models=demo,
        rescored_from=rescored_from,
        prompts=prompt_infos(task),
        preset=task.preset,
        scorer_plugin=task.scorer_plugin,
    )


def prompt_infos(task: Task) -> dict[str, PromptInfo]:
    return {name: PromptInfo(source=t.source, sha256=t.sha256) for name, t in sorted(task.prompts.items())}


def _model_spec(binding: RoleBinding) -> ModelSpec:
    return parse_model_spec(binding.spec, binding.base_urls)


def seeded_config(binding: RoleBinding, seed: int | None) -> RoleBinding:
    """The run seed becomes every role's generation seed unless one was set explicitly."""
    if seed is None or binding.config.seed is not None:
        return binding
    return binding.model_copy(update={"config": binding.config.model_copy(update={"seed": seed})})


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

    def build_roles(self, needed: Iterable[str]) -> None:
        """Build the model of each role in `needed` (once): a missing key, endpoint or model file
        raises `FatalError` here, before anything is sent (and, for a new run, written)."""
        for role in needed:
            if role in self.roles:
                continue
            binding = self.bindings[role]
            model = build_model(_model_spec(binding))
            self.roles[role] = RoleModel(
                role=role, model=model, config=binding.config, concurrency=binding.concurrency,
                cache=self.cache, max_attempts=self.options.max_attempts,
                backoff_initial=self.options.backoff_initial,
            )

    def _report_internal(self, where: str, detail: str) -> None:
        if where not in self._reported:
            self._reported.add(where)
            print(f"warning: {where} raised {detail}; the affected scores are recorded as unscored "
                  "(please report this)", file=sys.stderr)

    def _stats(self) -> tuple[int, int]:
        tokens = sum(r.stats.prompt_tokens + r.stats.completion_tokens for r in self.roles.values())
        hits = sum(r.stats.cache_hits for r in self.roles.values())
        return tokens, hits

    async def run_sample(self, sample: Sample, epoch: int) -> SampleRecord:
        ctx = SampleContext(sample, self.roles, epoch=epoch, prompts=self.task.prompts, checkpoints=self.folder)
        start = time.perf_counter()
        base = {"id": sample.id, "epoch": epoch, "input": sample.input, "target": sample.target,
                "metadata": sample.metadata}
        try:
            state = await self.task.protocol(sample, ctx)
        except ModelError as exc:
            return SampleRecord(**base, status="error", error=scrub(f"{type(exc).__name__}: {exc}"),
                                model_failure="context_overflow" if ctx.candidate_overflow else None,
                                usage=ctx.usage, calls=ctx.calls, duration_s=time.perf_counter() - start)
        except Exception as exc:  # a bug in a protocol must not sink the whole run
            detail = scrub("".join(traceback.format_exception_only(type(exc), exc)).strip())
            return SampleRecord(**base, status="error", error=f"internal error: {detail}",
                                usage=ctx.usage, calls=ctx.calls, duration_s=time.perf_counter() - start)
        scores: dict[str, Score] = {}
        for scorer in self.task.scorers:
            name = scorer_name(scorer)
            try:
                produced = await scorer(sample, state, ctx)
                declared = declared_metrics(scorer)
                if declared is not None and not set(produced) <= set(declared):
                    raise ValueError(f"scorer {name} returned {sorted(set(produced) - set(declared))}, "
                                     f"which it does not declare ({', '.join(declared)})")
                scores.update(produced)
            except ModelError as exc:
                scores[name] = Score.unscored("error", scrub(f"{type(exc).__name__}: {exc}"))
            except Exception as exc:  # a scorer bug on one odd answer must not sink the run
                detail = scrub("".join(traceback.format_exception_only(type(exc), exc)).strip())
                scores[name] = Score.unscored("error", f"internal error in scorer {name}: {detail}")
                self._report_internal(name, detail)
        return SampleRecord(**base, status="ok", state=state, scores=scores, usage=ctx.usage, calls=ctx.calls,
                            model_failure=model_failure(state), cache_hits=ctx.cache_hits,
                            duration_s=time.perf_counter() - start)

    async def execute(self, plan: SamplePlan, done: set[tuple[str, int]], needed: Iterable[str]) -> Results:
        """Run every (sample, epoch) of `plan` not in `done`, streaming samples from the dataset."""
        self.build_roles(needed)
        epochs = self.options.epochs
        n_pending = plan.count * epochs - sum(1 for key in done if key[1] < epochs and key[0] in plan.ids)
        pending = ((sample, epoch) for epoch in range(epochs) for sample in plan.samples()
                   if (sample.id, epoch) not in done)
        writer = SampleWriter(self.folder.samples_path)
        progress = RunProgress(n_pending, display=self.options.display, description=self.task.name,
                               stats=self._stats)
        # A few more samples in flight than request slots, so that a slot freed by a finishing
        # sample is taken at once instead of waiting for that sample's bookkeeping.
        slots = max((b.concurrency for b in self.bindings.values()), default=1)
        workers = max(1, min(n_pending, slots + max(1, slots // 4) if slots > 1 else 1))

        async def worker() -> None:
            for sample, epoch in pending:
                record = await self.run_sample(sample, epoch)
                writer.append(record)
                if record.status == "ok":  # a failed sample keeps its progress for --retry-failed
                    self.folder.clear_checkpoint(sample.id, epoch)
                progress.advance(failed=record.status == "error")

        try:
            with progress:
                await asyncio.gather(*(worker() for _ in range(workers)))
        finally:
            writer.close()
            await self.close()
        return self.finish(plan.count * epochs)

    async def close(self) -> None:
        """Close the models and the cache (a second call does nothing)."""
        if self._closed:
            return
        self._closed = True
        for role in self.roles.values():
            await role.model.aclose()
        if self.cache is not None:
            self.cache.close()

    def finish(self, total: int) -> Results:
        self.folder.append_usage({role: model.stats.as_dict() for role, model in self.roles.items()})
        results = aggregate_run(self.task, self.folder, total, self.folder.read_header().run_id,
                                seed=self.options.seed or 0, epochs=self.options.epochs)
        self.folder.write_results(results)
        if self.task.artifacts is not None:
            for name, content in self.task.artifacts(results).items():
                path = self.folder.path / name
                path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, encoding="utf-8")
        return results


def model_failure(state: State) -> str | None:
    """How the candidate failed on a finished sample, if it did (counted apart, scored by the task)."""
    if state.finish_reason == "content_filter":
        return "refusal"
    if not state.output.strip():
        return "empty"
    if state.finish_reason == "length":
        return "truncated"
    return None


def _add_tokens(tokens: dict[str, list[int]], sample: ScoredSample) -> None:
    for role, usage in sample.usage.items():
        pair = tokens.setdefault(role, [0, 0])
        pair[0] += usage.prompt_tokens
        pair[1] += usage.completion_tokens


def role_usage(tokens: dict[str, list[int]], sessions: list[dict]) -> dict[str, dict[str, Any]]:
    """Per-role totals over the whole run, across every process that worked on it.

    Tokens are summed over the records (so a killed process's finished samples count);
    requests, cache hits, retries and errors over the processes that finished their part.
    """
    totals: dict[str, dict[str, Any]] = {}

    def entry(role: str) -> dict[str, Any]:
        return totals.setdefault(role, {"requests": 0, "cache_hits": 0, "retries": 0, "errors": 0,
                                        "latency_total": 0.0})

    for session in sessions:
        for role, stats in session.get("roles", {}).items():
            totals_of_role = entry(role)
            for key in ("requests", "cache_hits", "retries", "errors"):
                totals_of_role[key] += int(stats.get(key) or 0)
            calls = int(stats.get("requests") or 0) - int(stats.get("cache_hits") or 0)
            totals_of_role["latency_total"] += (stats.get("mean_latency_s") or 0.0) * max(calls, 0)
    for role in set(totals) | set(tokens):
        totals_of_role = entry(role)
        totals_of_role["prompt_tokens"], totals_of_role["completion_tokens"] = tokens.get(role, [0, 0])
        calls = totals_of_role["requests"] - totals_of_role["cache_hits"]
        latency = totals_of_role.pop("latency_total")
        totals_of_role["mean_latency_s"] = round(latency / calls, 4) if calls > 0 else None
        totals_of_role["sessions"] = len(sessions)
    return dict(sorted(totals.items()))


def _streamed(task: Task, folder: RunFolder) -> tuple[Accumulator, dict[str, list[int]]] | None:
    """One streaming pass, holding no records (flat memory however large the run); None if the
    folder holds a duplicate record, which needs the de-duplicating path."""
    records, tokens, seen = Accumulator(task.slice_keys), {}, set()
    for sample in folder.iter_scored():
        key = (sample.id, sample.epoch)
        if key in seen:
            return None
        seen.add(key)
        records.add(sample)
        _add_tokens(tokens, sample)
    return records, tokens


def aggregate_run(task: Task, folder: RunFolder, total: int, run_id: str, *, seed: int = 0,
                  epochs: int = 1) -> Results:
    """Generic numbers over one record per (sample, epoch); task-specific ones on top.

    With several epochs the headline metrics are over each sample's mean across its epochs,
    `epochs` holds each epoch's metrics, and the task's own figures are computed per epoch
    (`extra_epochs`) with their element-wise mean in `extra`.
    """
    streamed = _streamed(task, folder) if epochs == 1 and task.aggregate is None else None
    samples: list[ScoredSample] = []
    duplicates = 0
    if streamed is not None:
        records, tokens = streamed
    else:
        samples, duplicates = folder.unique_scored()
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
    return Results(
        run_id=run_id,
        task=task.name,
        finished_at=now_iso(),
        complete=counts.finished >= total,
        counts=counts,
        metrics=metrics,
        headline=task.headline if task.headline in metrics else None,
        slices=headline.slice_tables(seed),
        roles=role_usage(tokens, folder.read_usage()),
        extra=extra,  # type: ignore[arg-type]
        epochs=[accumulator.metrics(seed) for accumulator in per_epoch],
        extra_epochs=extra_epochs,
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


async def start_run(
    task: Task, bindings: dict[str, RoleBinding], options: RunOptions, *, demo: bool = False,
    run_dir: Path | None = None,
) -> tuple[RunFolder, Results]:
    """A new run in `run_dir` (default `out_dir/<run-id>`).

    Everything that can refuse the run is checked before the folder is made: the dataset is
    read, the folder must not hold a run, and every role's model is built (keys, endpoints,
    model files); a refused run leaves nothing behind.
    """
    bindings = {role: seeded_config(b, options.seed) for role, b in bindings.items()}
    plan = SamplePlan(task, options.limit)
    run_id = run_dir.name if run_dir else new_run_id(task)
    folder = RunFolder(run_dir or options.out_dir / run_id)
    if folder.exists():
        raise RunExistsError(f"{folder.path} already holds a run; use: proseval resume {folder.path}")
    runner = Runner(task, bindings, folder, options)
    try:
        runner.build_roles(tuple(bindings))
        with folder.locked():
            folder.write_header(build_header(task, bindings, options, run_id, demo=demo, n_samples=plan.count))
            folder.write_prompts(task.prompts)
            return folder, await runner.execute(plan, set(), tuple(bindings))
    finally:
        await runner.close()


def _differences(header: RunHeader, task: Task, bindings: dict[str, RoleBinding]) -> list[str]:
    found = []
    if header.task != task.name or header.task_version != task.version:
        found.append(f"task {header.task}@{header.task_version} -> {task.name}@{task.version}")
    changed = sorted(k for k in set(header.task_params) | set(task.params)
                     if header.task_params.get(k) != task.params.get(k))
    found += [f"--{k.replace('_', '-')}: {header.task_params.get(k)!r} -> {task.params.get(k)!r}" for k in changed]
    for role in sorted(set(header.roles) | set(bindings)):
        before, after = header.roles.get(role), bindings.get(role)
        if before is None or after is None:
            found.append(f"role {role}: {'added' if before is None else 'removed'}")
        elif (before.spec, sorted(before.base_urls), before.config) != (after.spec, sorted(after.base_urls), after.config):
            found.append(f"role {role}: {before.spec} -> {after.spec}" if before.spec != after.spec
                         else f"role {role}: endpoint or generation settings changed")
    return found


def check_resume(folder: RunFolder, task: Task, options: RunOptions,
                 bindings: dict[str, RoleBinding] | None = None) -> RunHeader:
    """The run's header as this resume will record it; writes nothing.

    Refuses to continue a run whose task, parameters or role bindings changed, unless forced,
    and a run whose endpoints had credentials in their URL. `bindings` are the roles the user
    asked for now (None: continue with the run's own); with `force`, a changed configuration
    is adopted and recorded in the header's resume events.
    """
    header = folder.read_header()
    wanted = header.roles if bindings is None else {r: seeded_config(b, header.seed) for r, b in bindings.items()}
    expected = config_hash(task, wanted, header.seed, header.epochs)
    forced = expected != header.config_hash
    if forced and not options.force:
        changes = _differences(header, task, wanted) or [f"config hash {header.config_hash} -> {expected}"]
        raise ConfigMismatchError(
            f"{folder.path}: the run was started with another configuration ({'; '.join(changes)}); "
            "pass --force to continue with the new one"
        )
    if forced:
        header.roles, header.task_params = wanted, task.params
        header.prompts = prompt_infos(task)
    hidden = [role for role, b in header.roles.items() if any(REDACTED in u for u in b.base_urls)]
    if hidden:
        raise ConfigMismatchError(
            f"{folder.path}: the endpoint of role(s) {', '.join(hidden)} had credentials in its URL, which "
            "are never stored; put the key in an environment variable and start a new run")
    header.resumes.append(ResumeEvent(at=now_iso(), forced=forced, config_hash=expected))
    header.config_hash = expected
    return header


async def resume_run(folder: RunFolder, task: Task, options: RunOptions,
                     bindings: dict[str, RoleBinding] | None = None) -> Results:
    """Run only the samples without a finished record (failed ones too with `retry_failed`).

    The configuration is checked, the dataset read and every role's model built before the
    folder is changed.
    """
    folder.read_header()  # not a run folder: refused before a lock file is made in it
    with folder.locked() as stale:
        if stale:
            print(f"note: {folder.path}: {stale}; continuing", file=sys.stderr)
        header = check_resume(folder, task, options, bindings)
        options = replace(options, seed=header.seed, epochs=header.epochs,
                          limit=options.limit if options.limit is not None else header.limit)
        plan = SamplePlan(task, options.limit)
        runner = Runner(task, header.roles, folder, options)
        try:
            runner.build_roles(tuple(header.roles))
            if header.resumes[-1].forced:
                folder.write_prompts(task.prompts)
            folder.write_header(header)
            folder.repair_tail()
            if options.retry_failed:  # infrastructure failures only: a context overflow would fail again
                failed = {(s.id, s.epoch) for s in folder.iter_scored()
                          if s.status == "error" and s.model_failure != "context_overflow"}
                folder.drop_records(failed)
            return await runner.execute(plan, folder.finished_keys(), tuple(header.roles))
        finally:
            await runner.close()


def replay_task(task: Task, source: RunFolder) -> Task:
    """The task with its protocol replaced by the candidate outputs stored in `source`.

    Where the task redoes judge-dependent steps of its protocol (`Task.reevaluate`), the stored
    state goes through it with the roles bound now; otherwise the stored state is scored again.
    """
    states: dict[tuple[str, int], State] = {}
    samples: dict[str, Sample] = {}
    for record in source.iter_records():
        samples.setdefault(record.id, Sample(id=record.id, input=record.input, target=record.target,
                                            metadata=record.metadata))
        if record.state is not None:
            states[(record.id, record.epoch)] = record.state

    async def replay(sample: Sample, ctx: SampleContext) -> State:
        state = states.get((sample.id, ctx.epoch))
        if state is None:
            raise ModelError("the candidate failed on this sample in the source run; nothing to score")
        return await task.reevaluate(sample, state, ctx) if task.reevaluate else state

    return replace(task, protocol=replay, dataset=lambda: list(samples.values()),
                   roles_required=tuple(r for r in task.roles_required if r != "candidate"))


def check_rescore_roles(task: Task, bindings: dict[str, RoleBinding]) -> None:
    """A re-score binds only roles whose work it redoes: never the candidate."""
    allowed = task.rescore_roles or tuple(r for r in task.roles_required if r != "candidate")
    refused = sorted(set(bindings) - set(allowed))
    if refused:
        raise RoleError(f"a re-score of {task.name} redoes the work of {', '.join(allowed) or 'no role'} on the "
                        f"stored answers; it cannot rebind {', '.join(refused)} (start a new run for that)")


async def rescore_run(
    source: RunFolder, task: Task, bindings: dict[str, RoleBinding], options: RunOptions
) -> tuple[RunFolder, Results]:
    """Recompute scores from the outputs stored in `source` with new role bindings."""
    check_rescore_roles(task, bindings)
    header = source.read_header()
    replayed = replay_task(task, source)
    # Only the roles the re-score calls; the candidate's answers come from the source run.
    merged = {role: {**header.roles, **bindings}[role] for role in replayed.roles_required}
    plan = SamplePlan(replayed, None)
    run_id = f"{header.run_id}-rescore-{datetime.now():%Y%m%d-%H%M%S}"
    folder = RunFolder(options.out_dir / run_id)
    options = replace(options, seed=header.seed, epochs=header.epochs, limit=None)
    runner = Runner(replayed, merged, folder, options)
    try:
        runner.build_roles(replayed.roles_required)  # keys and endpoints checked before the folder is made
        with folder.locked():
            folder.write_header(build_header(task, merged, options, run_id, demo=header.demo_models,
                                             rescored_from=str(source.path), n_samples=plan.count))
            folder.write_prompts(task.prompts)
            return folder, await runner.execute(plan, set(), replayed.roles_required)
    finally:
        await runner.close()

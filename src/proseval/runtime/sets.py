"""Evaluation sets: models × tasks declared in one YAML file and run into one folder (proseval docs many-models).

Every (task entry, model) pair is a *member* with a run folder of its own inside the set's
folder, named from the entry's and the model's labels, so that running the set again finds it:
a missing run is started, a finished one skipped, an unfinished one resumed (the usual resume
and its configuration check). Members run concurrently in one event loop, at most `max_runs`
at a time, and share per-endpoint concurrency limits (`runtime.limits`). A member that fails
is recorded with its reason and the others go on. At the end: each member's state, one ranking
per task entry over its members, and `set.json` in the set folder.

Here: the file's schema, the members once planned, and running them. Building the members
(tasks, presets, role bindings: the registry and `planning`, layers above this one) is
`commandline.sets.plan_set`; the terminal leaderboards and `report.html` are the command's
(`cli.run_set`), from the report's own tables.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

from ..core.task import Task
from ..core.yamlfile import load_yaml_model
from ..errors import ProsevalError
from ..models.spec import build_model, parse_model_spec, split_spec
from ..models.urls import check_url
from .cache import ResponseCache
from .config import CostOptions, Count, RoleOptions, Seed, Settings, Text, Url, prices_beside
from .cost import CostMeter, previous_spend
from .dryrun import Estimate, estimate_run
from .errorlog import ERROR_LOG, note_log, save_traceback
from .limits import EndpointLimits, endpoint_key_problem
from .options import RunOptions
from .outcome import reasons_text
from .paired import per_sample_values, tiers
from .progress import Display
from .records import Results, RoleBinding
from .resume import configuration_changes, resume_run
from .roles import RoleRequest
from .runlog import RunFolder, RunFolderError, write_json_atomic
from .runner import start_run
from .usage import folder_usage, total_usage

SET_SUMMARY = "set.json"
DEFAULT_MAX_RUNS = 4


# --- the file ---------------------------------------------------------------------------------


class SetModel(BaseModel):
    """One model under test: a spec string, or a mapping with its endpoint and settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: Text
    name: Text | None = None
    base_url: list[Url] = Field(default_factory=list)
    concurrency: Count | None = None
    gen: Settings | None = None

    @model_validator(mode="before")
    @classmethod
    def _spec_alone(cls, value: Any) -> Any:
        return {"spec": value} if isinstance(value, str) else value

    @field_validator("base_url", mode="before")
    @classmethod
    def _urls(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("spec")
    @classmethod
    def _parsable(cls, value: str) -> str:
        split_spec(value)  # ValueError: not provider/model, or an unknown provider (its endpoints: when planned)
        return value

    def label(self) -> str:
        return self.name or self.spec


def _no_candidate(options: RoleOptions) -> None:
    for key, bound in (("roles", options.role), ("role_base_url", options.role_base_url)):
        if "candidate" in bound:
            raise ValueError(
                f"{key}: the candidate is each model of models: (set its endpoint there: "
                "models: [{spec: ..., base_url: ...}])"
            )


class SetTask(RoleOptions):
    """One task of the set, with its options; its role keys win over the set's defaults."""

    task: Text
    name: Text | None = None
    preset: Text | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    limit: Count | None = None
    epochs: Count | None = None
    seed: Seed | None = None

    @model_validator(mode="after")
    def _roles(self) -> SetTask:
        _no_candidate(self)
        return self

    def label(self) -> str:
        return self.name or (f"{self.task}-{self.preset}" if self.preset else self.task)


class SetFile(RoleOptions, CostOptions):
    """The set file: models × tasks, the defaults every task takes, endpoint limits, the cost keys
    (`prices`, `max_cost`, `estimate_output`: the set's, under the command line's flags)."""

    folder: Text | None = None
    models: list[SetModel] = Field(min_length=1)
    tasks: list[SetTask] = Field(min_length=1)
    endpoints: dict[Text, Count] = Field(default_factory=dict)
    limit: Count | None = None
    epochs: Count | None = None
    seed: Seed | None = None
    max_attempts: Count | None = None
    max_runs: Count | None = None
    no_cache: StrictBool | None = None
    report: StrictBool = True

    @field_validator("endpoints")
    @classmethod
    def _endpoint_keys(cls, value: dict[str, int]) -> dict[str, int]:
        for key in value:
            if "://" in key:
                check_url(key)  # a key naming a base URL: one a binding could have
            problem = endpoint_key_problem(key)
            if problem:
                raise ValueError(f"{key}: {problem}")
        return value

    @model_validator(mode="after")
    def _roles(self) -> SetFile:
        _no_candidate(self)
        return self


# --- members ----------------------------------------------------------------------------------


@dataclass
class Member:
    """One (task entry, model) pair, planned: its task and bindings built and checked."""

    task_index: int
    model_index: int
    task_label: str
    model_label: str
    name: str  # the run folder's name inside the set folder
    path: Path
    task: Task
    bindings: dict[str, RoleBinding]
    demo: bool
    limit: int | None
    epochs: int
    seed: int | None
    keys: set[tuple[str, int]] = field(default_factory=set)  # every (sample id, epoch) the run covers
    n_samples: int = 0  # samples the plan selects (before epochs)
    batch: tuple[str, ...] = ()  # roles in batch mode (`batch:`, `runtime.batch`)


@dataclass
class SetPlan:
    path: Path  # the set file
    file: SetFile
    folder: Path
    members: list[Member]
    warnings: list[str]
    endpoints: dict[str, int]
    max_runs: int
    use_cache: bool
    max_attempts: int
    report: bool
    probe: bool = False  # each member's remote bindings probed before it starts (`runtime.probe`)


def slug(text: str) -> str:
    """A folder-name part: letters, digits, `.`, `_` and `-`; long ones cut and told apart by a hash."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "x"
    if len(cleaned) > 60:
        cleaned = f"{cleaned[:50]}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    return cleaned


def member_name(task_label: str, model_label: str) -> str:
    return f"{slug(task_label)}--{slug(model_label)}"


def _merged_generation(*layers: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Settings per role, each layer's values over the ones before (`extra` merged key by key)."""
    merged: dict[str, dict[str, Any]] = {}
    for layer in layers:
        for role, values in layer.items():
            into = merged.setdefault(role, {})
            for name, value in values.items():
                if name == "extra" and isinstance(value, dict) and isinstance(into.get("extra"), dict):
                    into["extra"] = {**into["extra"], **value}
                else:
                    into[name] = value
    return merged


def _for_roles(mapping: Mapping[str, Any], roles: tuple[str, ...]) -> dict[str, Any]:
    return {role: value for role, value in mapping.items() if role in roles}


def member_request(file: SetFile, entry: SetTask, model: SetModel, roles: tuple[str, ...]) -> RoleRequest:
    """The role request of one member: the set's defaults (for the roles the task has), the task
    entry's options over them, the model's endpoint, concurrency and settings for the candidate."""
    role_urls = {**_for_roles(file.role_base_url, roles), **entry.role_base_url}
    if model.base_url:
        role_urls["candidate"] = list(model.base_url)
    counts = {**_for_roles(file.role_concurrency, roles), **entry.role_concurrency}
    if model.concurrency is not None:
        counts["candidate"] = model.concurrency
    own = {"candidate": model.gen.model_dump(exclude_unset=True)} if model.gen is not None else {}
    return RoleRequest(
        model=model.spec,
        roles={**_for_roles(file.role, roles), **entry.role},
        base_urls=[],
        role_base_urls={role: list(urls) for role, urls in role_urls.items()},
        concurrency=entry.concurrency if entry.concurrency is not None else file.concurrency,
        role_concurrency=counts,
        generation=_merged_generation(_for_roles(file.generation(), roles), entry.generation(), own),
    )


def explicit_concurrency(request: RoleRequest, role: str) -> bool:
    return request.concurrency is not None or role in request.role_concurrency


def load_set(path: Path) -> SetFile:
    """The set file, checked against `SetFile` (errors name the file, line and key)."""
    return prices_beside(load_yaml_model(path, SetFile), path)


async def check_models(members: list[Member]) -> None:
    """Build every distinct model once (keys, endpoints, script names) and close it: a missing key
    refuses the set before anything is sent. In-process models are left to their run (loading
    one is the run's own work; a missing file fails that member)."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for member in members:
        for binding in member.bindings.values():
            key = (binding.spec, tuple(binding.base_urls))
            if key in seen or binding.spec.startswith("local/"):
                continue
            seen.add(key)
            model = build_model(parse_model_spec(binding.spec, binding.base_urls))
            await model.aclose()


# --- running ----------------------------------------------------------------------------------

# partial: the run finished with failed samples (shown, not ranked); stopped: at the set's --max-cost
State = Literal["done", "skipped", "resumed", "partial", "failed", "stopped"]
Decision = Literal["start", "skip", "resume", "refuse"]


@dataclass
class MemberResult:
    """What happened to one member in this invocation, and where its run stands."""

    name: str
    task: str  # the task entry's label
    model: str  # the model's label
    path: Path
    state: State
    reason: str | None = None
    results: Results | None = None

    @property
    def finished(self) -> bool:
        """Whether the run has complete results (it can be in a leaderboard)."""
        return self.state != "failed" and self.results is not None and self.results.complete

    @property
    def rankable(self) -> bool:
        """Finished with no failed sample: only such runs are ranked."""
        return self.finished and self.state != "partial"

    def mark_failed_samples(self, retry_hint: str) -> None:
        """A run that finished with failed samples is `partial`, its reason saying what failed."""
        results = self.results
        if results is None or not results.complete or results.final_outcome() != "failed_samples":
            return
        reasons = reasons_text(results.counts.failure_reasons)
        self.reason = (
            f"{self.state}; {results.retryable_failures} of {results.counts.total} samples failed"
            + (f": {reasons}" if reasons else "")
            + f"; {retry_hint}"
        )
        self.state = "partial"

    def headline(self) -> tuple[str, float | None] | None:
        if self.results is None or not self.results.headline:
            return None
        metric = self.results.metrics.get(self.results.headline)
        return self.results.headline, metric.mean if metric is not None else None

    def summary(self) -> dict[str, Any]:
        """What `set.json`, the terminal and the report show of the member; its usage is its finished
        run's, else what its run folder's sessions recorded (`runtime.usage.folder_usage`)."""
        counts = self.results.counts if self.results is not None else None
        complete = self.results.complete if self.results is not None else None
        headline = self.headline()
        try:
            sessions = RunFolder(self.path).read_usage() if self.path.is_dir() else []
        except RunFolderError:  # a damaged usage.jsonl: the results' usage, if any
            sessions = []
        return {
            "member": self.name,
            "task": self.task,
            "model": self.model,
            "run_dir": self.path.name,
            "state": self.state,
            "reason": self.reason,
            "outcome": None if self.results is None else self.results.final_outcome(),
            "samples": None
            if counts is None
            else {
                "finished": counts.finished,
                "total": counts.total,
                "failed": counts.failed,
                "complete": complete,
                "scoring_failed": counts.scoring_failed,
                "failure_reasons": counts.failure_reasons,
            },
            "headline": None if headline is None else {"metric": headline[0], "mean": headline[1]},
            "usage": folder_usage(self.results, sessions),
        }


@dataclass
class Ranking:
    """One task entry's finished members without failed samples, best first by the task's headline
    metric (the order of the report's leaderboard: highest mean first, runs without one last); the
    finished members with failed samples (shown below the ranked ones, not ranked); the ones missing."""

    task: str
    metric: str | None
    ranked: list[MemberResult]
    missing: list[MemberResult]
    unranked: list[MemberResult] = field(default_factory=list)
    tiers: dict[str, int] = field(default_factory=dict)  # member -> tier (`set_tiers`)


@dataclass
class SetResult:
    path: Path  # the set folder
    file: Path  # the set file
    members: list[MemberResult]
    rankings: list[Ranking]
    endpoints: dict[str, dict[str, int]]  # each endpoint limit: limit, peak in flight, requests
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    report: Path | None = None

    @property
    def failed(self) -> list[MemberResult]:
        return [m for m in self.members if m.state == "failed"]

    @property
    def partial(self) -> list[MemberResult]:
        return [m for m in self.members if m.state == "partial"]


def decide(member: Member, *, retry_failed: bool = False) -> tuple[Decision, str | None]:
    """What a member's run folder needs: start, skip (finished), resume (unfinished), or refuse
    (its configuration changed, or it is not a run of this member); reads only."""
    folder = RunFolder(member.path)
    if not folder.exists():
        return "start", None
    try:
        header = folder.read_header()
    except RunFolderError as exc:
        return "refuse", str(exc)
    fix = (
        "change the set file back, or move the folder away (or give the entry another name:) to start this member anew"
    )
    pairs = (("seed", header.seed, member.seed), ("epochs", header.epochs, member.epochs))
    kept = [f"{name} {old} -> {new}" for name, old, new in pairs if old != new]
    if kept:
        return "refuse", (
            f"{folder.path}: the run was started with another {' and '.join(kept)}, which a resume cannot change; {fix}"
        )
    changes = configuration_changes(header, member.task, member.bindings)
    if changes:
        return "refuse", (
            f"{folder.path}: the run was started with another configuration ({'; '.join(changes)}); {fix}"
        )
    scored = list(folder.iter_scored())
    done = {(s.id, s.epoch) for s in scored}
    missing = member.keys - done
    results = folder.read_results() if folder.has_results else None
    if missing or results is None or not results.complete or results.counts.finished < len(member.keys):
        return "resume", f"{len(missing)} of {len(member.keys)} samples to run"
    if retry_failed:
        failed = {(s.id, s.epoch) for s in scored if s.needs_retry}
        failed &= member.keys
        if failed:
            return "resume", f"{len(failed)} failed samples to run again"
    return "skip", None


def _options(
    setplan: SetPlan,
    member: Member,
    *,
    display: Display,
    limits: EndpointLimits,
    progress: Any,
    cost: CostMeter | None = None,
) -> RunOptions:
    return RunOptions(
        out_dir=setplan.folder,
        limit=member.limit,
        seed=member.seed,
        epochs=member.epochs,
        use_cache=setplan.use_cache,
        display=display,
        max_attempts=setplan.max_attempts,
        endpoint_limits=limits,
        progress=progress,
        label=member.name,
        cost=cost,
        batch_roles=member.batch,
        probe=setplan.probe,
    )


async def _run_member(
    member: Member, options: RunOptions, *, retry_failed: bool, notify: Callable[[str], None]
) -> MemberResult:
    result = MemberResult(member.name, member.task_label, member.model_label, member.path, "failed")
    folder = RunFolder(member.path)
    try:
        decision, reason = decide(member, retry_failed=retry_failed)
        if decision == "refuse":
            result.reason = reason
        elif decision == "skip":
            result.state, result.results = "skipped", folder.read_results()
        elif decision == "start":
            notify(f"{member.name}: starting")
            _, result.results = await start_run(
                member.task, member.bindings, options, demo=member.demo, run_dir=member.path
            )
            result.state = "done"
        else:
            notify(f"{member.name}: resuming ({reason})")
            limit = member.limit if member.limit is not None else member.n_samples
            resumed = replace(options, limit=limit, retry_failed=retry_failed)
            result.results = await resume_run(folder, member.task, resumed, member.bindings)
            result.state = "resumed"
    except ProsevalError as exc:
        result.reason = str(exc)
    except Exception as exc:  # noqa: BLE001 - a bug in one member must not stop the others
        if member.path.is_dir():
            note_log(exc, member.path / ERROR_LOG)
        try:
            where = f"its traceback is in {save_traceback(exc)}"
        except OSError:
            where = "its traceback could not be saved"
        result.reason = f"unexpected {type(exc).__name__}: {exc} (a bug in proseval; {where})"
    if result.state == "failed":
        notify(f"{member.name}: FAILED: {result.reason}")
    return result


def rank(setplan: SetPlan, results: list[MemberResult]) -> list[Ranking]:
    """One ranking per task entry, in the file's order."""
    rankings = []
    for t, entry in enumerate(setplan.file.tasks):
        members = [r for m, r in zip(setplan.members, results) if m.task_index == t]
        finished = [r for r in members if r.rankable]
        metric = next((r.results.headline for r in finished if r.results is not None and r.results.headline), None)

        def key(item: tuple[int, MemberResult]) -> tuple[bool, float, int]:
            member_results = item[1].results
            summary = member_results.metrics.get(metric) if metric and member_results is not None else None
            mean = summary.mean if summary is not None else None
            return (mean is None, -(mean or 0.0), item[0])

        ranked = [r for _, r in sorted(enumerate(finished), key=key)]
        unranked = [r for _, r in sorted(enumerate(r for r in members if r.finished and not r.rankable), key=key)]
        rankings.append(Ranking(entry.label(), metric, ranked, [r for r in members if not r.finished], unranked))
    return rankings


def write_summary(setplan: SetPlan, result: SetResult) -> Path:
    """`set.json` in the set folder: each member's state, reason, samples, headline and usage, the
    usage of all members together, the rankings, the endpoint limits with their peaks, notes."""
    members = [m.summary() for m in result.members]
    payload = {
        "set_file": str(setplan.path),
        "set_file_sha256": hashlib.sha256(setplan.path.read_bytes()).hexdigest(),
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "members": members,
        "usage": total_usage(m["usage"] for m in members if m["usage"] is not None),
        "failed": [m.name for m in result.failed],
        "partial": [m.name for m in result.partial],
        "rankings": [
            {
                "task": r.task,
                "metric": r.metric,
                "ranked": [m.name for m in r.ranked],
                "tiers": r.tiers,
                "unranked": [m.name for m in r.unranked],
                "missing": [m.name for m in r.missing],
            }
            for r in result.rankings
        ],
        "endpoints": result.endpoints,
        "report": result.report.name if result.report is not None else None,
        "notes": result.notes,
    }
    path = setplan.folder / SET_SUMMARY
    write_json_atomic(path, json.dumps(payload, indent=2, ensure_ascii=False))
    return path


def recorded_spend(setplan: SetPlan) -> float:
    """What the members' run folders recorded as spent: where the set's cost limit starts from."""
    return sum(previous_spend(RunFolder(m.path).read_usage()) for m in setplan.members)


async def run_set_async(
    setplan: SetPlan,
    *,
    display: Display = "none",
    retry_failed: bool = False,
    notify: Callable[[str], None] | None = None,
    report: Callable[[SetResult], None] | None = None,
    cost: CostMeter | None = None,
) -> SetResult:
    """Run every member of a planned set (see the module's text), then write `set.json`; a
    member's failure is recorded in its result, never raised. `report(result)` runs before the
    summary is written (the command line writes `report.html` there).

    `cost` (--prices, --max-cost) is one meter for every member: their spend is recorded in their
    run folders, and at the limit no new sample of any member starts; a member stopped there, or
    not started, is `stopped` (running the set again with a higher limit continues it)."""
    say = notify or (lambda text: None)
    await check_models(setplan.members)
    if setplan.use_cache:  # a cache that cannot be written refuses the set, rather than each member
        ResponseCache().close()
    limits = EndpointLimits(setplan.endpoints)
    gate = asyncio.Semaphore(setplan.max_runs)
    progress = None
    if display == "rich":
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors {task.fields[errors]}"),
            TextColumn("tokens {task.fields[tokens]:,}"),
            TextColumn("cache {task.fields[cache]:,}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
        )

    async def one(member: Member) -> MemberResult:
        async with gate:
            if cost is not None and cost.full() and decide(member, retry_failed=retry_failed)[0] in ("start", "resume"):
                return MemberResult(
                    member.name,
                    member.task_label,
                    member.model_label,
                    member.path,
                    "stopped",
                    reason="not started: the set's cost limit was reached",
                    results=RunFolder(member.path).read_results() if RunFolder(member.path).has_results else None,
                )
            options = _options(setplan, member, display=display, limits=limits, progress=progress, cost=cost)
            result = await _run_member(member, options, retry_failed=retry_failed, notify=say)
            if (
                cost is not None
                and result.state in ("done", "resumed")
                and result.results is not None
                and not result.results.complete
                and cost.full()
            ):
                result.state, result.reason = "stopped", "stopped at the set's cost limit"
            result.mark_failed_samples("run the set again with --retry-failed to run them again")
            if result.state == "partial":
                say(f"{member.name}: FAILED SAMPLES: {result.reason}")
            return result

    setplan.folder.mkdir(parents=True, exist_ok=True)
    if progress is not None:
        progress.start()
    try:
        results = list(await asyncio.gather(*(one(member) for member in setplan.members)))
    finally:
        if progress is not None:
            progress.stop()
    result = SetResult(
        setplan.folder, setplan.path, results, rank(setplan, results), limits.summary(), list(setplan.warnings)
    )
    set_tiers(result)
    if report is not None:
        report(result)
    write_summary(setplan, result)
    return result


def set_tiers(result: SetResult) -> None:
    """Each ranking's tiers on its metric, higher being better (`runtime.paired.tiers`), its ranked
    members in tier order (by mean within a tier): what `set.json`, the terminal and the report show,
    whichever way the set was run (command, Python API, profile)."""
    for ranking in result.rankings:
        if ranking.metric is None or not ranking.ranked:
            continue
        values = [per_sample_values(RunFolder(m.path).unique_scored()[0])[0] for m in ranking.ranked]
        ranking.tiers = dict(zip((m.name for m in ranking.ranked), tiers(values, ranking.metric)))
        ranking.ranked.sort(key=lambda m: ranking.tiers[m.name])


def describe_plan(setplan: SetPlan, *, retry_failed: bool = False) -> list[dict[str, Any]]:
    """What running the set would do to each member (`--dry-run-list`); reads only."""
    rows = []
    for member in setplan.members:
        decision, reason = decide(member, retry_failed=retry_failed)
        rows.append(
            {
                "member": member.name,
                "task": member.task_label,
                "model": member.model_label,
                "action": decision,
                "reason": reason,
                "samples": len(member.keys),
                "roles": {role: b.spec for role, b in member.bindings.items()},
                "concurrency": {role: b.concurrency for role, b in member.bindings.items()},
            }
        )
    return rows


async def estimate_set(
    setplan: SetPlan,
    *,
    prices: Any = None,
    estimates: Mapping[str, int] | None = None,
    retry_failed: bool = False,
    batch_roles: tuple[str, ...] = (),
) -> list[tuple[Member, Decision, str | None, Estimate | None]]:
    """`run-set --dry-run`: for every member, what running the set would do to it and what that
    would send (`runtime.dryrun`): a new run all its samples, a resume the missing ones (and the
    failed ones with `retry_failed`), a finished run nothing; a refused member no estimate.
    Sends and writes nothing."""
    rows: list[tuple[Member, Decision, str | None, Estimate | None]] = []
    for member in setplan.members:
        decision, reason = decide(member, retry_failed=retry_failed)
        if decision == "refuse":
            rows.append((member, decision, reason, None))
            continue
        done: set[tuple[str, int]] = set()
        folder = RunFolder(member.path)
        if decision == "skip":
            done = set(member.keys)
        elif decision == "resume":
            done = {(s.id, s.epoch) for s in folder.iter_scored() if not (retry_failed and s.needs_retry)}
        estimate = await estimate_run(
            member.task,
            member.bindings,
            limit=member.limit,
            epochs=member.epochs,
            done=done,
            prices=prices,
            estimates=estimates,
            batch_roles=member.batch or batch_roles,
            label=member.name,
        )
        rows.append((member, decision, reason, estimate))
    return rows

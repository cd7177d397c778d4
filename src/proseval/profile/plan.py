"""A profile as evaluation sets: which benchmarks can run, each role's model, and the set files.

The benchmarks with a run of their own form one set (`profile-set.yaml`, run folder `runs/`);
a benchmark measured on another's answers (`drafts_from`) gets, per model, a set of its own
under `revision/` once those answers exist. Both are ordinary set files: `proseval run-set`
runs, resumes and estimates them.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..core.preset import preset_params
from ..core.task import Task
from ..errors import ProsevalError, UsageError
from ..models.spec import SHARED_URL_PROVIDERS
from ..registry import get_entry, get_task
from ..runtime.sets import SetTask, member_name, slug
from .suite import Size, Suite, SuiteBenchmark

SET_FILE = "profile-set.yaml"
RUNS = "runs"
REVISION = "revision"
CANDIDATE = "candidate"
JUDGE = "judge"  # --role-base-url judge=URL: every role --judge binds
STAND_IN_DRAFT = '{"id": "1", "draft": "a draft", "instruction": "a request"}\n'


@dataclass
class Skipped:
    benchmark: str
    reason: str


@dataclass
class ProfilePlan:
    """What a profile runs: the entries of its first set, the benchmarks measured on another's
    answers, every benchmark's role bindings (unbound optional roles fall back to the candidate)."""

    suite: Suite
    size: Size
    folder: Path
    models: list[dict[str, Any]]  # evaluation-set models: spec, base_url
    entries: dict[str, SetTask] = field(default_factory=dict)  # benchmark -> its task entry
    later: dict[str, SetTask] = field(default_factory=dict)  # benchmarks measured on another's answers
    roles: dict[str, dict[str, str]] = field(default_factory=dict)  # benchmark -> role -> spec
    judging: dict[str, list[str]] = field(default_factory=dict)  # benchmark -> its required roles but the candidate
    unbound: dict[str, list[str]] = field(default_factory=dict)  # benchmark -> optional roles left to the candidate
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def set_file(self) -> Path:
        return self.folder / SET_FILE

    def labels(self) -> list[str]:
        return [m["spec"] for m in self.models]

    def run_path(self, benchmark: str, model: str) -> Path:
        """The run folder of one benchmark and model (the evaluation set's member folder)."""
        if benchmark in self.later:
            return self.folder / REVISION / slug(model) / member_name(benchmark, model)
        return self.folder / RUNS / member_name(benchmark, model)

    def drafts_path(self, model: str) -> Path:
        return self.folder / REVISION / f"{slug(model)}.drafts.jsonl"

    def later_set_file(self, model: str) -> Path:
        return self.folder / REVISION / f"{slug(model)}.yaml"


def _shape(entry: SetTask) -> Task:
    """The entry's task built without roles: its roles, and whether its data is there."""
    chosen = get_entry(entry.task).preset(entry.preset) if entry.preset else None
    return get_task(entry.task, preset_params(chosen, entry.params) if chosen else entry.params)


def write_stand_in(folder: Path) -> Path:
    """A one-line drafts file, for what a task measured on drafts is before the drafts exist."""
    stand_in = folder / "drafts.jsonl"
    stand_in.write_text(STAND_IN_DRAFT, encoding="utf-8")
    return stand_in


def _drafts_shape(entry: SetTask) -> Task:
    """A task measured on drafts, built over a stand-in drafts file: only its roles are read."""
    with tempfile.TemporaryDirectory() as folder:
        stand_in = write_stand_in(Path(folder))
        return _shape(entry.model_copy(update={"params": {**entry.params, "drafts": str(stand_in)}}))


def _shared(spec: str) -> bool:
    """Whether --base-url serves this model: only OpenAI and OpenAI-compatible ones (any other
    provider's key must not go to a server the user aimed at those)."""
    return spec.strip().partition("/")[0] in SHARED_URL_PROVIDERS


def _needs_url(spec: str, urls: Sequence[str]) -> bool:
    """An OpenAI-compatible model with no endpoint given, nor one in PROSEVAL_BASE_URL."""
    return (
        spec.strip().partition("/")[0] == "openai-compatible"
        and not urls
        and not os.environ.get("PROSEVAL_BASE_URL", "").strip()
    )


def model_entries(
    specs: Sequence[str], base_url: Sequence[str], role_urls: Mapping[str, list[str]]
) -> list[dict[str, Any]]:
    """The evaluation set's models: each with its endpoint (`--role-base-url candidate=URL`, else
    `--base-url` for an OpenAI-compatible one). Raises UsageError naming the option when one has none."""
    entries: list[dict[str, Any]] = []
    for spec in specs:
        urls = list(role_urls.get(CANDIDATE) or (base_url if _shared(spec) else []))
        if _needs_url(spec, urls):
            raise UsageError(f"{spec} has no endpoint: give --base-url URL (or --role-base-url candidate=URL)")
        entries.append({"spec": spec, **({"base_url": urls} if urls else {})})
    return entries


def _role_urls(
    bench: str, bound: Mapping[str, str], judged: set[str], base_url: Sequence[str], role_urls: Mapping[str, list[str]]
) -> dict[str, list[str]]:
    """Each bound role's endpoint: its own `--role-base-url`, else the one of `judge` for a role
    `--judge` bound, else `--base-url` for an OpenAI-compatible model. Raises UsageError naming the
    option for an OpenAI-compatible role left without one."""
    found: dict[str, list[str]] = {}
    for role, spec in bound.items():
        named = JUDGE if role in judged and role not in role_urls else role
        urls = list(role_urls.get(named) or (base_url if _shared(spec) else []))
        if _needs_url(spec, urls):
            raise UsageError(
                f"{bench}.{role} ({spec}) has no endpoint: give --role-base-url {named}=URL (or --base-url URL)"
            )
        if urls:
            found[role] = urls
    return found


def _parse_overrides(overrides: dict[str, str]) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """`ROLE=SPEC` (every benchmark with that role) and `BENCHMARK.ROLE=SPEC` (one benchmark)."""
    anywhere: dict[str, str] = {}
    one: dict[tuple[str, str], str] = {}
    for key, spec in overrides.items():
        bench, dot, role = key.rpartition(".")
        if dot:
            one[(bench, role)] = spec
        else:
            anywhere[role] = spec
    return anywhere, one


def _check_data(suite: Suite, data: dict[str, str]) -> None:
    """Refuse a `--data NAME=DIR` that no benchmark reads or whose folder is not there: either
    would otherwise read as data to download."""
    unknown = sorted(set(data) - {b.data for b in suite.benchmarks if b.data})
    if unknown:
        known = sorted({b.data for b in suite.benchmarks if b.data})
        raise UsageError(
            f"--data {', '.join(unknown)}: no benchmark of the suite reads it (data sets: {', '.join(known)})"
        )
    for name, place in sorted(data.items()):
        if not Path(place).expanduser().is_dir():
            raise UsageError(f"--data {name}={place}: no such folder")


# A task's own advice on its data names options of its own command (`--data-dir`): cut from there.
_OWN_ADVICE = re.compile(r"(:\s*pass|\s*\(or pass) --data-dir.*$", re.S)


def _skip_reason(bench: SuiteBenchmark, error: Exception, download: bool) -> str:
    """Why a benchmark's data is not there, and how `profile` gets it: after a failed `--download`,
    the one option left, else the suite's `get_data`."""
    found = _OWN_ADVICE.sub("", str(error).strip("'\""))
    if download and bench.download:
        return found + (
            f"; the download failed: give a copy of its data with --data {bench.data}=DIR" if bench.data else ""
        )
    return found + (f"; to get its data: {bench.get_data}" if bench.get_data else "")


@dataclass(frozen=True)
class _Bindings:
    """Where a benchmark's roles are bound from, besides its suite entry: `--role BENCHMARK.ROLE=SPEC`
    (`one`), `--role ROLE=SPEC` (`anywhere`), and `--judge` for a judging role named nowhere."""

    anywhere: dict[str, str]
    one: dict[tuple[str, str], str]
    judge: str | None

    def named(self, bench: str, role: str, entry_roles: Mapping[str, str]) -> str | None:
        """The model `--role` or the suite entry's `roles` (`entry_roles`) names for `bench`'s `role`."""
        return self.one.get((bench, role)) or self.anywhere.get(role) or entry_roles.get(role)


def plan_profile(
    suite: Suite,
    size: Size,
    folder: Path,
    models: list[dict[str, Any]],
    *,
    judge: str | None,
    overrides: dict[str, str],
    data: dict[str, str],
    download: bool,
    base_url: Sequence[str] = (),
    role_urls: Mapping[str, list[str]] | None = None,
) -> ProfilePlan:
    """Decide what runs: a benchmark whose data is missing is skipped with the reason and how to
    get the data (and so is one measured on a skipped benchmark's answers); every judging role
    (each required role but the candidate) is bound, first found: `BENCHMARK.ROLE` in `overrides`,
    `ROLE` in `overrides`, the suite entry's `roles`, `judge`; optional roles (RAVEL's tools) only
    when named, else they stay the candidate's. Each bound role gets its endpoint (`_role_urls`).
    Raises UsageError for an override naming no role, a judging role left unbound, a `--data`
    folder that is not there, or an OpenAI-compatible role without an endpoint."""
    _check_data(suite, data)
    role_urls = role_urls or {}
    profile = ProfilePlan(suite, size, folder, models)
    bindings = _Bindings(*_parse_overrides(overrides), judge)
    known_roles: set[tuple[str, str]] = set()
    judged: dict[str, set[str]] = {}  # benchmark -> the roles `judge` bound
    for bench in suite.benchmarks:
        planned = _plan_benchmark(profile, bench, bindings, _data_params(bench, data, download), download)
        if planned is not None:
            roles, judged[bench.name] = planned
            known_roles.update((bench.name, role) for role in roles)
    _check_overrides_named(bindings, known_roles)
    _check_role_urls_named(role_urls, known_roles)
    _set_endpoints(profile, judged, base_url, role_urls)
    return profile


def _plan_benchmark(
    profile: ProfilePlan, bench: SuiteBenchmark, bindings: _Bindings, params: dict[str, Any], download: bool
) -> tuple[list[str], set[str]] | None:
    """Add `bench`'s entry, with its roles bound, to `profile`: its roles but the candidate and those
    `--judge` bound; None when it is skipped (the reason added to `profile.skipped`)."""
    entry = bench.entry(profile.size, **params)
    shape = _benchmark_shape(profile, bench, entry, download)
    if shape is None:
        return None
    required = [r for r in shape.roles_required if r != CANDIDATE]
    optional = [r for r in shape.optional_roles if r != CANDIDATE]
    bound, judged = _bind_roles(bench.name, required, optional, entry.role, bindings)
    profile.roles[bench.name] = bound
    profile.judging[bench.name] = required
    profile.unbound[bench.name] = [r for r in optional if r not in bound]
    entry = entry.model_copy(update={"role": {**entry.role, **bound}})
    (profile.later if bench.drafts_from else profile.entries)[bench.name] = entry
    return [*required, *optional], judged


def _benchmark_shape(profile: ProfilePlan, bench: SuiteBenchmark, entry: SetTask, download: bool) -> Task | None:
    """`bench`'s task built without roles; None, with the reason added to `profile.skipped`, when the
    benchmark whose answers it measures does not run or its data is not there."""
    if bench.drafts_from is not None and bench.drafts_from not in profile.entries:
        profile.skipped.append(
            Skipped(bench.name, f"it measures the answers of {bench.drafts_from}, which does not run")
        )
        return None
    try:
        return _drafts_shape(entry) if bench.drafts_from else _shape(entry)
    except (ProsevalError, OSError, ValueError, KeyError, TypeError) as exc:
        # the suite's options were checked when it was read (`suite.options_problem`): what is left is the data
        profile.skipped.append(Skipped(bench.name, _skip_reason(bench, exc, download)))
        return None


def _bind_roles(
    bench: str, required: list[str], optional: list[str], entry_roles: Mapping[str, str], bindings: _Bindings
) -> tuple[dict[str, str], set[str]]:
    """Each role's model (`entry_roles`: the suite entry's roles), and the roles `--judge` bound. Raises
    UsageError for a required role left unbound."""
    bound: dict[str, str] = {}
    judged: set[str] = set()
    for role in (*required, *optional):
        spec = bindings.named(bench, role, entry_roles)
        if spec is None and role in required and bindings.judge is not None:
            spec = bindings.judge
            judged.add(role)
        if spec is not None:
            bound[role] = spec
    unbound_required = [r for r in required if r not in bound]
    if unbound_required:
        raise UsageError(
            f"{bench} needs the role(s) {', '.join(unbound_required)}: give --judge SPEC "
            "(every judging role) or --role ROLE=SPEC"
        )
    return bound, judged


def _check_overrides_named(bindings: _Bindings, known_roles: set[tuple[str, str]]) -> None:
    """Refuse a `--role` naming a role no benchmark that runs has."""
    stray = sorted(role for role in bindings.anywhere if not any(role == r for _, r in known_roles))
    stray += sorted(f"{b}.{r}" for b, r in bindings.one if (b, r) not in known_roles)
    if stray:
        listed = ", ".join(f"{b}.{r}" for b, r in sorted(known_roles))
        raise UsageError(f"--role {', '.join(stray)}: no benchmark that runs has that role (roles: {listed})")


def _check_role_urls_named(role_urls: Mapping[str, list[str]], known_roles: set[tuple[str, str]]) -> None:
    """Refuse a `--role-base-url` naming a role no benchmark of the profile has."""
    known = {CANDIDATE} | {r for _, r in known_roles}
    for role in role_urls:
        if role not in known:
            raise UsageError(
                f"--role-base-url {role}: no benchmark of the profile has that role (roles: {', '.join(sorted(known))})"
            )


def _set_endpoints(
    profile: ProfilePlan, judged: Mapping[str, set[str]], base_url: Sequence[str], role_urls: Mapping[str, list[str]]
) -> None:
    """Give every entry's bound roles their endpoints (`_role_urls`)."""
    for entries in (profile.entries, profile.later):
        for name, entry in entries.items():
            urls = _role_urls(name, profile.roles[name], judged[name], base_url, role_urls)
            entries[name] = entry.model_copy(update={"role_base_url": {**entry.role_base_url, **urls}})


def _data_params(bench: SuiteBenchmark, data: dict[str, str], download: bool) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if bench.data and bench.data in data:
        params["data_dir"] = str(Path(data[bench.data]).expanduser().resolve())
    if download and bench.download:
        params["download"] = True
    return params


def _entry_document(entry: SetTask) -> dict[str, Any]:
    document = entry.model_dump(mode="json", exclude_defaults=True, exclude={"gen"})
    if entry.gen:
        document["gen"] = entry.generation()
    return document


def _set_document(
    folder: str, models: list[dict[str, Any]], entries: list[SetTask], options: dict[str, Any]
) -> dict[str, Any]:
    return {
        "folder": folder,
        "models": models,
        "tasks": [_entry_document(e) for e in entries],
        **{k: v for k, v in options.items() if v not in (None, [], {})},
    }


HEADER = "# Written by proseval profile; running `proseval profile` again with the same options rewrites it.\n"


def write_set(path: Path, document: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def write_first_set(profile: ProfilePlan, options: dict[str, Any]) -> Path:
    """The set of the benchmarks with runs of their own (`concurrency`, `batch`, ... in `options`)."""
    return write_set(profile.set_file, _set_document(RUNS, profile.models, list(profile.entries.values()), options))


def write_later_set(
    profile: ProfilePlan,
    model: dict[str, Any],
    options: dict[str, Any],
    drafts: Path | None = None,
    path: Path | None = None,
) -> Path:
    """One model's set of the benchmarks measured on its answers (their drafts files written before;
    `drafts` and `path`: elsewhere, for a stand-in set). Those tasks have no candidate role: the
    model is named without its endpoint (its reviser's is the entry's)."""
    label = model["spec"]
    read = str((drafts or profile.drafts_path(label)).resolve())
    entries = [e.model_copy(update={"params": {**e.params, "drafts": read}}) for e in profile.later.values()]
    return write_set(
        path or profile.later_set_file(label), _set_document(slug(label), [{"spec": label}], entries, options)
    )

"""A profile as evaluation sets: which benchmarks can run, each role's model, and the set files.

The benchmarks with a run of their own form one set (`profile-set.yaml`, run folder `runs/`);
a benchmark measured on another's answers (`drafts_from`) gets, per model, a set of its own
under `revision/` once those answers exist. Both are ordinary set files: `proseval run-set`
runs, resumes and estimates them.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..core.preset import preset_params
from ..core.task import Task
from ..errors import ProsevalError, UsageError
from ..registry import get_entry, get_task
from ..runtime.sets import SetTask, member_name, slug
from .suite import Size, Suite, SuiteBenchmark

SET_FILE = "profile-set.yaml"
RUNS = "runs"
REVISION = "revision"
CANDIDATE = "candidate"


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


def _drafts_shape(entry: SetTask) -> Task:
    """A task measured on drafts, built over a one-line stand-in drafts file: only its roles are read."""
    with tempfile.TemporaryDirectory() as folder:
        stand_in = Path(folder) / "drafts.jsonl"
        stand_in.write_text('{"id": "1", "draft": "a draft", "instruction": "a request"}\n', encoding="utf-8")
        return _shape(entry.model_copy(update={"params": {**entry.params, "drafts": str(stand_in)}}))


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


def plan_profile(suite: Suite, size: Size, folder: Path, models: list[dict[str, Any]], *, judge: str | None,
                 overrides: dict[str, str], data: dict[str, str], download: bool) -> ProfilePlan:
    """Decide what runs: a benchmark whose data is missing is skipped with the reason and how to
    get the data (and so is one measured on a skipped benchmark's answers); every judging role
    (each required role but the candidate) is bound, first found: `BENCHMARK.ROLE` in `overrides`,
    `ROLE` in `overrides`, the suite entry's `roles`, `judge`; optional roles (RAVEL's tools) only
    when named, else they stay the candidate's.
    Raises UsageError for an override naming no role, or a judging role left unbound."""
    unknown = sorted(set(data) - {b.data for b in suite.benchmarks if b.data})
    if unknown:
        known = sorted({b.data for b in suite.benchmarks if b.data})
        raise UsageError(f"--data {', '.join(unknown)}: no benchmark of the suite reads it (data sets: "
                         f"{', '.join(known)})")
    profile = ProfilePlan(suite, size, folder, models)
    anywhere, one = _parse_overrides(overrides)
    known_roles: set[tuple[str, str]] = set()
    for bench in suite.benchmarks:
        params = _data_params(bench, data, download)
        entry = bench.entry(size, **params)
        if bench.drafts_from is not None and bench.drafts_from not in profile.entries:
            profile.skipped.append(Skipped(bench.name, f"it measures the answers of {bench.drafts_from}, which "
                                                       "does not run"))
            continue
        try:
            shape = _drafts_shape(entry) if bench.drafts_from else _shape(entry)
        except (ProsevalError, OSError, ValueError, KeyError, TypeError) as exc:
            reason = str(exc).strip("'\"")
            profile.skipped.append(Skipped(bench.name, reason + (f"; to get its data: {bench.get_data}"
                                                                 if bench.get_data else "")))
            continue
        required = [r for r in shape.roles_required if r != CANDIDATE]
        optional = [r for r in shape.optional_roles if r != CANDIDATE]
        known_roles.update((bench.name, r) for r in (*required, *optional))
        bound: dict[str, str] = {}
        for role in (*required, *optional):
            spec = (one.get((bench.name, role)) or anywhere.get(role) or entry.role.get(role)
                    or (judge if role in required else None))
            if spec is not None:
                bound[role] = spec
        unbound_required = [r for r in required if r not in bound]
        if unbound_required:
            raise UsageError(f"{bench.name} needs the role(s) {', '.join(unbound_required)}: give --judge SPEC "
                             "(every judging role) or --role ROLE=SPEC")
        profile.roles[bench.name] = bound
        profile.judging[bench.name] = required
        profile.unbound[bench.name] = [r for r in optional if r not in bound]
        entry = entry.model_copy(update={"role": {**entry.role, **bound}})
        (profile.later if bench.drafts_from else profile.entries)[bench.name] = entry
    stray = sorted(role for role in anywhere if not any(role == r for _, r in known_roles))
    stray += sorted(f"{b}.{r}" for b, r in one if (b, r) not in known_roles)
    if stray:
        listed = ", ".join(f"{b}.{r}" for b, r in sorted(known_roles))
        raise UsageError(f"--role {', '.join(stray)}: no benchmark that runs has that role (roles: {listed})")
    return profile


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


def _set_document(folder: str, models: list[dict[str, Any]], entries: list[SetTask],
                  options: dict[str, Any]) -> dict[str, Any]:
    return {"folder": folder, "models": models, "tasks": [_entry_document(e) for e in entries],
            **{k: v for k, v in options.items() if v not in (None, [], {})}}


HEADER = "# Written by proseval profile; running `proseval profile` again with the same options rewrites it.\n"


def write_set(path: Path, document: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def write_first_set(profile: ProfilePlan, options: dict[str, Any]) -> Path:
    """The set of the benchmarks with runs of their own (`concurrency`, `batch`, ... in `options`)."""
    return write_set(profile.set_file, _set_document(RUNS, profile.models, list(profile.entries.values()), options))


def write_later_set(profile: ProfilePlan, model: dict[str, Any], options: dict[str, Any]) -> Path:
    """One model's set of the benchmarks measured on its answers (their drafts files written before)."""
    label = model["spec"]
    drafts = str(profile.drafts_path(label).resolve())
    entries = [e.model_copy(update={"params": {**e.params, "drafts": drafts}}) for e in profile.later.values()]
    return write_set(profile.later_set_file(label), _set_document(slug(label), [model], entries, options))

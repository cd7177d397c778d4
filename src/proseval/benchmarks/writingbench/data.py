"""The WritingBench query files: strict loading, SHA-256 verification, slicing and download.

Layout of a data directory (the official ``benchmark_query/`` folder)::

    benchmark_all.jsonl                            every query with its 5 criteria
    requirement/{dim}/{dim}_subset.jsonl           R: queries with an explicit {dim} requirement
    requirement/{dim}/{dim}_subset_C.jsonl         C: the criteria among the 5 that assess it

with ``dim`` in style, format, length. Version 2 (the current official data, 1,000 queries)
stores criteria under ``checklist``; version 1 (1,239 queries, 2025-03) under ``criteria``.
Indices and criteria differ between the versions, so a directory mixing them is rejected.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from proseval.benchmarks._shared.parsed import parse_files_once
from proseval.benchmarks.writingbench.criteria import Criterion, validate_checklist
from proseval.benchmarks.writingbench.jsonl import DataFormatError, describe_validation_error, iter_json_objects
from proseval.kit import DataError, MissingDataError, round_robin

OFFICIAL_REPOSITORY = "X-PLUG/WritingBench"
OFFICIAL_COMMIT = "ae2d5176449b7b769815482641d35926f26793eb"
RAW_URL = "https://raw.githubusercontent.com/{repository}/{commit}/benchmark_query/{path}"

Domain1 = Literal[
    "Academic & Engineering",
    "Finance & Business",
    "Politics & Law",
    "Literature & Arts",
    "Education",
    "Advertising & Marketing",
]
DOMAIN1_LABELS: tuple[Domain1, ...] = get_args(Domain1)
LANGUAGES = ("en", "zh")
Requirement = Literal["style", "format", "length"]
REQUIREMENTS: tuple[Requirement, ...] = get_args(Requirement)
Version = Literal["v1", "v2"]

ALL_FILE = "benchmark_all.jsonl"


def r_file(requirement: str) -> str:
    return f"requirement/{requirement}/{requirement}_subset.jsonl"


def c_file(requirement: str) -> str:
    return f"requirement/{requirement}/{requirement}_subset_C.jsonl"


DATA_FILES = (ALL_FILE, *(name for dim in REQUIREMENTS for name in (r_file(dim), c_file(dim))))

# SHA-256 of the v2 files at OFFICIAL_COMMIT, relative to benchmark_query/.
PINNED_SHA256: Mapping[str, str] = {
    ALL_FILE: "18fee37c645166eb2e206b36366b2e354265b1e4201db2c86e759e825eaddcbe",
    r_file("style"): "b71d1ea8f9e8d8e622bd644083f47c2569f236855b5fd6f5f75bcb0891b655e3",
    c_file("style"): "2b251f1d687b3c87c87b209debdc3a3e0c9c35b455ab47cf33b10b21214e651b",
    r_file("format"): "0c7ef01d92d071dcd8f176fa865ce8502f15201a4334d21b367d5089c2a0d253",
    c_file("format"): "0a13bd96d33813c87fb55c17ea301b6c52db53e8315788c0f9cc1fd924063a3c",
    r_file("length"): "5f12e5c85f8298f53045bfe2a37a3a37d5c04e3d6ef33b68b023478444ac85ab",
    c_file("length"): "c993517a96ec013e1551319fa95ed250fa9fa8fa4870662c75dd16a8fee66521",
}

_CRITERIA_KEYS: Mapping[str, Version] = {"checklist": "v2", "criteria": "v1"}
_RECORD_KEYS = {"index", "domain1", "domain2", "lang", "query"}


class DownloadError(DataError, OSError):
    """The official files could not be fetched (network or HTTP error)."""


class DataIntegrityError(DataError, ValueError):
    """A file's SHA-256 differs from the pinned official value, or files of two versions are mixed."""


class Query(BaseModel):
    """One benchmark query with its query-specific criteria.

    ``lang`` is the language of the instruction; it is absent from the requirement subset
    files and from version 1 data.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    index: int = Field(ge=1)
    domain1: Domain1
    domain2: str = Field(min_length=1)
    lang: Literal["en", "zh"] | None = None
    query: str = Field(min_length=1)
    checklist: tuple[Criterion, ...]

    @field_validator("checklist", mode="before")
    @classmethod
    def _valid_checklist(cls, value: Any) -> tuple[Criterion, ...]:
        if not isinstance(value, list) or not 1 <= len(value) <= 5:
            raise ValueError("must be a list of 1 to 5 criteria")
        return validate_checklist(value)

    @property
    def criterion_names(self) -> tuple[str, ...]:
        return tuple(criterion.name for criterion in self.checklist)


class RequirementSubset(BaseModel):
    """The R index list of one requirement dimension and, per index, its C criterion names."""

    model_config = ConfigDict(frozen=True)

    requirement: Requirement
    indices: tuple[int, ...]
    criteria: dict[int, tuple[str, ...]]


@dataclass(frozen=True)
class WritingBench:
    """All query files of one data version, with their SHA-256 and whether they were verified."""

    version: Version
    queries: tuple[Query, ...]
    requirements: dict[str, RequirementSubset]
    sha256: dict[str, str]
    verified: bool
    _by_index: dict[int, Query] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_index", {query.index: query for query in self.queries})

    def query(self, index: int) -> Query:
        """The query with this index (KeyError if it is not in the benchmark)."""
        return self._by_index[index]

    def __contains__(self, index: object) -> bool:
        return index in self._by_index


# --- parsing (pure) -----------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedFile:
    version: Version
    records: list[tuple[int, Query]]  # (line number, query)


def _parse_query_file(raw: bytes, source: str) -> ParsedFile:
    """Parse one query file (full or subset); every record must use the same criteria key."""
    version: Version | None = None
    records: list[tuple[int, Query]] = []
    seen: set[int] = set()
    for line, obj in iter_json_objects(raw, source):
        keys = [key for key in _CRITERIA_KEYS if key in obj]
        if len(keys) != 1:
            raise DataFormatError(f"{source}:{line}: expected exactly one of 'checklist' (v2) or 'criteria' (v1)")
        line_version = _CRITERIA_KEYS[keys[0]]
        if version is not None and line_version != version:
            raise DataIntegrityError(f"{source}:{line}: mixes v1 ('criteria') and v2 ('checklist') records in one file")
        version = line_version
        unknown = set(obj) - _RECORD_KEYS - {keys[0]}
        if unknown:
            raise DataFormatError(f"{source}:{line}: unexpected keys {sorted(unknown)}")
        fields = {key: value for key, value in obj.items() if key != keys[0]}
        try:
            query = Query.model_validate({**fields, "checklist": obj[keys[0]]})
        except ValidationError as exc:
            raise DataFormatError(f"{source}:{line}: {describe_validation_error(exc, one_line=True)}") from exc
        if query.index in seen:
            raise DataFormatError(f"{source}:{line}: duplicate index {query.index}")
        seen.add(query.index)
        records.append((line, query))
    if version is None:
        raise DataFormatError(f"{source}: file has no records")
    return ParsedFile(version, records)


def build_benchmark(raw_files: Mapping[str, bytes], *, verify: bool = True, source_prefix: str = "") -> WritingBench:
    """Build the benchmark from the bytes of the seven files, keyed by their relative path.

    With ``verify`` every file must match the pinned SHA-256 of the official v2 data.
    Version 1 files have no pinned hashes and therefore need ``verify=False``.
    """
    missing = [name for name in DATA_FILES if name not in raw_files]
    if missing:
        raise MissingDataError(
            f"missing WritingBench files under {source_prefix or '.'}: {', '.join(missing)}; the data folder must "
            f"hold all {len(DATA_FILES)} files of the official benchmark_query/ folder (proseval writingbench "
            "download fetches them)"
        )
    sha256 = {name: hashlib.sha256(raw_files[name]).hexdigest() for name in DATA_FILES}
    parsed = {name: _parse_query_file(raw_files[name], source_prefix + name) for name in DATA_FILES}
    versions = {name: file.version for name, file in parsed.items()}
    if len(set(versions.values())) > 1:
        raise DataIntegrityError(f"files from two data versions are mixed: {versions}")
    version = versions[ALL_FILE]
    if verify:
        if version != "v2":
            raise DataIntegrityError("v1 data has no pinned SHA-256; load it with verify=False")
        for name in DATA_FILES:
            if sha256[name] != PINNED_SHA256[name]:
                raise DataIntegrityError(
                    f"{source_prefix}{name}: SHA-256 {sha256[name]} does not match the official "
                    f"{PINNED_SHA256[name]} (commit {OFFICIAL_COMMIT[:7]})"
                )
    full = parsed[ALL_FILE]
    for line, query in full.records:
        if len(query.checklist) != 5:
            raise DataFormatError(f"{source_prefix}{ALL_FILE}:{line}: expected 5 criteria, got {len(query.checklist)}")
    by_index = {query.index: query for _, query in full.records}
    requirements: dict[str, RequirementSubset] = {
        dim: _requirement_subset(dim, parsed[r_file(dim)], parsed[c_file(dim)], by_index, source_prefix)
        for dim in REQUIREMENTS
    }
    return WritingBench(
        version=version,
        queries=tuple(query for _, query in full.records),
        requirements=requirements,
        sha256=sha256,
        verified=verify,
    )


def _requirement_subset(
    dim: Requirement, r: ParsedFile, c: ParsedFile, by_index: Mapping[int, Query], prefix: str
) -> RequirementSubset:
    r_indices = [query.index for _, query in r.records]
    c_indices = [query.index for _, query in c.records]
    if r_indices != c_indices:
        raise DataFormatError(f"{prefix}{c_file(dim)}: index list differs from {r_file(dim)}")
    for name, records in ((r_file(dim), r.records), (c_file(dim), c.records)):
        for line, query in records:
            full = by_index.get(query.index)
            if full is None:
                raise DataFormatError(f"{prefix}{name}:{line}: index {query.index} is not in {ALL_FILE}")
            unknown = set(query.criterion_names) - set(full.criterion_names)
            if unknown or (name == r_file(dim) and query.criterion_names != full.criterion_names):
                raise DataFormatError(f"{prefix}{name}:{line}: criteria of index {query.index} do not match {ALL_FILE}")
    return RequirementSubset(
        requirement=dim,
        indices=tuple(r_indices),
        criteria={query.index: query.criterion_names for _, query in c.records},
    )


# --- loading and downloading (I/O) -------------------------------------------------------


def resolve_data_dir(data_dir: str | os.PathLike[str]) -> Path:
    """Accept either the ``benchmark_query`` folder itself or a folder containing it."""
    path = Path(data_dir)
    return path / "benchmark_query" if (path / "benchmark_query" / ALL_FILE).is_file() else path


def load_benchmark(data_dir: str | os.PathLike[str], *, verify: bool = True) -> WritingBench:
    """Load and validate the query files under ``data_dir`` (see :func:`build_benchmark`)."""
    root = resolve_data_dir(data_dir)
    names = tuple(name for name in DATA_FILES if (root / name).is_file())
    prefix = f"{root}{os.sep}"
    return parse_files_once(  # once per content in a process, not read again while unchanged
        ("writingbench", verify, prefix, names),
        [root / name for name in names],
        lambda raw: build_benchmark(dict(zip(names, raw)), verify=verify, source_prefix=prefix),
    )


def download(dest: str | os.PathLike[str], *, client: httpx.Client | None = None, timeout: float = 60.0) -> Path:
    """Fetch the official v2 files at the pinned commit into ``dest`` and verify their SHA-256.

    Files already present with the right hash are kept; a file is written (atomically) only
    after its hash checked out. Returns ``dest``.
    """
    root = Path(dest)
    own_client = client is None
    http = client or httpx.Client(timeout=timeout, follow_redirects=True)
    try:
        for name, expected in PINNED_SHA256.items():
            target = root / name
            if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
                continue
            url = RAW_URL.format(repository=OFFICIAL_REPOSITORY, commit=OFFICIAL_COMMIT, path=name)
            try:
                response = http.get(url)
                response.raise_for_status()
            except httpx.HTTPError as exc:
                raise DownloadError(f"could not download {url}: {exc}") from exc
            actual = hashlib.sha256(response.content).hexdigest()
            if actual != expected:
                raise DataIntegrityError(f"{url}: SHA-256 {actual} does not match the pinned {expected}")
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".part")
            partial.write_bytes(response.content)
            partial.replace(target)
    finally:
        if own_client:
            http.close()
    return root


# --- slicing (pure) ----------------------------------------------------------------------


def select(
    bench: WritingBench,
    *,
    domain1: str | None = None,
    domain2: str | None = None,
    lang: str | None = None,
    requirement: str | None = None,
) -> list[Query]:
    """The queries matching every given filter, in benchmark order."""
    _check_label("domain1", domain1, DOMAIN1_LABELS)
    _check_label("domain2", domain2, sorted({query.domain2 for query in bench.queries}))
    _check_label("lang", lang, LANGUAGES)
    _check_label("requirement", requirement, REQUIREMENTS)
    wanted = set(bench.requirements[requirement].indices) if requirement else None
    return [
        query
        for query in bench.queries
        if (domain1 is None or query.domain1 == domain1)
        and (domain2 is None or query.domain2 == domain2)
        and (lang is None or query.lang == lang)
        and (wanted is None or query.index in wanted)
    ]


def interleave(queries: Iterable[Query], key: Literal["domain1", "domain2", "lang"]) -> list[Query]:
    """Round-robin over the groups of `key` (each group in benchmark order), so any prefix is balanced."""
    return round_robin(queries, lambda query: getattr(query, key) or "unknown")


def group_by(queries: Iterable[Query], key: Literal["domain1", "domain2", "lang"]) -> dict[str, list[Query]]:
    """Queries grouped by a label, groups in order of first appearance (missing lang → "unknown")."""
    groups: dict[str, list[Query]] = {}
    for query in queries:
        groups.setdefault(getattr(query, key) or "unknown", []).append(query)
    return groups


def _check_label(kind: str, value: str | None, allowed: Iterable[str]) -> None:
    allowed = list(allowed)
    if value is not None and value not in allowed:
        raise ValueError(f"unknown {kind} {value!r}; expected one of {allowed}")

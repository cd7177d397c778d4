"""The C3EBench data files: strict loading, SHA-256 verification, reference sources and slicing.

A data folder holds the two official files (``english_dataset.jsonl``, 458 items, and
``chinese_dataset_v2.jsonl``, 800 items) and the two lists of Chinese item IDs whose reference is
human-written (``human_ids_zh.txt``) or was replaced or edited by a model (``hybrid_ids_zh.txt``).
A file whose SHA-256 differs from the official one is accepted and marked unverified. A user's
own items (``proseval c3ebench construct``) are loaded from one file with ``--data-file``. An item
travels in a sample's `target` (`to_target`, `from_target`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import platformdirs

from proseval.benchmarks._shared.parsed import parse_once
from proseval.kit import DataFormatError, iter_json_objects

Language = Literal["en", "zh"]
TaskName = Literal["cloze", "expand", "edit", "end2end"]

LANGUAGES: tuple[Language, ...] = ("en", "zh")
TASKS: tuple[TaskName, ...] = ("cloze", "expand", "edit", "end2end")
# The data's task_type for each task (the paper's Expand is "condition" in the files).
TASK_TYPES: Mapping[str, TaskName] = {"cloze": "cloze", "condition": "expand", "edit": "edit", "end2end": "end2end"}
OFFICIAL_TASK_TYPE: Mapping[TaskName, str] = {task: task_type for task_type, task in TASK_TYPES.items()}

FILES: Mapping[Language, str] = {"en": "english_dataset.jsonl", "zh": "chinese_dataset_v2.jsonl"}
PINNED_SHA256: Mapping[Language, str] = {
    "en": "faec37f7a97d7bbcd101390dad492281e6641bc911758229326c23fdbf132264",
    "zh": "d44c809f88b8a46d4070a7b7a2bd410e20761289e6587f8ddc8176abfa97ae6e",
}
HUMAN_IDS_FILE = "human_ids_zh.txt"
HYBRID_IDS_FILE = "hybrid_ids_zh.txt"
OFFICIAL_REPOSITORY = "ZhuoerFeng/RAVEL-Reasoning-Agents-Text-Eval"
OFFICIAL_COMMIT = "5a14c3b"
DATA_ENV = "PROSEVAL_C3EBENCH_DIR"  # the data folder when --data-dir is not given

# The gap marker of the official Chinese Cloze articles (and of proseval's posing of EN Cloze).
BLANK_MARKER = "[fill in the blank]"

# Input fields each (task, shape) needs; an item must match one shape of its task.
INPUT_SHAPES: Mapping[TaskName, tuple[tuple[str, ...], ...]] = {
    "cloze": (("prefix", "suffix"), ("content",)),
    "expand": (("genre", "brief", "condition", "audience", "word"), ("outline",)),
    "edit": (("content", "critique"),),
    "end2end": (("genre", "brief", "audience", "word"), ("content",), ()),
}


@dataclass(frozen=True)
class Item:
    """One C3EBench item, normalised; `input` keeps the record's task-specific fields as given."""

    id: str
    task: TaskName
    language: Language
    genre: str
    instruction: str
    input: Mapping[str, str]
    reference: str
    reference_source: str = "unknown"  # human | hybrid | unknown (no list for EN)
    flags: tuple[str, ...] = ()
    source: str = ""  # file:line

    @property
    def task_type(self) -> str:
        return OFFICIAL_TASK_TYPE[self.task]


@dataclass(frozen=True)
class DataFile:
    """One loaded file: its items, SHA-256 and whether it is the official file."""

    path: str
    language: Language | None
    items: tuple[Item, ...]
    sha256: str
    verified: bool


@dataclass(frozen=True)
class C3EData:
    files: tuple[DataFile, ...]
    reference_lists: Mapping[str, str] = field(default_factory=dict)  # list name -> sha256

    @property
    def items(self) -> tuple[Item, ...]:
        return tuple(item for data_file in self.files for item in data_file.items)


# --- parsing (pure) ----------------------------------------------------------------------------


def language_of(record: Mapping[str, Any], default: Language | None) -> Language | None:
    """The record's `language` field, else its ID's marker (``_en_`` / ``_cn_``), else `default`."""
    language = record.get("language")
    if language in LANGUAGES:
        return language
    item_id = str(record.get("infer_id", ""))
    if "_en_" in item_id:
        return "en"
    if "_cn_" in item_id or "_zh_" in item_id:
        return "zh"
    return default


def item_flags(task: TaskName, language: Language, fields: Mapping[str, str]) -> tuple[str, ...]:
    """Known oddities of an item, kept in its metadata: a Cloze article without a gap marker, a tiny draft."""
    flags = []
    if task == "cloze" and "content" in fields and BLANK_MARKER not in fields["content"]:
        flags.append("no_blank_marker")
    if task == "edit" and language == "en" and len(fields.get("content", "").split()) < 20:
        flags.append("short_draft")
    return tuple(flags)


def parse_record(
    record: Mapping[str, Any], source: str, default_language: Language | None, sources: Mapping[str, str]
) -> Item:
    """One record as an `Item`; any missing or mistyped field is a `DataFormatError` at `source`."""

    def need_text(key: str, container: Mapping[str, Any], where: str, *, empty_ok: bool = False) -> str:
        value = container.get(key)
        if not isinstance(value, str):
            raise DataFormatError(f"{source}: {where}{key!r} must be a string (got {type(value).__name__})")
        if not empty_ok and not value.strip():
            raise DataFormatError(f"{source}: {where}{key!r} is empty")
        return value

    item_id = need_text("infer_id", record, "")
    task_type = need_text("task_type", record, "")
    if task_type not in TASK_TYPES:
        raise DataFormatError(f"{source}: task_type {task_type!r} is not one of {', '.join(TASK_TYPES)}")
    task = TASK_TYPES[task_type]
    language = language_of(record, default_language)
    if language is None:
        raise DataFormatError(f'{source}: no language: add "language": "en" or "zh"')
    raw_input = record.get("input")
    if not isinstance(raw_input, dict):
        raise DataFormatError(f"{source}: 'input' must be an object")
    fields = {key: need_text(key, raw_input, "input.", empty_ok=True) for key in raw_input}
    shapes = INPUT_SHAPES[task]
    if not any(set(shape) <= set(fields) for shape in shapes):
        wanted = " or ".join("{" + ", ".join(shape) + "}" for shape in shapes if shape)
        raise DataFormatError(f"{source}: a {task_type} item needs input fields {wanted}")
    return Item(
        id=item_id,
        task=task,
        language=language,
        genre=need_text("sub_task", record, ""),
        instruction=need_text("instruction", record, ""),
        input=fields,
        reference=need_text("reference", record, ""),
        reference_source=sources.get(item_id, "unknown"),
        flags=item_flags(task, language, fields),
        source=source,
    )


def parse_file(
    raw: bytes, source: str, language: Language | None, sources: Mapping[str, str] | None = None
) -> list[Item]:
    """Every item of one JSON Lines file; IDs must be unique."""
    items: list[Item] = []
    seen: set[str] = set()
    for line, record in iter_json_objects(raw, source):
        item = parse_record(record, f"{source}:{line}", language, sources or {})
        if item.id in seen:
            raise DataFormatError(f"{source}:{line}: duplicate infer_id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise DataFormatError(f"{source}: no records")
    return items


def parse_id_list(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def reference_sources(human: Iterable[str], hybrid: Iterable[str]) -> dict[str, str]:
    """ID → "human" / "hybrid"; an ID on both lists is an error."""
    sources = {item_id: "human" for item_id in human}
    for item_id in hybrid:
        if item_id in sources:
            raise DataFormatError(f"{item_id} is on both the human and the hybrid reference lists")
        sources[item_id] = "hybrid"
    return sources


def sha256_of(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


# --- loading (I/O) -----------------------------------------------------------------------------


def default_data_dir() -> Path:
    """Where the data files are looked for when neither --data-dir nor $PROSEVAL_C3EBENCH_DIR is given."""
    return Path(platformdirs.user_data_dir("proseval")) / "c3ebench"


def load_folder(folder: Path, languages: Sequence[Language]) -> C3EData:
    """The official files of `languages` under `folder` (with the Chinese reference lists if present)."""
    lists: dict[str, str] = {}
    sources: dict[str, str] = {}
    if "zh" in languages:
        human_path, hybrid_path = folder / HUMAN_IDS_FILE, folder / HYBRID_IDS_FILE
        if human_path.is_file() and hybrid_path.is_file():
            human_raw, hybrid_raw = human_path.read_bytes(), hybrid_path.read_bytes()
            sources = reference_sources(
                parse_id_list(human_raw.decode("utf-8")), parse_id_list(hybrid_raw.decode("utf-8"))
            )
            lists = {HUMAN_IDS_FILE: sha256_of(human_raw), HYBRID_IDS_FILE: sha256_of(hybrid_raw)}
    files = []
    for language in languages:
        path = folder / FILES[language]
        if not path.is_file():
            raise FileNotFoundError(
                f"no {FILES[language]} in {folder}: pass --data-dir with the C3EBench files "
                f"(from {OFFICIAL_REPOSITORY}), or --language to choose the other language"
            )
        raw = path.read_bytes()
        digest = sha256_of(raw)
        # parsed once per content in a process (`parse_once`), with the reference lists it was given
        items = parse_once(
            ("c3e", str(path), language, tuple(sorted(lists.items()))),
            lambda: tuple(parse_file(raw, str(path), language, sources)),
            raw,
        )
        files.append(DataFile(str(path.resolve()), language, items, digest, digest == PINNED_SHA256[language]))
    return C3EData(tuple(files), lists)


def load_data_file(path: Path) -> C3EData:
    """A user's own items (same record shape; `language` or an ``_en_``/``_cn_`` ID per record)."""
    raw = path.read_bytes()
    items = parse_file(raw, str(path), None)
    return C3EData((DataFile(str(path), None, tuple(items), sha256_of(raw), False),))


def load_data(data_file: str | None, data_dir: str | None, languages: Sequence[Language]) -> C3EData:
    """A user's `data_file`, else the official files of `languages` in `data_dir`, ``$PROSEVAL_C3EBENCH_DIR``
    or the default data folder."""
    if data_file:
        return load_data_file(Path(data_file).expanduser())
    folder = Path(data_dir or os.environ.get(DATA_ENV) or default_data_dir()).expanduser()
    return load_folder(folder, languages)


def select(
    items: Iterable[Item],
    *,
    tasks: Sequence[str] | None = None,
    genres: Sequence[str] | None = None,
    reference_source: str | None = None,
    per_task: int | None = None,
) -> list[Item]:
    """The items of the given tasks, genres (``sub_task``) and reference source (None: all), at most
    `per_task` of each language x task (the first ones, in the given order)."""
    chosen: list[Item] = []
    taken: dict[tuple[str, str], int] = {}
    for item in items:
        if (
            (tasks and item.task not in tasks)
            or (genres and item.genre not in genres)
            or (reference_source is not None and item.reference_source != reference_source)
        ):
            continue
        group = (item.language, item.task)
        if per_task is not None and taken.get(group, 0) >= per_task:
            continue
        taken[group] = taken.get(group, 0) + 1
        chosen.append(item)
    return chosen


def counts(items: Iterable[Item]) -> dict[str, dict[str, int]]:
    """Items per language and task."""
    table: dict[str, dict[str, int]] = {}
    for item in items:
        row = table.setdefault(item.language, {})
        row[item.task] = row.get(item.task, 0) + 1
    return table


def to_target(item: Item) -> dict[str, Any]:
    """The item as a sample's JSON target (stored in the run folder)."""
    return {
        "id": item.id,
        "task": item.task,
        "language": item.language,
        "genre": item.genre,
        "instruction": item.instruction,
        "input": dict(item.input),
        "reference": item.reference,
        "reference_source": item.reference_source,
        "flags": list(item.flags),
    }


def from_target(target: dict[str, Any]) -> Item:
    """The item a sample's target holds."""
    return Item(
        id=target["id"],
        task=target["task"],
        language=target["language"],
        genre=target["genre"],
        instruction=target["instruction"],
        input=target["input"],
        reference=target["reference"],
        reference_source=target.get("reference_source", "unknown"),
        flags=tuple(target.get("flags", ())),
    )

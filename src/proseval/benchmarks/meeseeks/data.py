"""Loading the official Meeseeks item files.

Layout (as published): ``<data_dir>/asia_data/raw_input/*.json`` (Chinese, Japanese, Korean)
and ``<data_dir>/english_data/raw_input/*.json`` (the eight other languages); ``data_dir`` may
also be the folder that contains ``input_data/``. Each file is a JSON array of items. The
language of a file is read from the token in its name (``…中文版.json`` → ``zh``), which also
selects the rule dispatcher (zh/ja/ko → CJK checkers, the rest → non-CJK checkers).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from proseval.benchmarks._shared.parsed import parse_files_once
from proseval.kit import DataError

from .rules.base import Dispatcher

LANGUAGES = ("zh", "ja", "ko", "en", "de", "fr", "es", "pt", "ru", "ar", "id")
CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})

# Token in the file name → language. 日文/韩文 mark the four-template ja/ko files that the
# official runners never select (their language filter only knows 日语/韩语).
LANGUAGE_TOKENS = {
    "中文": "zh",
    "日语": "ja",
    "日文": "ja",
    "韩语": "ko",
    "韩文": "ko",
    "英语": "en",
    "德语": "de",
    "法语": "fr",
    "西语": "es",
    "葡语": "pt",
    "俄语": "ru",
    "阿语": "ar",
    "印尼语": "id",
}
OFFICIAL_RUNNER_TOKENS = ("中文", "日语", "韩语", "英语", "德语", "法语", "西语", "葡语", "俄语", "阿语", "印尼")
SUBFOLDERS = ("asia_data", "english_data")
TAG_KEY = "能力项"
TAG_KEY_VARIANTS = ("能力項", "능력항")


class MeeseeksDataError(DataError, ValueError):
    """A data file that cannot be read; the message names the file and the item."""


class SubQuestion(BaseModel):
    """One checklist entry of an item.

    ``position`` is the index in the item's list (``point_id`` is not unique). ``tags`` are
    the capability tags split on ``、``; ``tag_key`` records which key held them, because
    the reference implementation reads only ``能力项`` and ignores the ja/ko variants.
    """

    model_config = ConfigDict(frozen=True)

    position: int
    point_id: int
    question: str
    rule: str | None = None
    corresponding_part: str | None = None
    dep: list[int] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    tag_key: str | None = None


class MeeseeksItem(BaseModel):
    """One benchmark item as published (run-time leftovers such as ``model_response`` are dropped)."""

    model_config = ConfigDict(frozen=True)

    id: str
    source_file: str
    index: int
    language: str
    category: str
    question: str
    sub_questions: list[SubQuestion]
    corresponding_parts: dict[str, str] = Field(default_factory=dict)
    json_schema: dict[str, Any] | None = None
    official_runner: bool = True

    @field_validator("sub_questions")
    @classmethod
    def _not_empty(cls, value: list[SubQuestion]) -> list[SubQuestion]:
        if not value:
            raise ValueError("an item needs at least one sub-question")
        return value

    @property
    def dispatcher(self) -> Dispatcher:
        return "cjk" if self.language in CJK_LANGUAGES else "latin"


def language_of(file_name: str) -> str:
    """The language code written in a data file name; raises MeeseeksDataError if none."""
    for token, code in sorted(LANGUAGE_TOKENS.items(), key=lambda kv: -len(kv[0])):
        if token in file_name:
            return code
    raise MeeseeksDataError(f"{file_name}: no language token ({', '.join(LANGUAGE_TOKENS)}) in the file name")


def selected_by_official_runner(file_name: str) -> bool:
    """Whether the official runners' language filter keeps this file (日文/韩文 files are dropped)."""
    return any(token in file_name for token in OFFICIAL_RUNNER_TOKENS)


def _sub_question(raw: Any, position: int) -> SubQuestion:
    if not isinstance(raw, dict):
        raise ValueError(f"sub-question {position} is not an object")
    tag_key = next((k for k in (TAG_KEY, *TAG_KEY_VARIANTS) if k in raw), None)
    tags = [t for t in str(raw[tag_key]).split("、") if t] if tag_key else []
    fields = {k: raw[k] for k in ("point_id", "question", "rule", "corresponding_part", "dep") if k in raw}
    return SubQuestion(position=position, tags=tags, tag_key=tag_key, **fields)


def parse_item(raw: Any, *, source_file: str, index: int, language: str) -> MeeseeksItem:
    """Validate one raw item; errors name the file and the item index."""
    try:
        if not isinstance(raw, dict):
            raise ValueError("item is not a JSON object")
        subs = raw.get("sub_questions")
        if not isinstance(subs, list):
            raise ValueError("'sub_questions' must be a list")
        return MeeseeksItem.model_validate(
            {  # the file's values as they are: pydantic checks them
                "id": f"{Path(source_file).stem}#{index}",
                "source_file": source_file,
                "index": index,
                "language": language,
                "category": raw.get("category"),
                "question": raw.get("question"),
                "sub_questions": [_sub_question(s, i) for i, s in enumerate(subs)],
                "corresponding_parts": raw.get("corresponding_parts") or {},
                "json_schema": raw.get("json_schema"),
                "official_runner": selected_by_official_runner(Path(source_file).name),
            }
        )
    except (ValidationError, ValueError, TypeError) as exc:
        raise MeeseeksDataError(f"{source_file}: item {index}: {exc}") from exc


def load_file(path: Path, source_name: str | None = None) -> list[MeeseeksItem]:
    """All items of one data file (parsed once per content in a process, not read again while
    unchanged: `parse_files_once`)."""
    name = source_name or path.name
    language = language_of(path.name)
    return list(parse_files_once(("meeseeks", name, language), [path], lambda raw: _parse_file(raw[0], name, language)))


def _parse_file(content: bytes, name: str, language: str) -> tuple[MeeseeksItem, ...]:
    try:  # decoded as `Path.read_text` decodes (newlines translated)
        raw = json.loads(io.TextIOWrapper(io.BytesIO(content), encoding="utf-8").read())
    except json.JSONDecodeError as exc:
        raise MeeseeksDataError(f"{name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise MeeseeksDataError(f"{name}: not UTF-8 text ({exc})") from exc
    if not isinstance(raw, list):
        raise MeeseeksDataError(f"{name}: expected a JSON array of items, got {type(raw).__name__}")
    return tuple(parse_item(item, source_file=name, index=i, language=language) for i, item in enumerate(raw))


def input_root(data_dir: Path) -> Path:
    """The folder holding ``asia_data``/``english_data`` (``data_dir`` itself or its ``input_data``)."""
    data_dir = Path(data_dir)
    for candidate in (data_dir, data_dir / "input_data"):
        if any((candidate / sub / "raw_input").is_dir() for sub in SUBFOLDERS):
            return candidate
    raise MeeseeksDataError(f"{data_dir}: no asia_data/raw_input or english_data/raw_input folder found")


def data_files(data_dir: Path) -> list[Path]:
    """Data files in the official order: per folder, sorted by name."""
    root = input_root(data_dir)
    return [
        path
        for sub in SUBFOLDERS
        if (root / sub / "raw_input").is_dir()
        for path in sorted((root / sub / "raw_input").iterdir())
        if path.suffix == ".json"
    ]


def load_items(
    data_dir: Path,
    languages: Iterable[str] | None = None,
    *,
    official_runner_only: bool = False,
) -> list[MeeseeksItem]:
    """Load the items of the selected languages (all 11 by default).

    ``official_runner_only`` reproduces the official runners, which never select the
    ``日文``/``韩文`` files (100 items); by default they are loaded and marked with
    ``official_runner=False`` so both totals can be reported.
    """
    wanted = set(LANGUAGES if languages is None else languages)
    unknown = wanted - set(LANGUAGES)
    if unknown:
        raise ValueError(f"unknown language codes {sorted(unknown)}; known: {', '.join(LANGUAGES)}")
    root = input_root(data_dir)
    items: list[MeeseeksItem] = []
    for path in data_files(data_dir):
        if language_of(path.name) not in wanted:
            continue
        if official_runner_only and not selected_by_official_runner(path.name):
            continue
        items.extend(load_file(path, str(path.relative_to(root))))
    return items

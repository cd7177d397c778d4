"""Reverse construction of C3EBench items from a team's own texts: the checks and the item shapes (pure).

A professional text becomes up to four items. Expand and End2End: a builder model extracts the genre,
a brief, the audience, a word count (and for Expand the structure) and writes the request; the whole
text is the reference. Cloze: the builder picks a passage of 20-50 % of the text, which must occur in
it verbatim; the text is split into prefix / passage / suffix, which must reassemble to the original.
Edit: the builder fills that gap (the draft) and then criticises the draft against the hidden passage
without revealing it. Every check that fails is reported with its reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks._shared.c3e.data import (
    BLANK_MARKER,
    LANGUAGES,
    OFFICIAL_TASK_TYPE,
    TaskName,
)
from proseval.kit import DataFormatError, iter_json_objects

SEGMENT_MIN, SEGMENT_MAX = 0.20, 0.50
QUERY_LIMIT = {"expand": 300, "end2end": 100}  # words (EN); Chinese counts characters at twice these
LEAK_WORDS_EN = 8  # a run of this many words of the hidden passage in a critique reveals it
LEAK_CHARS_ZH = 12
REVEALING_TERMS = (
    "the reference",
    "reference text",
    "reference passage",
    "original passage",
    "original text",
    "human-written",
    "参考答案",
    "参考文本",
    "原文",
    "标准答案",
)

INSTRUCTIONS = {
    ("cloze", "en"): "Fill in the passage missing at the gap in the article below, so that the article reads as "
    "one coherent text.",
    ("cloze", "zh"): "请补写下面文章中空缺处缺失的段落，使全文连贯完整。",
    ("edit", "en"): "Revise the draft according to the critique.",
    ("edit", "zh"): "请根据点评修改初稿。",
}


@dataclass(frozen=True)
class SourceText:
    id: str
    text: str
    language: str
    genre: str
    tasks: tuple[str, ...]


def read_texts(raw: bytes, source: str, default_tasks: Sequence[str]) -> list[SourceText]:
    """Each line: ``text`` (required), ``id``, ``language`` (en/zh, else guessed), ``genre``, ``tasks``."""
    texts, seen = [], set()
    for line, record in iter_json_objects(raw, source):
        text = record.get("text")
        if not isinstance(text, str) or not text.strip():
            raise DataFormatError(f"{source}:{line}: 'text' must be a non-empty string")
        text_id = str(record.get("id", line))
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", text_id):
            raise DataFormatError(f"{source}:{line}: id {text_id!r} may hold only letters, digits, '_', '.', '-'")
        if text_id in seen:
            raise DataFormatError(f"{source}:{line}: duplicate id {text_id!r}")
        seen.add(text_id)
        language = record.get("language") or guess_language(text)
        if language not in LANGUAGES:
            raise DataFormatError(f"{source}:{line}: language must be en or zh (got {language!r})")
        tasks = record.get("tasks", list(default_tasks))
        if isinstance(tasks, str):
            tasks = [t.strip() for t in tasks.split(",") if t.strip()]
        unknown = [t for t in tasks if t not in OFFICIAL_TASK_TYPE]
        if unknown or not tasks:
            raise DataFormatError(f"{source}:{line}: tasks must be among {', '.join(OFFICIAL_TASK_TYPE)} (got {tasks})")
        texts.append(SourceText(text_id, text, language, str(record.get("genre") or "unknown"), tuple(tasks)))
    if not texts:
        raise DataFormatError(f"{source}: no texts")
    return texts


def guess_language(text: str) -> str:
    han = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return "zh" if han > 0.2 * max(1, len(text.strip())) else "en"


# --- Cloze: the verbatim passage and the split ---------------------------------------------------


def check_segment(text: str, segment: str) -> str | None:
    """Why `segment` cannot be the Cloze passage of `text` (None when it can)."""
    if not segment.strip():
        return "the passage is empty"
    position = text.find(segment)
    if position < 0:
        return "the passage does not occur verbatim in the text"
    if len(segment) >= len(text.strip()):
        return "the passage is the whole text"
    share = len(segment) / len(text)
    if not SEGMENT_MIN <= share <= SEGMENT_MAX:
        return f"the passage is {share:.0%} of the text (must be {SEGMENT_MIN:.0%}-{SEGMENT_MAX:.0%})"
    return None


def split_text(text: str, segment: str) -> tuple[str, str, str]:
    """(prefix, passage, suffix) at the passage's first occurrence; they reassemble to `text` exactly."""
    position = text.find(segment)
    if position < 0:
        raise ValueError("the passage does not occur verbatim in the text")
    parts = (text[:position], segment, text[position + len(segment) :])
    if "".join(parts) != text:  # cannot happen with str.find; kept as the construction's own guarantee
        raise ValueError("the split does not reassemble to the text")
    return parts


def masked(prefix: str, suffix: str) -> str:
    return prefix + BLANK_MARKER + suffix


# --- Edit: the draft and the critique -------------------------------------------------------------


def check_draft(draft: str, passage: str) -> str | None:
    if not draft.strip():
        return "the draft is empty"
    if draft.strip() == passage.strip():
        return "the draft is identical to the hidden passage"
    return None


def _shingles(text: str, language: str) -> set[str]:
    if language == "zh":
        chars = re.sub(r"\s+", "", text)
        return {chars[i : i + LEAK_CHARS_ZH] for i in range(len(chars) - LEAK_CHARS_ZH + 1)}
    words = re.findall(r"\w+", text.lower())
    return {" ".join(words[i : i + LEAK_WORDS_EN]) for i in range(len(words) - LEAK_WORDS_EN + 1)}


def check_critique(critique: str, passage: str, draft: str, language: str) -> str | None:
    """Why the critique is unusable: empty, or revealing the hidden passage (quoted, or named)."""
    if not critique.strip():
        return "the critique is empty"
    leaked = (_shingles(critique, language) & _shingles(passage, language)) - _shingles(draft, language)
    if leaked:
        return f"the critique quotes the hidden passage ({min(leaked)!r})"
    lowered = critique.lower()
    named = [term for term in REVEALING_TERMS if term in lowered]
    if named:
        return f"the critique refers to the hidden passage ({named[0]!r})"
    return None


# --- Expand / End2End: the brief --------------------------------------------------------------------


def _length(text: str, language: str) -> int:
    return len(re.sub(r"\s+", "", text)) // 2 if language == "zh" else len(text.split())


def check_brief(brief: Any, task: str, language: str) -> str | None:
    """Why a builder's brief is unusable for `task` (None when it is usable)."""
    if not isinstance(brief, Mapping):
        return "no JSON object in the builder's answer"
    needed = ["genre", "brief", "audience", "word", "query"] + (["structure"] if task == "expand" else [])
    missing = [key for key in needed if not str(brief.get(key) or "").strip()]
    if missing:
        return f"the brief lacks {', '.join(missing)}"
    limit = QUERY_LIMIT[task]
    if _length(str(brief["query"]), language) > limit:
        return f"the request is longer than {limit} words"
    return None


# --- items ------------------------------------------------------------------------------------------


def item_id(task: TaskName, text: SourceText) -> str:
    return f"{OFFICIAL_TASK_TYPE[task]}_{text.language}_{text.id}"


def _record(
    task: TaskName, text: SourceText, instruction: str, fields: Mapping[str, str], reference: str
) -> dict[str, Any]:
    task_type = OFFICIAL_TASK_TYPE[task]
    return {
        "infer_id": item_id(task, text),
        "task_type": task_type,
        "sub_task": text.genre,
        "instruction": instruction,
        "input": dict(fields),
        "reference": reference,
        "language": text.language,
        "meta": {"source_id": text.id, "constructed": True},
    }


def cloze_item(text: SourceText, prefix: str, passage: str, suffix: str) -> dict[str, Any]:
    return _record("cloze", text, INSTRUCTIONS[("cloze", text.language)], {"prefix": prefix, "suffix": suffix}, passage)


def edit_item(text: SourceText, draft: str, critique: str, passage: str) -> dict[str, Any]:
    return _record(
        "edit", text, INSTRUCTIONS[("edit", text.language)], {"content": draft, "critique": critique}, passage
    )


def brief_item(task: TaskName, text: SourceText, brief: Mapping[str, Any]) -> dict[str, Any]:
    fields = {key: str(brief[key]) for key in ("genre", "brief", "audience", "word")}
    if task == "expand":
        fields["condition"] = str(brief["structure"])
    return _record(task, text, str(brief["query"]), fields, text.text)


def to_jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)

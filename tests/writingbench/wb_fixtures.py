"""Builders for small hand-made WritingBench data sets (imported by the tests and conftest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# index -> (domain1, domain2, lang)
TINY_QUERIES = {
    1: ("Academic & Engineering", "Abstract", "en"),
    2: ("Academic & Engineering", "Patent", "zh"),
    3: ("Education", "Lesson Plan", "en"),
    4: ("Literature & Arts", "Poetry", "zh"),
}
# requirement -> {index: C criterion numbers (1-based)}
TINY_REQUIREMENTS = {
    "style": {1: [2], 3: [1, 4]},
    "format": {2: [5]},
    "length": {4: [3]},
}


def criterion(name: str) -> dict[str, str]:
    return {
        "name": name,
        "criteria_description": f"How well the response handles {name}.",
        "1-2": "fails",
        "3-4": "weak",
        "5-6": "adequate",
        "7-8": "good",
        "9-10": "excellent",
    }


def names(index: int) -> list[str]:
    return [f"q{index}_c{n}" for n in range(1, 6)]


def record(
    index: int, *, key: str = "checklist", with_lang: bool = True, criteria: list[str] | None = None
) -> dict[str, Any]:
    domain1, domain2, lang = TINY_QUERIES[index]
    obj: dict[str, Any] = {"index": index, "domain1": domain1, "domain2": domain2}
    if with_lang:
        obj["lang"] = lang
    obj["query"] = f"Write text number {index}."
    obj[key] = [criterion(name) for name in (criteria or names(index))]
    return obj


def jsonl(records: list[dict[str, Any]], newline: str = "\n") -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + newline for r in records).encode("utf-8")


def tiny_files(*, key: str = "checklist") -> dict[str, bytes]:
    """The seven files of the tiny data set; benchmark_all uses CRLF like the official one."""
    files = {"benchmark_all.jsonl": jsonl([record(i, key=key) for i in TINY_QUERIES], newline="\r\n")}
    for dim, chosen in TINY_REQUIREMENTS.items():
        base = f"requirement/{dim}/{dim}_subset"
        files[f"{base}.jsonl"] = jsonl([record(i, key=key, with_lang=False) for i in chosen])
        files[f"{base}_C.jsonl"] = jsonl(
            [
                record(i, key=key, with_lang=False, criteria=[names(i)[n - 1] for n in numbers])
                for i, numbers in chosen.items()
            ]
        )
    return files


def write_files(root: Path, files: dict[str, bytes]) -> Path:
    for name, raw in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
    return root

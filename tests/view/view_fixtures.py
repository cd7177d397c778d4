"""Run folders for the viewer's tests, made by real runs with scripted models.

`build_runs(folder, scripts)` writes one run per benchmark shape the viewer shows: plain
turns and judge scores (demo, with hostile text), RAVEL trajectories, Revision Distance edits
and draft/revision pairs, Meeseeks rounds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import proseval
from ravel.ravel_fixtures import efficient, model, write_data

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
JUDGE_OK = '{"analysis": {}, "score": 7, "verdict": "solid"}'
_DRAFT = re.compile(r"Draft:\n<<<\n(.*?)\n>>>", re.S)


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def demo_run(out: Path, scripts: Callable[[str, object], str]) -> proseval.Run:
    """The demo task: a candidate whose answers carry markup, a judge that explains its rating."""
    candidate = scripts("view-candidate", lambda m: f"An answer with {HOSTILE} in it.\nSecond line.")
    judge = scripts("view-judge", lambda m: 'Reasoning: clear and vivid <b>bold</b>.\n{"score": 8}')
    return proseval.run("demo", model=candidate, roles={"judge": judge}, out=out, cache=False, limit=4)


def ravel_run(out: Path, scripts: Callable[[str, object], str]) -> proseval.Run:
    data = write_data(out.parent / "ravel-data")
    candidate = scripts("view-ravel", model(lambda turn, state: efficient(state)))
    return proseval.run(
        "ravel",
        model=candidate,
        roles={"judge": scripts("view-ravel-judge", [JUDGE_OK])},
        params={"data_dir": str(data), "language": "en"},
        limit=1,
        out=out,
        cache=False,
    )


def _edit(action: str, original: str, revised: str, level: str = "phrase") -> dict:
    return {
        "action_name": action,
        "revision_description": f"{action} it",
        "revision_level": level,
        "original_snippet": original,
        "revised_snippet": revised,
        "revision_intention": "closer to the target",
    }


def _reviser(messages) -> str:
    draft = _DRAFT.search(messages[-1]["content"]).group(1)
    if draft.startswith("The cat"):
        return json.dumps(
            [
                _edit("rephrase", "The cat sat on the mat", "The cat lay on the mat"),
                _edit("replace", "big", "large", "word"),
                _edit("delete", "a purple elephant", ""),
            ]
        )
    return "[]"


def revision_run(out: Path, scripts: Callable[[str, object], str]) -> proseval.Run:
    drafts = _jsonl(
        out.parent / "drafts.jsonl",
        [
            {"id": "a", "draft": "The cat sat on the mat. It was big <script>x</script>.", "instruction": "Cat."},
            {"id": "b", "draft": "Dogs bark loudly at night.", "instruction": "Dogs."},
        ],
    )
    refs = _jsonl(
        out.parent / "refs.jsonl",
        [
            {"id": "a", "reference": "The cat lay on the mat. It was large."},
            {"id": "b", "reference": "Dogs bark at night."},
        ],
    )
    return proseval.run(
        "revision-distance",
        roles={"reviser": scripts("view-reviser", _reviser)},
        params={"drafts": str(drafts), "refs": str(refs)},
        out=out,
        cache=False,
    )


def pairs_run(out: Path, scripts: Callable[[str, object], str]) -> proseval.Run:
    pairs = _jsonl(
        out.parent / "pairs.jsonl",
        [
            {
                "id": "p1",
                "instruction": "A note.",
                "chosen": "Hi Sam, could you water my plants on Saturday?",
                "rejected": "plants water please",
                "chosen_score": 5,
                "rejected_score": 1,
            }
        ],
    )
    return proseval.run(
        "revision-distance",
        roles={"reviser": scripts("view-pair-reviser", _reviser)},
        params={"pairs": str(pairs), "setting": "reference-free"},
        out=out,
        cache=False,
    )


MEESEEKS_ITEMS = [
    {
        "category": "general_single",
        "question": "Write a short poem about rain that mentions an umbrella.",
        "corresponding_parts": {"poem": "Extract the poem."},
        "sub_questions": [
            {"point_id": 0, "question": "Is the answer a poem?", "rule": None, "dep": [], "能力项": "生成特定文案"},
            {
                "point_id": 1,
                "question": "Does the poem contain the word umbrella?",
                "corresponding_part": "poem",
                "rule": 'keywords:["umbrella"]',
                "dep": [0],
                "能力项": "关键词",
            },
        ],
    }
]
POEMS = ["Rain falls soft\non the quiet town", "Rain falls soft\non my red umbrella"]


def meeseeks_run(out: Path, scripts: Callable[[str, object], str]) -> proseval.Run:
    """One item over two rounds: the first answer misses the keyword, the re-ask fixes it."""
    raw = out.parent / "meeseeks" / "input_data" / "english_data" / "raw_input"
    raw.mkdir(parents=True, exist_ok=True)
    (raw / "DATA-task英语版.json").write_text(json.dumps(MEESEEKS_ITEMS, ensure_ascii=False), encoding="utf-8")
    asked: list[int] = []
    candidate = scripts("view-ms-candidate", lambda m: asked.append(1) or POEMS[min(len(asked), 2) - 1])
    roles = {
        "extractor": scripts("view-ms-extractor", ["ALL"]),
        "judge": scripts("view-ms-judge", ["分析：a poem about rain\n判断：是"]),
    }
    return proseval.run(
        "meeseeks",
        model=candidate,
        roles=roles,
        out=out,
        cache=False,
        params={"data_dir": str(out.parent / "meeseeks"), "language": "en", "rounds": 2},
    )


def record(number: int, **change) -> dict:
    """A plain sample record, as the runtime writes it (with `change` applied)."""
    base = {
        "id": f"s{number:05d}",
        "epoch": 0,
        "status": "ok",
        "model_failure": None,
        "input": f"Prompt {number}.",
        "target": None,
        "metadata": {"language": "en" if number % 2 else "fr", "domain": f"d{number % 3}"},
        "state": {
            "messages": [
                {"role": "user", "content": f"Prompt {number}."},
                {"role": "assistant", "content": f"Answer {number}."},
            ],
            "output": f"Answer {number}.",
            "finish_reason": "stop",
            "turns": [],
            "metadata": {},
        },
        "scores": {
            "quality": {
                "value": float(number % 10),
                "explanation": f"why {number}",
                "parse_status": "ok",
                "metadata": {},
            }
        },
        "usage": {},
        "cache_hits": 0,
        "duration_s": 0.1,
        "error": None,
    }
    base.update(change)
    return base


def header(run_id: str, task: str = "synthetic") -> dict:
    return {
        "run_id": run_id,
        "task": task,
        "task_version": "1",
        "roles": {"candidate": {"spec": "scripted/x"}},
        "config_hash": "0" * 64,
        "package_version": "0",
        "python": "3",
        "platform": "linux",
        "started_at": "2026-01-01T00:00:00+00:00",
    }


def write_run(folder: Path, records: list[dict], *, results: dict | None = None, task: str = "synthetic") -> Path:
    """A run folder written by hand: header, samples and (optionally) results."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "header.json").write_text(json.dumps(header(folder.name, task)), encoding="utf-8")
    _jsonl(folder / "samples.jsonl", records)
    if results is not None:
        (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
    return folder


def results(run_id: str, finished: int, **counts) -> dict:
    return {
        "run_id": run_id,
        "task": "synthetic",
        "finished_at": "2026-01-01T01:00:00+00:00",
        "complete": True,
        "counts": {"total": finished, "finished": finished, "ok": finished, "failed": 0, "unscored": 0, **counts},
        "metrics": {"quality": {"mean": 4.5, "n_scored": finished}},
    }

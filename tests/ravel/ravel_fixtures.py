"""Small hand-made End2End items and scripted models for RAVEL's end-to-end tests."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

RECORDS: list[dict[str, Any]] = [
    {
        "infer_id": "end2end_en_1",
        "task_type": "end2end",
        "sub_task": "academic_writing",
        "instruction": "Write an essay on why water is unusual.",
        "input": {"genre": "Essay", "brief": "Water.", "audience": "Students", "word": "800"},
        "reference": "Water is a strange substance.",
    },
    {
        "infer_id": "end2end_en_2",
        "task_type": "end2end",
        "sub_task": "speech",
        "instruction": "Write a speech thanking flood volunteers.",
        "input": {"genre": "Speech", "brief": "Thanks.", "audience": "Residents", "word": "300"},
        "reference": "Friends, thank you.",
    },
    {
        "infer_id": "cloze_en_1",
        "task_type": "cloze",
        "sub_task": "essay",
        "instruction": "Fill the blank.",
        "input": {"prefix": "A ", "suffix": " B"},
        "reference": "middle",
    },
]
ZH_RECORDS: list[dict[str, Any]] = [
    {
        "infer_id": "end2end_cn_1200",
        "task_type": "end2end",
        "sub_task": "公文",
        "instruction": "请写一份关于防汛工作的通知。",
        "input": {"content": ""},
        "reference": "各单位：现通知如下。",
        "meta": {"old_id": "infer_1200"},
        "id": None,
    },
]


def write_data(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)

    def lines(rs):
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rs)

    (folder / "english_dataset.jsonl").write_text(lines(RECORDS), encoding="utf-8")
    (folder / "chinese_dataset_v2.jsonl").write_text(lines(ZH_RECORDS), encoding="utf-8")
    return folder


def is_policy(messages: list[dict[str, str]]) -> bool:
    return messages[0]["role"] == "system" and "editor in charge" in messages[0]["content"]


def policy_state(messages: list[dict[str, str]]) -> tuple[int, dict[str, Any], str]:
    """(turn number, the state JSON the policy was shown, the topic)."""
    user = messages[-1]["content"]
    turn = int(re.match(r"Turn (\d+) of", user).group(1))
    state = json.loads(user.split("Current state:\n", 1)[1].split("\n\nYour recent", 1)[0])
    return turn, state, state["topic"]


def tools(messages: list[dict[str, str]]) -> str:
    """Planner: sections Water and Ice. Writer: a text. Reviewer: Water passes (9); Ice first gets 6,
    then 9 once revised. Reviser: a revised text."""
    user = messages[-1]["content"]
    if user.startswith("Plan a piece"):
        return (
            '{"title": "On Water", "sections": [{"title": "Water", "points": ["density"]}, '
            '{"title": "Ice", "points": ["floating"]}]}'
        )
    if user.startswith("You are writing"):
        section = re.search(r"This section: (.*)", user).group(1)
        return json.dumps({"content": f"{section} text.", "summary": f"About {section}."})
    if user.startswith("You review"):
        if "Section: Water" in user or "revised" in user:
            return '{"score": 9, "feedback": "fine"}'
        return '{"score": 6, "feedback": "say why ice floats"}'
    if user.startswith("You revise"):
        return '{"content": "Ice text, revised: it floats because it is less dense.", "changes": "added why"}'
    raise AssertionError(f"unexpected tool prompt: {user[:80]}")


def decide(kind: str, section_id: int | None = None, **texts: str) -> str:
    params = {} if section_id is None else {"section_id": section_id, **texts}
    return json.dumps({"thought": f"{kind} {section_id}", "action": kind, "params": params})


def efficient(state: dict[str, Any]) -> str:
    """Outline, then per section: draft, review, refine when sent back; finish when all are completed.
    Shown whole texts (``--tool-text policy``), it passes them on with review and refine."""
    if state["outline"] == "no outline yet":
        return decide("outline")
    for s in state["outline"]:
        action = {"pending": "draft", "drafted": "review", "revision_needed": "refine"}.get(s["status"])
        if action:
            texts = {"review": ("content",), "refine": ("content", "feedback")}.get(action, ())
            return decide(action, s["section_id"], **{key: s[key] for key in texts if key in s})
    return decide("finish")


def model(policy: Callable[[int, dict[str, Any]], Any]) -> Callable[[list[dict[str, str]]], Any]:
    """One scripted candidate answering the policy's turns with `policy(turn, state)` and the tools with `tools`."""

    def answer(messages: list[dict[str, str]]) -> Any:
        if is_policy(messages):
            turn, state, _ = policy_state(messages)
            return policy(turn, state)
        return tools(messages)

    return answer

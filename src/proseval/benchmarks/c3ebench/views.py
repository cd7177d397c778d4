"""What the viewer shows of a C3EBench sample: for an Edit item, the word diff from the draft it
asks to revise (``input.content``) to the output. Registered as the task's `views` hook; plain
data, the viewer escapes it."""

from __future__ import annotations

from typing import Any

from proseval import kit


def draft_of(target: Any) -> str | None:
    """The draft an Edit item asks to revise, when the target is one."""
    if not isinstance(target, dict) or target.get("task") != "edit" or not isinstance(target.get("input"), dict):
        return None
    inner = target["input"]
    for candidate in (inner.get("draft"), inner.get("content")):
        if isinstance(candidate, str) and candidate.strip():
            return candidate
    return None


def sample_views(record: dict[str, Any]) -> list[kit.views.ViewBlock]:
    draft = draft_of(record.get("target"))
    output = (record.get("state") or {}).get("output")
    if draft is None or not isinstance(output, str) or not output.strip() or output == draft:
        return []
    return [
        kit.views.ViewBlock(
            "diff",
            "Draft → revision",
            {
                "segments": kit.views.word_diff(draft, output),
                "note": "Word differences from the draft to the output: removed words struck through on red, "
                "added words on green.",
            },
        )
    ]

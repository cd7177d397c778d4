"""What the viewer shows of a WritingBench sample: each criterion's verdict (score, status and the
judge's reason) from the score's ``metadata.criteria``. Registered as the `views` hook of the
tasks that judge by criteria; plain data, the viewer escapes it."""

from __future__ import annotations

from typing import Any

from proseval import kit


def verdicts(metadata: Any) -> dict[str, dict[str, Any]]:
    """The per-criterion verdicts a score keeps (``criteria: {name: {score, reason, status, ...}}``), or {}."""
    found = metadata.get("criteria") if isinstance(metadata, dict) else None
    if not isinstance(found, dict) or not all(isinstance(v, dict) and "score" in v for v in found.values()):
        return {}
    return found


def sample_views(record: dict[str, Any]) -> list[kit.views.ViewBlock]:
    blocks = []
    for name, score in (record.get("scores") or {}).items():
        found = verdicts(score.get("metadata") if isinstance(score, dict) else None)
        if not found:
            continue
        rows = [
            [
                criterion,
                v.get("score"),
                v.get("status", ""),
                {"text": v.get("reason") or v.get("error") or "", "pre": True},
            ]
            for criterion, v in found.items()
        ]
        blocks.append(
            kit.views.ViewBlock(
                "table",
                f"Criteria ({name}): {len(rows)}",
                {"columns": ["criterion", "score (1-10)", "status", "reason"], "rows": rows, "class": "criteria"},
            )
        )
    return blocks

"""What the viewer shows of a Revision Distance sample: for each score that lists its edits, the
text they apply to with each edit's original snippet marked where it is found, and the edits as a
table; and the word diff from the draft to the output when the two differ. Registered as the
`views` hook of the tasks and of the `revision-distance` scorer plug-in (a re-scored run of any
task shows its edits too); plain data, the viewer escapes it."""

from __future__ import annotations

from typing import Any

from proseval import kit


def sample_views(record: dict[str, Any]) -> list[kit.views.ViewBlock]:
    return [*revision_diff(record), *edit_views(record)]


def edit_views(record: dict[str, Any]) -> list[kit.views.ViewBlock]:
    """The edits of each score that keeps them (``metadata.edits``), marked in the text they edit:
    the target's text named by the score's suffix (``distance_rejected`` → ``target.rejected``),
    else the output, else the draft."""
    target = found if isinstance(found := record.get("target"), dict) else {}
    output = ((record.get("state") or {}).get("output")) or ""
    blocks = []
    for name, score in (record.get("scores") or {}).items():
        edits = (score.get("metadata") or {}).get("edits") if isinstance(score, dict) else None
        if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
            continue
        suffix = name.rsplit("_", 1)[-1]
        text = target.get(suffix) if isinstance(target.get(suffix), str) and suffix != "draft" else None
        text = text if text is not None else output or target.get("draft") or ""
        segments, missing = kit.views.highlight(text, [str(e.get("original_snippet") or "") for e in edits])
        blocks.append(
            kit.views.ViewBlock(
                "marked",
                f"Edits ({name}): {len(edits)}",
                {
                    "segments": segments,
                    "class": "edited",
                    "note": "Each edit's original snippet is marked where it was found in the text.",
                },
            )
        )
        rows = []
        for number, edit in enumerate(edits):
            found = "no" if number in missing else "yes"
            grounding = edit.get("grounding")
            rows.append(
                [
                    number + 1,
                    edit.get("action_name"),
                    edit.get("revision_level"),
                    {"text": edit.get("original_snippet"), "quote": True},
                    {"text": edit.get("revised_snippet"), "quote": True},
                    {"text": found, "small": None if "grounding" not in edit else f"grounding {_num(grounding)}"},
                ]
            )
        blocks.append(
            kit.views.ViewBlock(
                "table",
                "",
                {"columns": ["#", "action", "level", "original", "revised", "found"], "rows": rows, "class": "edits"},
            )
        )
    return blocks


def revision_diff(record: dict[str, Any]) -> list[kit.views.ViewBlock]:
    """The word diff from the sample's draft (``target.draft``) to its output, when both exist and differ."""
    target = record.get("target")
    draft = target.get("draft") if isinstance(target, dict) else None
    output = (record.get("state") or {}).get("output")
    if (
        not isinstance(draft, str)
        or not draft.strip()
        or not isinstance(output, str)
        or not output.strip()
        or output == draft
    ):
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


def _num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "–" if value is None else str(value)

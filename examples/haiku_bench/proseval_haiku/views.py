"""The haiku's own sample view in `proseval view`: its syllables line by line against 5-7-5, and the
theme marked where the haiku names it. Registered with ``@kit.task(..., views=...)``; it returns
plain data (`kit.views.ViewBlock`s, kinds in docs/viewer.md) and the viewer escapes every text."""

from __future__ import annotations

from typing import Any

from proseval import kit
from proseval_haiku.form import line_syllables

WANTED = (5, 7, 5)


def sample_views(record: dict[str, Any]) -> list[kit.views.ViewBlock]:
    """`record` is the sample's line of samples.jsonl, as a dict (a failed sample has no state)."""
    output = (record.get("state") or {}).get("output") or ""
    if not output.strip():
        return []
    lines = [line for line in output.strip().splitlines() if line.strip()]
    counts = line_syllables(output)
    rows, marks = [], []
    for number, (line, count) in enumerate(zip(lines, counts)):
        wanted = WANTED[number] if number < len(WANTED) else None
        rows.append([line, count, wanted])
        # exact: passed; one off: passes unless --strict (no colour); further off, or a fourth line: failed
        marks.append("passed" if count == wanted else None if wanted and abs(count - wanted) == 1 else "failed")
    blocks = [kit.views.ViewBlock("table", "Syllables per line", {
        "columns": ["line", "syllables", "wanted"], "rows": rows, "row_class": marks, "class": "syllables",
        "note": "A rough count (vowel groups); the form check allows one syllable off per line unless --strict."})]
    theme = (record.get("target") or {}).get("theme") if isinstance(record.get("target"), dict) else None
    if isinstance(theme, str) and theme:
        segments, missing = kit.views.highlight(output, [theme])
        blocks.append(kit.views.ViewBlock("marked", "The theme in the haiku", {
            "segments": segments, "class": "theme",
            "note": f"“{theme}” does not appear word for word." if missing else f"“{theme}” is marked."}))
    return blocks

"""Pure text helpers for showing changes and places in a text: a word diff and highlighting.

They return ``(kind, text)`` segments, never markup: a benchmark's sample view
(`core.views.ViewBlock`, kinds ``diff`` and ``marked``) hands them to the viewer, whose template
wraps each segment in its element and escapes the text.
"""

from __future__ import annotations

import difflib
import re

Segment = tuple[str, str]  # ("equal" | "insert" | "delete" | "mark" | "plain", text)

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)
MAX_DIFF_TOKENS = 40_000  # past this a word diff gets slow; compare lines instead


def word_diff(old: str, new: str) -> list[Segment]:
    """Word-level differences from `old` to `new` (whitespace and punctuation are tokens too):
    ``equal``, ``delete`` and ``insert`` segments whose texts put together give both texts.

    Changes separated only by whitespace are shown as one removal and one addition, which reads
    better than alternating single words."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    if len(a) + len(b) > MAX_DIFF_TOKENS:
        a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    out: list[Segment] = []
    removed, added = "", ""
    for number, (op, i1, i2, j1, j2) in enumerate(opcodes):
        kept = "".join(a[i1:i2])
        between = 0 < number < len(opcodes) - 1 and not kept.strip()
        if op == "equal" and not (between and (removed or added)):
            out += [(kind, text) for kind, text in (("delete", removed), ("insert", added)) if text]
            removed, added = "", ""
            out.append(("equal", kept))
            continue
        removed += kept
        added += "".join(b[j1:j2])
    out += [(kind, text) for kind, text in (("delete", removed), ("insert", added)) if text]
    return out


def locate(text: str, snippet: str, start: int = 0) -> int:
    """Where `snippet` is in `text` (exactly, else ignoring case), or -1."""
    if not snippet:
        return -1
    found = text.find(snippet, start)
    if found < 0 and len(text.lower()) == len(text):
        found = text.lower().find(snippet.lower(), start)
    return found


def highlight(text: str, snippets: list[str]) -> tuple[list[Segment], list[int]]:
    """`text` split into ``plain`` and ``mark`` segments, one mark per snippet found (first free
    occurrence, no overlaps); also the indexes of the snippets not found."""
    spans: list[tuple[int, int, int]] = []
    missing = []
    for number, snippet in enumerate(snippets):
        position, placed = 0, False
        while (found := locate(text, snippet, position)) >= 0:
            end = found + len(snippet)
            if all(end <= s or found >= e for s, e, _ in spans):
                spans.append((found, end, number))
                placed = True
                break
            position = found + 1
        if not placed:
            missing.append(number)
    segments: list[Segment] = []
    cursor = 0
    for start, end, _ in sorted(spans):
        if start > cursor:
            segments.append(("plain", text[cursor:start]))
        segments.append(("mark", text[start:end]))
        cursor = end
    if cursor < len(text):
        segments.append(("plain", text[cursor:]))
    return segments, missing

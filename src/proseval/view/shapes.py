"""What the sample page shows, as plain data for the templates (which escape every text).

Texts are never turned into HTML here: a diff or a highlighted draft is a list of
``(kind, text)`` segments, and the template wraps each in its element.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

Segment = tuple[str, str]  # ("equal" | "insert" | "delete" | "mark" | "plain", text)

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)
MAX_DIFF_TOKENS = 40_000  # past this a word diff gets slow; compare lines instead
RAW_KEYS = ("raw", "raw_answer", "reply", "judge_reply", "judge_raw", "response")


def word_diff(old: str, new: str) -> list[Segment]:
    """Word-level differences from `old` to `new` (whitespace and punctuation are tokens too).

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
    """`text` split into plain and marked segments, one mark per snippet found (first free occurrence,
    no overlaps); also the indexes of the snippets not found."""
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


def edit_views(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Revision Distance edits of each score that lists them, highlighted in the text they edit."""
    target = record.get("target") if isinstance(record.get("target"), dict) else {}
    output = ((record.get("state") or {}).get("output")) or ""
    views = []
    for name, score in (record.get("scores") or {}).items():
        edits = (score.get("metadata") or {}).get("edits") if isinstance(score, dict) else None
        if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
            continue
        suffix = name.rsplit("_", 1)[-1]
        text = target.get(suffix) if isinstance(target.get(suffix), str) and suffix != "draft" else None
        text = text if text is not None else output or target.get("draft") or ""
        snippets = [str(e.get("original_snippet") or "") for e in edits]
        segments, missing = highlight(text, snippets)
        views.append({"score": name, "segments": segments, "edits": edits, "missing": set(missing)})
    return views


def draft_of(record: dict[str, Any]) -> str | None:
    """The draft a sample asks to revise, when it has one (a ``draft`` field, or an edit item's text)."""
    target = record.get("target")
    if not isinstance(target, dict):
        return None
    inner = target.get("input") if isinstance(target.get("input"), dict) else {}
    for candidate in (target.get("draft"), inner.get("draft"),
                      inner.get("content") if target.get("task") == "edit" else None):
        if isinstance(candidate, str) and candidate.strip():
            return candidate
    return None


def revision_diff(record: dict[str, Any]) -> list[Segment] | None:
    """The word diff from the sample's draft to its output, when both exist and differ."""
    draft = draft_of(record)
    output = (record.get("state") or {}).get("output")
    if draft is None or not isinstance(output, str) or not output.strip() or output == draft:
        return None
    return word_diff(draft, output)


def raw_answers(metadata: dict[str, Any]) -> list[tuple[str, str]]:
    """The judge's raw answers kept in a score's metadata (top level, or per criterion)."""
    found = [(key, value) for key, value in metadata.items() if key in RAW_KEYS and isinstance(value, str)]
    for group in metadata.values():
        if isinstance(group, dict):
            for label, entry in group.items():
                if isinstance(entry, dict):
                    found += [(f"{label}: {k}", v) for k, v in entry.items() if k in RAW_KEYS and isinstance(v, str)]
    return found


def criteria(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-criterion verdicts a score keeps (``criteria: {name: {score, reason, status, ...}}``)."""
    found = metadata.get("criteria")
    if not isinstance(found, dict) or not all(isinstance(v, dict) and "score" in v for v in found.values()):
        return []
    return [{"name": name, "score": v.get("score"), "status": v.get("status", ""),
             "reason": v.get("reason") or v.get("error") or ""} for name, v in found.items()]


def is_trajectory(turns: list[Any]) -> bool:
    return bool(turns) and all(isinstance(t, dict) and "step" in t and "outcome" in t for t in turns)


def is_rounds(turns: list[Any]) -> bool:
    return bool(turns) and all(isinstance(t, dict) and "round" in t and "answer" in t for t in turns)


def rounds_view(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Meeseeks rounds, each with the word diff of its answer against the previous round's."""
    views = []
    previous = None
    for turn in turns:
        answer = turn.get("answer") if isinstance(turn.get("answer"), str) else ""
        views.append({**turn, "answer": answer,
                      "changes": word_diff(previous, answer) if previous is not None and previous != answer else None})
        previous = answer
    return views


def trajectory_view(record: dict[str, Any]) -> list[dict[str, Any]]:
    """RAVEL steps, each with the manuscript after it and, for a rewrite, the diff of its section.

    The manuscripts are rebuilt by replaying the stored tool answers; when that is not possible
    (an unknown layout), the steps are shown without them.
    """
    turns = (record.get("state") or {}).get("turns") or []
    states = _replay(record)
    views = []
    for number, turn in enumerate(turns):
        view = {**turn, "manuscript": None, "section_diff": None}
        if states is not None:
            from ..benchmarks.ravel import state as st

            after = states[number]
            view["manuscript"] = st.manuscript(after)
            section = turn.get("section_id")
            before = states[number - 1] if number else None
            if (turn.get("action") in ("draft", "refine") and turn.get("outcome") == "success"
                    and isinstance(section, int) and before is not None and section < before.n
                    and before.section(section).content):
                view["section_diff"] = word_diff(before.section(section).content, after.section(section).content)
        views.append(view)
    return views


def _replay(record: dict[str, Any]) -> list[Any] | None:
    try:
        from ..benchmarks.c3ebench.task import from_target
        from ..benchmarks.ravel import state as st
        from ..benchmarks.ravel.env import Step, replay
        from ..benchmarks.ravel.task import episode_start

        state = record["state"]
        steps = [Step.model_validate(t) for t in state["turns"]]
        settings = st.Settings.model_validate(state["metadata"]["settings"])
        return replay(episode_start(from_target(record["target"])), steps, settings)
    except Exception:  # noqa: BLE001 - another layout: the steps are shown as recorded
        return None

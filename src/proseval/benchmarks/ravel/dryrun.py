"""RAVEL's own replies in a dry run (`Task.dry_run_reply`): a complete trajectory, counted per role.

A dry run's generic reply to the policy is filler words: no valid action, so no tool would ever
be called. Here each request gets a reply of its output estimate's size in the shape its reader
accepts:

- the policy reads the state its turn shows and works section by section, in outline order:
  outline first; then draft a pending section, review a drafted one, refine one a review sent
  back while it has refinements left (the revision cap; with no cap, `UNCAPPED_REFINES`). Once
  every section is completed it drafts the lowest-scored one again. It never finishes: every
  episode takes every step the limit allows. With ``--tool-text policy`` it passes the texts on.
  A turn whose prompt shows no state (a replaced ``policy_turn``) gets the generic filler.
- the planner outlines `OUTLINE_SECTIONS` sections (at most ``--max-sections``), its filler
  spread over their points; the writer answers a text and a short summary; the reviser a text;
- the reviewer scores one point below the pass mark τ (0 at least), so every section takes every
  refinement the cap allows, and its last review closes it (at τ = 0 every review passes).

So, per episode: the policy's calls are T_max (an upper bound); every step calls one tool but
the steps the official cap skips (``--compat official``), so the tools' calls add up to at most
T_max too (an upper bound on their sum); the reviewer and the reviser are called as often as a
failing review allows (an upper bound per section), the planner once and the writer once per
section reached (typical). The scripted protocols (``--protocol fixed`` …) ask the same tools.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.actions import TEXT_PARAMS
from proseval.benchmarks.ravel.episode import turn_parts
from proseval.benchmarks.ravel.tools import SCORE_HIGH, SCORE_LOW, json_objects
from proseval.kit import Message
from proseval.kit.measures import count_tokens

# The median outline length |O| over the models of the paper's Table 2 (5.8 to 15.5 sections).
OUTLINE_SECTIONS = 7
UNCAPPED_REFINES = 3  # refinements per section with no revision cap: the default cap
SUMMARY_TOKENS = 40  # a writer's summary (the parser keeps 500 characters)
FILLER = "word"  # one cl100k token, and one more per repetition after a space

Reply = Callable[[str, list[Message], int, str], "str | None"]


def filler(tokens: int) -> str:
    """Text of about `tokens` cl100k tokens (at least one)."""
    return " ".join([FILLER] * max(1, tokens))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _room(frame: Any, tokens: int) -> int:
    """The tokens left for text once `frame` (the reply with empty texts) is counted."""
    return max(1, tokens - count_tokens(_dumps(frame)))


def outline_reply(tokens: int, max_sections: int | None) -> str:
    n = OUTLINE_SECTIONS if max_sections is None else min(OUTLINE_SECTIONS, max_sections)
    sections = [{"title": f"Section {i + 1}", "points": [""]} for i in range(n)]
    frame = {"title": "Dry run", "sections": sections}
    share = max(1, _room(frame, tokens) // n)
    for section in sections:
        section["points"] = [filler(share)]
    return _dumps(frame)


def draft_reply(tokens: int) -> str:
    summary = filler(min(SUMMARY_TOKENS, max(1, tokens // 10)))
    return _dumps({"content": filler(_room({"content": "", "summary": summary}, tokens)), "summary": summary})


def review_reply(tokens: int, tau: float) -> str:
    score = max(SCORE_LOW, tau - 1.0)
    return _dumps({"score": score, "feedback": filler(_room({"score": score, "feedback": ""}, tokens))})


def refine_reply(tokens: int) -> str:
    changes = "rewritten from the feedback"
    return _dumps({"content": filler(_room({"content": "", "changes": changes}, tokens)), "changes": changes})


def shown_state(messages: list[Message]) -> dict[str, Any] | None:
    """The state the policy's turn shows (the JSON object with the topic and the outline)."""
    users = [m for m in messages if m.get("role") == "user"]
    if not users:
        return None
    return next((v for v in json_objects(users[-1].get("content", "")) if "topic" in v and "outline" in v), None)


def _score(section: dict[str, Any]) -> float:
    score = section.get("score")
    return float(score) if isinstance(score, (int, float)) else SCORE_HIGH + 1


def next_action(view: dict[str, Any], refines: int) -> tuple[str, dict[str, Any] | None]:
    """The action and the section it acts on (module text)."""
    outline = view.get("outline")
    if not isinstance(outline, list) or not outline:
        return "outline", None
    for section in outline:
        status = section.get("status")
        if status == "pending":
            return "draft", section
        if status == "drafted":
            return "review", section
        if status == "revision_needed" and section.get("revisions", 0) < refines:
            return "refine", section
    return "draft", min(outline, key=lambda s: (_score(s), s.get("section_id", 0)))


def policy_reply(view: dict[str, Any], tokens: int, settings: st.Settings, texts: bool) -> str:
    refines = UNCAPPED_REFINES if settings.revision_cap is None else settings.revision_cap
    action, section = next_action(view, refines)
    params: dict[str, Any] = {}
    if section is not None:
        params["section_id"] = section.get("section_id")
        for key in TEXT_PARAMS.get(action, ()) if texts else ():
            params[key] = str(section.get(key, ""))
    decision = {"thought": "", "action": action, "params": params}
    decision["thought"] = filler(_room(decision, tokens))
    return _dumps(decision)


def dry_run_reply(settings: st.Settings, texts_from_policy: bool = False) -> Reply:
    """The task's `dry_run_reply`: the policy's and the tools' replies; None (generic) for the judge."""

    def reply(role: str, messages: list[Message], tokens: int, turn: str) -> str | None:
        parts = turn_parts(turn)
        who = parts[1] if parts is not None else None
        if who == "policy":
            view = shown_state(messages)
            return None if view is None else policy_reply(view, tokens, settings, texts_from_policy)
        if who == "planner":
            return outline_reply(tokens, settings.max_sections)
        if who == "writer":
            return draft_reply(tokens)
        if who == "reviewer":
            return review_reply(tokens, settings.tau)
        if who == "reviser":
            return refine_reply(tokens)
        return None

    return reply

"""The fixed protocols of the ablations (pure): the next decision as a function of the state.

- ``fixed``: outline, then section by section in order: draft → review → (refine → review)*
  until the review passes or the revision cap closes the section; then finish.
- ``no_review``: outline, draft every section, finish.
- ``no_refine``: outline, draft and review every section once, finish.

If the outline action fails, the episode finishes (there is nothing to write).
"""

from __future__ import annotations

from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.actions import ActionName, Decision

SCRIPTED: tuple[str, ...] = ("fixed", "no_review", "no_refine")


def _on(action: ActionName, section: st.Section) -> Decision:
    return Decision(action, {"section_id": section.id}, f"{action} section {section.id}")


def next_decision(protocol: str, episode: st.Episode, outline_tried: bool) -> Decision:
    if episode.n == 0:
        return Decision("finish", {}, "no outline") if outline_tried else Decision("outline", {}, "plan")
    for section in episode.sections:
        if section.status == "pending":
            return _on("draft", section)
        if protocol == "no_review":
            continue
        if section.status == "drafted" and (protocol == "fixed" or section.score is None):
            return _on("review", section)
        if section.status == "revision_needed" and protocol == "fixed":
            return _on("refine", section)
    return Decision("finish", {}, "every section handled")

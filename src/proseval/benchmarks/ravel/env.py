"""One step of the environment, split around the tool call (pure): `prepare` checks a decision
against the state and says which tool it needs; `apply` turns the tool's parsed answer into
the next state. `replay` re-applies a stored trajectory, so a run can be shown step by step.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.actions import Decision
from proseval.benchmarks.ravel.tools import Outline, Review, Text

# skipped: a review or refine the official revision cap blocks (``--compat official``): no tool runs.
Outcome = Literal["success", "failed", "finish", "skipped"]
# Why a step failed: the policy's answer is not a valid decision; the state does not allow the
# action; the tool's answer cannot be used.
Failure = Literal["decision", "state", "tool"]
TOOL_OF = {"outline": "planner", "draft": "writer", "review": "reviewer", "refine": "reviser"}


class ToolCall(BaseModel):
    role: str  # the tool role (planner, writer, reviewer, reviser)
    bound_to: str  # the role whose model answered (the tool role, or the policy's when not bound apart)
    reply: str = ""
    finish_reason: str | None = None
    read_as: str | None = None
    output: dict[str, Any] | None = None  # the parsed answer the state was updated with


class Step(BaseModel):
    """One decision and everything it caused: the trajectory's unit, stored in the run log."""

    step: int  # 1-based
    source: Literal["policy", "scripted"]
    reply: str | None = None  # the policy's raw answer
    finish_reason: str | None = None
    decision: dict[str, Any] | None = None  # the validated {thought, action, params}
    action: str | None = None
    section_id: int | None = None
    outcome: Outcome
    failure: Failure | None = None  # set when the outcome is "failed"
    error: str = ""
    tool: ToolCall | None = None
    score: float | None = None  # a review's score
    score_before: float | None = None  # a refine's section score before it
    status_after: str | None = None  # the acted-on section's status after the step
    diff: dict[str, Any] = Field(default_factory=dict)


def prepare(episode: st.Episode, decision: Decision, settings: st.Settings) -> str | None:
    """The tool role the decision needs (None: finish, or a review/refine the official cap blocks).
    Raises `TransitionError` when the state does not allow the action."""
    if decision.action == "outline":
        return "planner"
    if decision.action == "finish":
        return None
    section = st.check_id(episode, decision.params["section_id"])
    if decision.action in ("review", "refine") and st.blocked_by_cap(section, settings):
        return None
    if decision.action == "review":
        st.can_review(section)
    elif decision.action == "refine":
        st.can_refine(section)
    return TOOL_OF[decision.action]


def apply(
    episode: st.Episode, decision: Decision, output: Outline | Text | Review | None, settings: st.Settings
) -> tuple[st.Episode, Outcome]:
    """The next state. `output` is the tool's parsed answer (None when no tool ran: finish, or a
    review/refine the official cap blocked)."""
    action = decision.action
    if action == "finish":
        return st.apply_finish(episode), "finish"
    if action == "outline":
        assert isinstance(output, Outline)
        return st.apply_outline(episode, output.title, output.sections), "success"
    section_id = decision.params["section_id"]
    if output is None:
        return st.apply_cap(episode, section_id, settings), "skipped"
    if action == "draft":
        assert isinstance(output, Text)
        reset = settings.compat == "official"
        return st.apply_draft(episode, section_id, output.content, output.summary, reset_revisions=reset), "success"
    if action == "review":
        assert isinstance(output, Review)
        return st.apply_review(episode, section_id, output.score, output.feedback, settings), "success"
    assert isinstance(output, Text)
    return st.apply_refine(episode, section_id, output.content), "success"


def output_dict(output: Outline | Text | Review) -> dict[str, Any]:
    if isinstance(output, Outline):
        return {"title": output.title, "sections": [{"title": t, "points": list(p)} for t, p in output.sections]}
    if isinstance(output, Review):
        return {"score": output.score, "feedback": output.feedback}
    return {"content": output.content, "summary": output.summary}


def output_from(action: str, data: dict[str, Any]) -> Outline | Text | Review:
    if action == "outline":
        return Outline(data["title"], [(s["title"], list(s["points"])) for s in data["sections"]])
    if action == "review":
        return Review(float(data["score"]), data["feedback"])
    return Text(data["content"], data.get("summary", ""))


def replay(episode: st.Episode, steps: list[Step], settings: st.Settings) -> list[st.Episode]:
    """The state after each stored step, rebuilt from the recorded tool answers alone."""
    states = []
    for step in steps:
        if step.outcome in ("success", "finish", "skipped") and step.decision is not None:
            decision = Decision(step.decision["action"], step.decision["params"], step.decision.get("thought", ""))
            output = output_from(decision.action, step.tool.output) if step.tool and step.tool.output else None
            episode, _ = apply(episode, decision, output, settings)
        states.append(episode)
    return states

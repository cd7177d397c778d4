"""The episode loop: the policy (or a fixed protocol) decides, a tool model acts, the state moves on.

A checkpoint (the state and every step so far) is saved after each step, so an interrupted run
resumes the episode from its last completed step. A request that still fails after the
executor's retries (policy or tool) is an infrastructure failure: it is raised, the sample is
recorded as failed, and ``resume --retry-failed`` continues it from the checkpoint. Everything the
models answer, however malformed, is a step of the trajectory.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.actions import Decision, Invalid, parse_decision
from proseval.benchmarks.ravel.env import Step, ToolCall, apply, output_dict, prepare
from proseval.benchmarks.ravel.schemas import decision_format, tool_format
from proseval.benchmarks.ravel.scripted import next_decision
from proseval.benchmarks.ravel.tools import (
    ToolError,
    parse_draft,
    parse_outline,
    parse_refinement,
    parse_review,
)
from proseval.kit import SampleContext

POLICY_ROLE = "candidate"
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese (简体中文)"}
CHECKPOINT_VERSION = 1
CAPPED = "not run: the section has used its {cap} revisions and is closed as it is"
_TURN = re.compile(r"step(\d+):(\w+)")


def turn_name(step: int, who: str) -> str:
    """The turn of a step's request: who asks (``policy``, or the tool) at which step."""
    return f"step{step}:{who}"


def turn_parts(turn: str) -> tuple[int, str] | None:
    """(step, who) of a `turn_name`; None for any other turn (the judge's)."""
    match = _TURN.fullmatch(turn)
    return (int(match.group(1)), match.group(2)) if match else None


@dataclass(frozen=True)
class Setup:
    settings: st.Settings
    protocol: str  # agent | fixed | no_review | no_refine
    structured_policy: bool = False  # ask the policy for schema-constrained JSON (response_format)
    structured_tools: bool = False  # the same for the planner, writer, reviewer and reviser
    tool_text: str = "state"  # policy: review and refine use the texts the policy passes (official)

    @property
    def texts_from_policy(self) -> bool:
        return self.tool_text == "policy"


def tool_role(ctx: SampleContext, tool: str) -> str:
    """The role a tool's calls go to: its own when bound, else the policy's."""
    return tool if ctx.has_role(tool) else POLICY_ROLE


def policy_view(episode: st.Episode, full_texts: bool = False) -> str:
    """The state as the policy sees it: sections with status, score, feedback, revisions and summary
    (with `full_texts`, each section's whole text and feedback, for the policy to pass on)."""
    view: dict[str, Any] = {
        "topic": episode.topic,
        "style_guide": episode.style_guide,
        "title": episode.title,
        "outline": [],
    }
    for s in episode.sections:
        entry: dict[str, Any] = {
            "section_id": s.id,
            "title": s.title,
            "points": list(s.points),
            "status": s.status,
            "revisions": s.revisions,
        }
        if s.content:
            entry["words"] = len(s.content.split())
            entry["summary"] = s.summary
            if full_texts:
                entry["content"] = s.content
        if s.score is not None:
            entry["score"] = s.score
            entry["feedback"] = s.feedback if full_texts else s.feedback[:400]
        view["outline"].append(entry)
    if not episode.sections:
        view["outline"] = "no outline yet"
    return json.dumps(view, ensure_ascii=False, indent=2)


def history_view(steps: list[Step], window: int) -> str:
    if window == 0 or not steps:
        return "(none)" if window else "(not shown)"
    lines = []
    for step in steps[-window:]:
        what = step.action or "invalid answer"
        if step.section_id is not None:
            what += f" section {step.section_id}"
        result = step.outcome + (f": {step.error}" if step.error else "")
        if step.score is not None:
            result += f" (score {step.score:g}, now {step.status_after})"
        elif step.status_after:
            result += f" (now {step.status_after})"
        lines.append(f"- step {step.step}: {what} -> {result}")
    return "\n".join(lines)


def cap_rule(settings: st.Settings) -> str:
    if settings.revision_cap is None:
        return "There is no limit on refinements."
    if settings.compat == "official":
        return (
            f"Each section can be refined at most {settings.revision_cap} times; after that, a review or "
            "refine of it closes it as it is."
        )
    return (
        f"Each section can be refined at most {settings.revision_cap} times; a review after the last "
        "refinement completes it whatever its score."
    )


def section_rule(settings: st.Settings) -> str:
    """The planner's rule on the outline's length."""
    if settings.max_sections is None:
        return "use as many sections as the text needs."
    cap = settings.max_sections
    return f"use at most {cap} section{'' if cap == 1 else 's'}."


def policy_messages(ctx: SampleContext, episode: st.Episode, steps: list[Step], setup: Setup) -> list[dict]:
    settings, k = setup.settings, len(steps) + 1
    template = "policy_system_texts" if setup.texts_from_policy else "policy_system"
    system = ctx.prompt(template).render(
        tau=f"{settings.tau:g}", cap_rule=cap_rule(settings), max_steps=settings.max_steps
    )
    state = policy_view(episode, full_texts=setup.texts_from_policy)
    user = ctx.prompt("policy_turn").render(
        step=k,
        max_steps=settings.max_steps,
        steps_left=settings.max_steps - k,
        state=state,
        history=history_view(steps, settings.history_window),
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _points(section: st.Section) -> str:
    return "\n".join(f"- {p}" for p in section.points) or "- (none given)"


def tool_messages(ctx: SampleContext, episode: st.Episode, decision: Decision, setup: Setup) -> list[dict]:
    """The tool's prompt; review and refine send the stored text and feedback, or with
    ``--tool-text policy`` the ones in the decision's params (validated as text)."""
    settings = setup.settings
    common = {"topic": episode.topic, "style_guide": episode.style_guide}
    language = LANGUAGE_NAMES.get(episode.language, episode.language)
    if decision.action == "outline":
        text = ctx.prompt("planner").render(**common, language=language, section_rule=section_rule(settings))
        return [{"role": "user", "content": text}]
    section = episode.section(decision.params["section_id"])
    texts = decision.params if setup.texts_from_policy else {"content": section.content, "feedback": section.feedback}
    if decision.action == "draft":
        previous = next((s.summary for s in reversed(episode.sections[: section.id]) if s.summary), "")
        text = ctx.prompt("writer").render(
            **common,
            language=language,
            title=episode.title,
            section_title=section.title,
            points=_points(section),
            previous_summary=previous or "(this is the first section)",
        )
    elif decision.action == "review":
        text = ctx.prompt("reviewer").render(
            **common,
            section_title=section.title,
            points=_points(section),
            content=texts["content"],
            tau=f"{settings.tau:g}",
        )
    else:
        text = ctx.prompt("reviser").render(
            **common,
            language=language,
            section_title=section.title,
            points=_points(section),
            content=texts["content"],
            feedback=texts["feedback"] or "(no feedback)",
        )
    return [{"role": "user", "content": text}]


def parse_tool(action: str, text: str, settings: st.Settings) -> Any:
    if action == "outline":
        return parse_outline(text, settings.max_sections)
    if action == "draft":
        return parse_draft(text)
    if action == "review":
        return parse_review(text)
    return parse_refinement(text)


async def decide(
    ctx: SampleContext, episode: st.Episode, steps: list[Step], setup: Setup
) -> tuple[Decision | Invalid, str | None, str | None]:
    """(the decision, the policy's raw reply, its finish reason); scripted protocols make no call."""
    if setup.protocol != "agent":
        tried = any(s.action == "outline" for s in steps)
        return next_decision(setup.protocol, episode, tried), None, None
    messages = policy_messages(ctx, episode, steps, setup)
    config = decision_format(setup.texts_from_policy) if setup.structured_policy else None
    completion = await ctx.generate(POLICY_ROLE, messages, config, turn=turn_name(len(steps) + 1, "policy"))
    decision = parse_decision(completion.text, episode.n, setup.texts_from_policy)
    return decision, completion.text, completion.finish_reason


async def step_once(
    ctx: SampleContext, episode: st.Episode, steps: list[Step], setup: Setup
) -> tuple[st.Episode, Step]:
    """Decide, act, record: one step of the trajectory."""
    k = len(steps) + 1
    decision, reply, finish_reason = await decide(ctx, episode, steps, setup)
    base: dict[str, Any] = {
        "step": k,
        "source": "policy" if setup.protocol == "agent" else "scripted",
        "reply": reply,
        "finish_reason": finish_reason,
    }
    if isinstance(decision, Invalid):
        raw = decision.raw if isinstance(decision.raw, dict) else None
        action = raw.get("action") if raw and isinstance(raw.get("action"), str) else None
        return episode, Step(**base, action=action, outcome="failed", failure="decision", error=decision.reason)
    base.update(decision=decision.as_dict(), action=decision.action, section_id=decision.section_id)
    try:
        tool = prepare(episode, decision, setup.settings)
    except st.TransitionError as exc:
        return episode, Step(**base, outcome="failed", failure="state", error=str(exc))
    call = output = None
    if tool is not None:
        role = tool_role(ctx, tool)
        config = tool_format(decision.action) if setup.structured_tools else None
        completion = await ctx.generate(
            role, tool_messages(ctx, episode, decision, setup), config, turn=turn_name(k, tool)
        )
        call = ToolCall(role=tool, bound_to=role, reply=completion.text, finish_reason=completion.finish_reason)
        try:
            output = parse_tool(decision.action, completion.text, setup.settings)
        except ToolError as exc:
            return episode, Step(**base, outcome="failed", failure="tool", error=str(exc), tool=call)
        call = call.model_copy(update={"read_as": getattr(output, "read_as", "json"), "output": output_dict(output)})
    before_score = episode.section(decision.section_id).score if decision.section_id is not None else None
    try:
        after, outcome = apply(episode, decision, output, setup.settings)
    except st.TransitionError as exc:  # the tool's answer is not a usable text (e.g. empty)
        return episode, Step(**base, outcome="failed", failure="tool", error=str(exc), tool=call)
    section = after.section(decision.section_id) if decision.section_id is not None and after.n else None
    ran = outcome == "success"
    reviewed = output.score if output is not None and decision.action == "review" else None
    return after, Step(
        **base,
        outcome=outcome,
        tool=call,
        diff=st.diff(episode, after),
        error=CAPPED.format(cap=setup.settings.revision_cap) if outcome == "skipped" else "",
        score=reviewed if ran else None,
        score_before=before_score if ran and decision.action == "refine" else None,
        status_after=section.status if section is not None else None,
    )


def restore(saved: Any) -> tuple[st.Episode, list[Step]] | None:
    if not isinstance(saved, dict) or saved.get("version") != CHECKPOINT_VERSION:
        return None
    return st.Episode.model_validate(saved["episode"]), [Step.model_validate(s) for s in saved["steps"]]


def checkpoint(episode: st.Episode, steps: list[Step]) -> dict[str, Any]:
    return {
        "version": CHECKPOINT_VERSION,
        "episode": episode.model_dump(mode="json"),
        "steps": [s.model_dump(mode="json") for s in steps],
    }


async def run_episode(ctx: SampleContext, start: st.Episode, setup: Setup) -> tuple[st.Episode, list[Step], int]:
    """Play an episode to finish or T_max; (final state, steps, steps restored from a checkpoint)."""
    restored = restore(ctx.load_checkpoint())
    episode, steps = restored if restored is not None else (start, [])
    resumed_at = len(steps)
    while not episode.finished and len(steps) < setup.settings.max_steps:
        episode, step = await step_once(ctx, episode, steps, setup)
        steps.append(step)
        ctx.save_checkpoint(checkpoint(episode, steps))
    return episode, steps, resumed_at

"""What the viewer shows of a RAVEL sample: the trajectory one step at a time, each step with the
manuscript after it (rebuilt by replaying the stored tool answers) and, for a rewrite, the word
diff of its section. Registered as the task's `views` hook; plain data, the viewer escapes it."""

from __future__ import annotations

from typing import Any

from proseval import kit
from proseval.benchmarks._shared.c3e.data import from_target
from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.env import Step, replay
from proseval.benchmarks.ravel.task import episode_start


def is_trajectory(turns: list[Any]) -> bool:
    return bool(turns) and all(isinstance(t, dict) and "step" in t and "outcome" in t for t in turns)


def sample_views(record: dict[str, Any]) -> list[kit.views.ViewBlock]:
    turns = (record.get("state") or {}).get("turns") or []
    if not is_trajectory(turns):
        return []
    states = replay_states(record)
    steps = [_step(number, turn, states) for number, turn in enumerate(turns)]
    return [kit.views.ViewBlock("steps", f"Trajectory ({len(steps)} steps)", {"steps": steps})]


def _step(number: int, turn: dict[str, Any], states: list[st.Episode] | None) -> dict[str, Any]:
    title = f"Step {turn.get('step')}: {turn.get('action') or '(no valid action)'}"
    if turn.get("section_id") is not None:
        title += f" section {turn['section_id']}"
    facts: list[tuple[str, Any] | tuple[str, Any, str]] = []
    decision = turn.get("decision")
    if decision:
        facts.append(("params", decision.get("params")))
        if decision.get("thought"):
            facts.append(("thought", decision["thought"]))
    if turn.get("error"):
        facts.append(("error", turn["error"], "problem"))
    for key, label in (("score", "review score (0-10)"), ("score_before", "score before (0-10)")):
        if turn.get(key) is not None:
            facts.append((label, turn[key]))
    if turn.get("status_after"):
        facts.append(("section status", turn["status_after"]))
    tool = turn.get("tool")
    if tool:
        facts.append(("tool", f"{tool.get('role')} (answered by {tool.get('bound_to')})"))
    blocks: list[kit.views.ViewBlock] = [kit.views.ViewBlock("kv", "", {"items": facts})] if facts else []
    if turn.get("reply") is not None:
        blocks.append(kit.views.ViewBlock("text", "policy reply", {"text": turn["reply"], "folded": True}))
    if tool:
        blocks.append(kit.views.ViewBlock("text", "tool reply", {"text": tool.get("reply"), "folded": True}))
    if turn.get("diff"):
        blocks.append(
            kit.views.ViewBlock("text", "state changes", {"text": turn["diff"], "folded": True, "open": True})
        )
    if states is not None:
        after = states[number]
        before = states[number - 1] if number else None
        section = turn.get("section_id")
        if (
            turn.get("action") in ("draft", "refine")
            and turn.get("outcome") == "success"
            and isinstance(section, int)
            and before is not None
            and section < before.n
            and before.section(section).content
        ):
            changes = kit.views.word_diff(before.section(section).content, after.section(section).content)
            blocks.append(kit.views.ViewBlock("diff", "Section text, before → after", {"segments": changes}))
        blocks.append(
            kit.views.ViewBlock(
                "text",
                f"Manuscript after step {turn.get('step')}",
                {"text": st.manuscript(after), "empty": "(nothing written yet)", "class": "output manuscript"},
            )
        )
    return {"title": title, "status": turn.get("outcome"), "blocks": blocks}


def replay_states(record: dict[str, Any]) -> list[st.Episode] | None:
    """The episode after each step, from the stored tool answers; None for a layout that cannot be
    replayed (the steps are then shown as recorded, without manuscripts)."""
    try:
        state = record["state"]
        steps = [Step.model_validate(t) for t in state["turns"]]
        settings = st.Settings.model_validate(state["metadata"]["settings"])
        return replay(episode_start(from_target(record["target"])), steps, settings)
    except Exception:  # noqa: BLE001 - another layout: the steps are shown as recorded
        return None

"""RAVEL's dry run (`--dry-run`, `proseval profile --dry-run`): the policy's and the tools' stand-in
replies follow a complete trajectory, so each tool role's calls are counted under the model it is
bound to, and the candidate's when it is left to the policy."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.dryrun import dry_run_reply, next_action
from proseval.benchmarks.ravel.tools import parse_draft, parse_outline, parse_refinement, parse_review
from proseval.planning import plan
from proseval.runtime.dryrun import Estimate, estimate_run
from proseval.runtime.roles import RoleRequest
from proseval.tokens import count_tokens

TOOLS = ("planner", "writer", "reviewer", "reviser")
STEPS = 12  # T_max of these runs
EPISODES = 2  # the English End2End items of the fixture data
# Per episode, counted by hand (7 sections, every review below τ, revision cap 3): step 1 outlines;
# section 0 takes 8 steps (draft, review, then refine + review three times, the last review closing
# it at the cap); section 1 the 3 steps left (draft, review, refine).
PER_EPISODE = {"planner": 1, "writer": 2, "reviewer": 5, "reviser": 4}


def estimate(data_dir: Path, roles: dict[str, str], **params: object) -> Estimate:
    settings = {"data_dir": str(data_dir), "language": "en", "max_steps": STEPS, **params}
    planned = plan(
        "ravel", RoleRequest(model="openai/policy", roles={"judge": "openai/judge", **roles}), params=settings
    )
    return asyncio.run(estimate_run(planned.task, planned.bindings))


def requests(result: Estimate) -> dict[str, int]:
    return {role: r.requests for role, r in result.roles.items()}


def test_tools_bound_apart_are_counted_per_role_and_add_up_to_the_step_limit(data_dir):
    result = estimate(data_dir, {tool: f"openai/{tool}-model" for tool in TOOLS})
    assert result.samples == EPISODES and result.errors == 0
    counted = requests(result)
    assert counted == {
        "candidate": EPISODES * STEPS,
        "judge": EPISODES,
        **{tool: EPISODES * n for tool, n in PER_EPISODE.items()},
    }
    assert sum(counted[tool] for tool in TOOLS) == EPISODES * STEPS  # one tool call per policy step
    for tool in TOOLS:
        row = result.roles[tool]
        assert row.spec == f"openai/{tool}-model" and row.input_tokens > 0
        assert row.output_tokens == row.requests * 5000  # the agent's max_tokens


def test_tools_left_to_the_policy_add_their_calls_to_the_candidate(data_dir):
    bound = estimate(data_dir, {"writer": "openai/writer-model"})
    assert set(bound.roles) == {"candidate", "judge", "writer"}
    assert bound.roles["writer"].requests == EPISODES * PER_EPISODE["writer"]
    assert bound.roles["candidate"].requests == EPISODES * (STEPS + STEPS - PER_EPISODE["writer"])

    unbound = estimate(data_dir, {})
    assert requests(unbound) == {"candidate": 2 * EPISODES * STEPS, "judge": EPISODES}


def test_the_official_cap_skips_a_review_and_the_texts_pass_through_the_policy(data_dir):
    """``--compat official``: the review at the cap runs no tool; ``--tool-text policy``: the policy
    copies the texts it is shown into review and refine, which stay valid decisions."""
    official = requests(estimate(data_dir, {tool: "openai/tools" for tool in TOOLS}, compat="official"))
    # section 0: draft, review, (refine, review) × 3 with the last review skipped; section 1: draft, review, refine
    assert {tool: official[tool] // EPISODES for tool in TOOLS} == {
        "planner": 1,
        "writer": 2,
        "reviewer": 4,
        "reviser": 4,
    }
    assert official["candidate"] == EPISODES * STEPS

    texts = estimate(data_dir, {tool: "openai/tools" for tool in TOOLS}, tool_text="policy")
    assert {tool: texts.roles[tool].requests // EPISODES for tool in TOOLS} == PER_EPISODE
    state = estimate(data_dir, {tool: "openai/tools" for tool in TOOLS})
    # the policy echoes whole sections, so its replies stay the same size but its prompts grow
    assert texts.roles["candidate"].input_tokens > state.roles["candidate"].input_tokens


def test_the_tool_replies_read_as_their_parsers_expect_at_the_output_estimate():
    settings = st.Settings(tau=8.0, max_sections=4)
    reply = dry_run_reply(settings)
    outline = parse_outline(reply("candidate", [], 600, "step1:planner"), settings.max_sections)
    assert len(outline.sections) == 4 and all(points for _, points in outline.sections)
    draft = reply("writer", [], 600, "step2:writer")
    assert parse_draft(draft).summary and abs(count_tokens(draft) - 600) <= 10
    assert parse_review(reply("reviewer", [], 300, "step3:reviewer")).score < settings.tau
    assert parse_refinement(reply("reviser", [], 300, "step4:reviser")).read_as == "json"
    assert reply("judge", [], 300, "judge") is None  # the judge keeps the generic reply


def test_the_policy_stand_in_works_section_by_section_and_never_finishes():
    def view(*sections: dict) -> dict:
        return {"topic": "t", "outline": [{"section_id": i, **s} for i, s in enumerate(sections)]}

    assert next_action({"topic": "t", "outline": "no outline yet"}, 3) == ("outline", None)
    done = {"status": "completed", "score": 7.0, "revisions": 3}
    assert next_action(view(done, {"status": "revision_needed", "revisions": 1}), 3)[0] == "refine"
    assert next_action(view(done, {"status": "pending", "revisions": 0}), 3)[0] == "draft"
    # no cap: a section refined three times is left as it is and the next one is drafted
    action, section = next_action(view({"status": "revision_needed", "revisions": 3}, {"status": "pending"}), 3)
    assert (action, section["section_id"]) == ("draft", 1)
    # every section completed: the lowest-scored one is drafted again, never finish
    action, section = next_action(view(done, {**done, "score": 5.0}), 3)
    assert (action, section["section_id"]) == ("draft", 1)
    turn = {"role": "user", "content": "Turn 9 of 12.\n\nCurrent state:\n" + json.dumps(view(done)) + "\n"}
    decision = json.loads(dry_run_reply(st.Settings())("candidate", [turn], 200, "step9:policy"))
    assert decision["action"] == "draft" and decision["params"] == {"section_id": 0}

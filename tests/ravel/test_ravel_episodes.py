"""End to end: scripted policies through `proseval.run`, with the metrics each must produce."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import proseval
from proseval.benchmarks._shared.c3e.data import from_target
from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.env import Step, replay
from proseval.benchmarks.ravel.task import episode_start
from proseval.cli import app
from proseval.models.base import FatalError
from ravel.ravel_fixtures import decide, efficient, model, tools
from support.core import sample_requests

pytestmark = pytest.mark.slow

JUDGE_OK = '{"analysis": {}, "score": 7, "verdict": "solid"}'


def run(tmp_path: Path, data_dir: Path, candidate: str, judge: str, **params):
    settings = {"data_dir": str(data_dir), "language": "en", **params}
    return proseval.run(
        "ravel", model=candidate, roles={"judge": judge}, params=settings, limit=1, out=tmp_path / "runs", cache=False
    )


def only(result):
    records = list(result.records())
    assert len(records) == 1
    return records[0]


def scores(record) -> dict[str, float | None]:
    return {name: score.value for name, score in record.scores.items()}


def test_an_efficient_policy_writes_reviews_refines_and_finishes(tmp_path, data_dir, scripts):
    candidate = scripts("eff", model(lambda turn, state: efficient(state)))
    result = run(tmp_path, data_dir, candidate, scripts("judge", [JUDGE_OK]))
    record = only(result)
    steps = [Step.model_validate(t) for t in record.state.turns]
    assert [(s.action, s.section_id, s.outcome) for s in steps] == [
        ("outline", None, "success"),
        ("draft", 0, "success"),
        ("review", 0, "success"),
        ("draft", 1, "success"),
        ("review", 1, "success"),
        ("refine", 1, "success"),
        ("review", 1, "success"),
        ("finish", None, "finish"),
    ]
    # |T| = 8, n = 2, 3 reviews, one refine raising the review from 6 to 9: ρ = 3/2 (eq. 9 as printed),
    # 1/2 (Table 2 reading), 1/8 per step
    assert scores(record) == {
        "success": 1.0,
        "success_all_completed": 1.0,
        "premature_finish": 0.0,
        "steps": 8.0,
        "outline_len": 2.0,
        "efficiency": 4.0,
        "reviews_per_section": 150.0,
        "refines_per_section": 50.0,
        "refines_per_step": 12.5,
        "refine_delta": 3.0,
        "error_rate": 0.0,
        "tool_error_rate": 0.0,
        "forced_completions": 0.0,
        "judge": 7.0,
    }
    assert record.state.output == (
        "# On Water\n\n## Water\n\nWater text.\n\n## Ice\n\nIce text, revised: it floats because it is less dense.\n"
    )
    # the trajectory is complete: tool answers, diffs, and it replays to the stored final state
    assert steps[2].tool.role == "reviewer" and steps[2].tool.bound_to == "candidate" and steps[2].score == 9
    assert steps[4].diff == {
        "sections": {
            "1": {
                "status": ["drafted", "revision_needed"],
                "score": [None, 6.0],
                "feedback": ["", "say why ice floats"],
            }
        }
    }
    assert steps[0].reply and json.loads(steps[0].reply)["action"] == "outline"
    detail = record.scores["steps"].metadata
    assert (detail["outlines"], detail["executed_actions"], detail["refines"], detail["deltas"]) == (1, 8, 1, [3.0])
    start = episode_start(from_target(record.target))
    settings = st.Settings.model_validate(record.state.metadata["settings"])
    assert replay(start, steps, settings)[-1] == st.Episode.model_validate(record.state.metadata["final_state"])
    assert record.state.metadata["termination"] == "finish" and record.state.metadata["resumed_at_step"] == 0
    extra = result.results.extra["ravel"]["overall"]
    assert (extra["S"], extra["T"], extra["efficiency"], extra["judge"]) == (100.0, 8.0, 4.0, 7.0)
    assert (result.path / "ravel.md").is_file()
    assert (result.path / "ravel_lifecycles.png").read_bytes()[:4] == b"\x89PNG"
    assert result.results.extra["ravel"]["lifecycles"] == [
        {
            "episode": "end2end_en_1",
            "section": 0,
            "first_draft": 2,
            "completed": 3,
            "completion_step": 3,
            "status": "completed",
            "revisions": 0,
        },
        {
            "episode": "end2end_en_1",
            "section": 1,
            "first_draft": 4,
            "completed": 7,
            "completion_step": 7,
            "status": "completed",
            "revisions": 1,
        },
    ]
    assert extra["completion_median"] == 5.0  # (3 + 7) / 2
    # Fig. 4: first drafts at 2 and 4 (median 3), completions at 3 and 7 (median 5): Δ_med = 2
    assert {k: extra["fig4"][k] for k in ("start_median", "end_median", "delta_med")} == {
        "start_median": 3.0,
        "end_median": 5.0,
        "delta_med": 2.0,
    }
    assert "| 3.0 | 5.0 | 2.0 | 0 / 0 |" in (result.path / "ravel.md").read_text()


def test_a_policy_that_never_finishes_stops_at_t_max(tmp_path, data_dir, scripts):
    candidate = scripts("loop", model(lambda turn, state: decide("outline") if turn == 1 else decide("draft", 0)))
    record = only(run(tmp_path, data_dir, candidate, scripts("judge", [JUDGE_OK]), max_steps=6))
    assert len(record.state.turns) == 6 and record.state.metadata["termination"] == "max_steps"
    assert scores(record) == {
        "success": 0.0,
        "success_all_completed": 0.0,
        "premature_finish": 0.0,
        "steps": 6.0,
        "outline_len": 2.0,
        "efficiency": 3.0,
        "reviews_per_section": 0.0,
        "refines_per_section": 0.0,
        "refines_per_step": 0.0,
        "error_rate": 0.0,
        "tool_error_rate": 0.0,
        "forced_completions": 0.0,
        "judge": 7.0,
    }
    # neither section was completed: both at T_max = 6 in the lifecycle
    assert [p["completion_step"] for p in record.scores["steps"].metadata["lifecycles"]] == [6, 6]


MALFORMED = {
    1: "I would start with an outline.",
    2: '{"action": "dance", "params": {}}',
    3: '{"action": "draft", "params": {"section_id": "zero"}}',
    4: '{"action": "draft"}',
    5: '{"action": "draft", "params": [1]}',
    6: decide("draft", 0),
    7: decide("outline"),
    8: decide("draft", 7),
    9: decide("review", 1),
    10: decide("refine", 0),
    11: decide("finish"),
}


def test_malformed_answers_unknown_actions_and_bad_ids_are_failed_actions(tmp_path, data_dir, scripts):
    candidate = scripts("bad", model(lambda turn, state: MALFORMED[turn]))
    judge = scripts("judge", lambda messages: pytest.fail("an empty manuscript is not judged"))
    result = run(tmp_path, data_dir, candidate, judge)
    record = only(result)
    steps = [Step.model_validate(t) for t in record.state.turns]
    assert [s.outcome for s in steps] == ["failed"] * 6 + ["success"] + ["failed"] * 3 + ["finish"]
    errors = [s.error for s in steps if s.outcome == "failed"]
    assert "no JSON object" in errors[0] and "unknown action 'dance'" in errors[1]
    assert "whole number" in errors[2] and "no 'params'" in errors[3] and "must be an object" in errors[4]
    assert "no outline yet" in errors[5] and "valid ids are 0..1" in errors[6]
    assert "no draft to review" in errors[7] and "revision_needed" in errors[8]
    assert steps[1].action == "dance" and steps[0].action is None
    assert [s.failure for s in steps] == ["decision"] * 6 + [None, "decision", "state", "state", None]
    assert record.scores["steps"].metadata["failed_by"] == {"decision": 7, "state": 2}
    shown = CliRunner().invoke(app, ["ravel", "show", str(result.path)]).output
    assert "[  2] dance: failed (decision) — unknown action 'dance'" in shown
    assert "[  9] review section 1: failed (state) — section 1 has no draft to review" in shown
    # 9 of 11 decisions were invalid (ERR); the finish counts for S (eq. 8) but is premature (both sections
    # pending); nothing written: judge 1, no call
    assert scores(record) == {
        "success": 1.0,
        "success_all_completed": 0.0,
        "premature_finish": 1.0,
        "steps": 11.0,
        "outline_len": 2.0,
        "efficiency": 5.5,
        "reviews_per_section": 50.0,  # step 9's review
        "refines_per_section": 0.0,
        "refines_per_step": 0.0,
        "error_rate": pytest.approx(100 * 9 / 11),
        "tool_error_rate": 0.0,
        "forced_completions": 0.0,
        "judge": 1.0,
    }
    assert record.scores["judge"].parse_status == "empty" and record.model_failure == "empty"


def test_a_policy_that_finishes_early(tmp_path, data_dir, scripts):
    plan = {1: decide("outline"), 2: decide("draft", 0), 3: decide("finish")}
    record = only(
        run(tmp_path, data_dir, scripts("early", model(lambda turn, state: plan[turn])), scripts("judge", [JUDGE_OK]))
    )
    assert scores(record) == {
        "success": 1.0,
        "success_all_completed": 0.0,
        "premature_finish": 1.0,
        "steps": 3.0,
        "outline_len": 2.0,
        "efficiency": 1.5,
        "reviews_per_section": 0.0,
        "refines_per_section": 0.0,
        "refines_per_step": 0.0,
        "error_rate": 0.0,
        "tool_error_rate": 0.0,
        "forced_completions": 0.0,
        "judge": 7.0,
    }
    assert st.Episode.model_validate(record.state.metadata["final_state"]).premature


def test_the_revision_cap_closes_a_section_after_its_last_refinement_is_reviewed(tmp_path, data_dir, scripts):
    def harsh(messages):
        if "You review" in messages[-1]["content"]:
            return '{"score": 4, "feedback": "no"}'
        return tools(messages)

    def policy(turn, state):
        if turn == 1:
            return decide("outline")
        s = state["outline"][0]
        if s["status"] == "completed":
            return decide("finish")
        return decide({"pending": "draft", "drafted": "review", "revision_needed": "refine"}[s["status"]], 0)

    candidate = scripts("capped", lambda m: model(policy)(m) if "editor in charge" in m[0]["content"] else harsh(m))
    record = only(run(tmp_path, data_dir, candidate, scripts("judge", [JUDGE_OK]), revision_cap=2))
    steps = [Step.model_validate(t) for t in record.state.turns]
    # outline, draft, review 4, refine, review 4, refine, review 4 -> closed at the cap, finish
    assert [s.action for s in steps] == ["outline", "draft", "review", "refine", "review", "refine", "review", "finish"]
    final = st.Episode.model_validate(record.state.metadata["final_state"])
    assert final.section(0).forced and final.section(0).revisions == 2
    assert scores(record)["forced_completions"] == 1.0 and scores(record)["refine_delta"] == 0.0  # 4 - 4
    assert scores(record)["premature_finish"] == 1.0  # section 1 was never written
    assert record.scores["steps"].metadata["deltas"] == [0.0, 0.0]  # both refines were reviewed

    official = only(
        run(tmp_path, data_dir, candidate, scripts("judge2", [JUDGE_OK]), revision_cap=2, compat="official")
    )
    steps = [Step.model_validate(t) for t in official.state.turns]
    # the same decisions, but the review after the second refine is not run: the section is closed unreviewed
    assert [(s.action, s.outcome) for s in steps][-2:] == [("review", "skipped"), ("finish", "finish")]
    assert steps[-2].tool is None and "used its 2 revisions" in steps[-2].error and steps[-2].score is None
    assert [s.tool.role for s in steps if s.tool] == ["planner", "writer", "reviewer", "reviser", "reviewer", "reviser"]
    detail = official.scores["steps"].metadata
    assert (detail["deltas"], detail["skipped_actions"], detail["executed_actions"]) == ([0.0], 1, 7)
    assert scores(official)["error_rate"] == 0.0 and scores(official)["forced_completions"] == 1.0
    assert scores(official)["refine_delta"] == 0.0 and scores(official)["steps"] == 8.0


@pytest.mark.parametrize(
    "protocol, actions, all_completed",
    [
        ("fixed", ["outline", "draft", "review", "draft", "review", "refine", "review", "finish"], 1.0),
        ("no_review", ["outline", "draft", "draft", "finish"], 0.0),
        ("no_refine", ["outline", "draft", "review", "draft", "review", "finish"], 0.0),
    ],
)
def test_scripted_protocols_make_no_policy_call(tmp_path, data_dir, scripts, protocol, actions, all_completed):
    def only_tools(messages):
        assert "editor in charge" not in messages[0]["content"], "a scripted protocol asked the policy"
        return tools(messages)

    record = only(
        run(tmp_path, data_dir, scripts("tools", only_tools), scripts("judge", [JUDGE_OK]), protocol=protocol)
    )
    steps = [Step.model_validate(t) for t in record.state.turns]
    assert [s.action for s in steps] == actions and all(s.source == "scripted" and s.reply is None for s in steps)
    assert scores(record)["success"] == 1.0  # eq. 8: every scripted episode here finishes
    assert scores(record)["success_all_completed"] == all_completed and record.state.metadata["protocol"] == protocol


def test_a_tool_with_its_own_role(tmp_path, data_dir, scripts):
    writer_calls = []

    def writer(messages):
        writer_calls.append(messages)
        return '{"content": "Weak text.", "summary": "weak"}'

    settings = {"data_dir": str(data_dir), "language": "en", "protocol": "no_review"}
    result = proseval.run(
        "ravel",
        model=scripts("main", model(lambda t, s: efficient(s))),
        roles={"judge": scripts("judge", [JUDGE_OK]), "writer": scripts("writer", writer)},
        params=settings,
        limit=1,
        out=tmp_path / "runs",
        cache=False,
    )
    record = only(result)
    drafts = [Step.model_validate(t).tool for t in record.state.turns if t["action"] == "draft"]
    assert [(d.role, d.bound_to) for d in drafts] == [("writer", "writer")] * 2 and len(writer_calls) == 2
    assert record.state.metadata["tool_roles"] == {
        "planner": "candidate",
        "writer": "writer",
        "reviewer": "candidate",
        "reviser": "candidate",
    }
    with pytest.raises(Exception, match="no role"):
        proseval.run(
            "ravel",
            model="scripted/echo",
            roles={"judge": "scripted/echo", "editor": "scripted/echo"},
            params={"data_dir": str(data_dir), "language": "en"},
            limit=1,
            out=tmp_path / "x",
        )


def test_a_failed_request_fails_the_episode_and_keeps_its_progress(tmp_path, data_dir, scripts):
    def flaky(messages):
        if "editor in charge" in messages[0]["content"]:
            turn = int(messages[-1]["content"].split()[1])
            if turn == 3:
                return FatalError("policy endpoint refused")
        return model(lambda t, s: efficient(s))(messages)

    result = run(tmp_path, data_dir, scripts("flaky", flaky), scripts("judge", [JUDGE_OK]))
    assert result.results.counts.failed == 1
    record = only(result)
    assert record.status == "error" and "policy endpoint refused" in record.error
    saved = json.loads(next((result.path / "checkpoints").glob("*.json")).read_text())["data"]
    assert [s["action"] for s in saved["steps"]] == ["outline", "draft"]  # progress kept for --retry-failed


def test_judge_failures_are_unscored_never_zero(tmp_path, data_dir, scripts):
    candidate = scripts("eff", model(lambda turn, state: efficient(state)))
    record = only(run(tmp_path, data_dir, candidate, scripts("judge", ["seven out of ten"])))
    assert record.scores["judge"].value is None and record.scores["judge"].parse_status == "unparsable"
    assert record.scores["judge"].metadata["judge_calls"] == 3
    record = only(run(tmp_path, data_dir, candidate, scripts("judge2", [FatalError("judge down")])))
    assert record.scores["judge"].value is None and record.scores["judge"].parse_status == "error"
    assert record.scores["success"].value == 1.0


def test_the_policy_sees_a_bounded_window_of_its_history_with_outcomes(tmp_path, data_dir, scripts):
    seen: dict[int, str] = {}

    def policy(messages):
        if "editor in charge" not in messages[0]["content"]:
            return tools(messages)
        user = messages[-1]["content"]
        turn = int(user.split()[1])
        seen[turn] = user.split("what came of them:\n", 1)[1].split("\n\nChoose", 1)[0]
        return {1: "nonsense", 2: decide("outline"), 3: decide("review", 0)}.get(turn, decide("draft", 0))

    run(tmp_path, data_dir, scripts("window", policy), scripts("judge", [JUDGE_OK]), max_steps=5, history_window=2)
    assert seen[1] == "(none)"
    assert seen[4] == (
        "- step 2: outline -> success\n- step 3: review section 0 -> failed: section 0 has no draft to review"
    )
    assert seen[5].startswith("- step 3:") and "- step 4: draft section 0 -> success (now drafted)" in seen[5]
    assert "step 1" not in seen[4]
    run(tmp_path, data_dir, scripts("window0", policy), scripts("judge2", [JUDGE_OK]), max_steps=3, history_window=0)
    assert seen[3] == "(not shown)"


def test_the_policy_view_shows_summaries_not_whole_texts():
    from proseval.benchmarks.ravel.episode import policy_view

    ep = st.apply_outline(st.start("Topic.", "essay"), "T", [("A", ["p"])])
    ep = st.apply_review(st.apply_draft(ep, 0, "A long body " * 50, "Short."), 0, 6.5, "add data", st.Settings())
    view = json.loads(policy_view(ep))
    assert view["outline"] == [
        {
            "section_id": 0,
            "title": "A",
            "points": ["p"],
            "status": "revision_needed",
            "revisions": 0,
            "words": 150,
            "summary": "Short.",
            "score": 6.5,
            "feedback": "add data",
        }
    ]
    assert json.loads(policy_view(st.start("Topic.", "essay")))["outline"] == "no outline yet"


def test_a_chinese_topic_and_the_january_preset(tmp_path, data_dir, scripts):
    judged = []

    def judge(messages):
        judged.append(messages)
        return '{"score": 5, "verdict": "ok"}'

    def candidate(messages):
        if "editor in charge" in messages[0]["content"]:
            assert "(not shown)" in messages[-1]["content"]  # January: no history
            return efficient(
                json.loads(messages[-1]["content"].split("Current state:\n", 1)[1].split("\n\nYour recent", 1)[0])
            )
        if messages[-1]["content"].startswith("Plan a piece"):
            assert "Language of the text: Chinese" in messages[-1]["content"]
            assert "Style and genre: 公文" in messages[-1]["content"]  # the style guide is the genre
        return tools(messages)

    result = proseval.run(
        "ravel",
        model=scripts("zh", candidate),
        roles={"judge": scripts("zh-judge", judge)},
        params={"data_dir": str(data_dir), "language": "zh"},
        preset="january",
        out=tmp_path / "runs",
        cache=False,
    )
    record = only(result)
    assert record.id == "end2end_cn_1200" and record.scores["judge"].value == 5.0
    assert record.state.metadata["settings"]["revision_cap"] is None
    assert record.state.metadata["settings"]["history_window"] == 0
    # January: the rubric and the fields in one user message.
    ((message,),) = judged
    assert message["role"] == "user"
    assert message["content"].startswith(proseval_prompt("judge_end2end_zh").split("{traits}")[0])
    assert "\n\n[Instruction]\n请写一份关于防汛工作的通知。" in message["content"]
    assert "[Reference]\n各单位：现通知如下。" in message["content"]
    assert "[Candidate]\n# On Water" in message["content"]
    # ... and review and refine worked on the texts the policy passed (all sections completed).
    assert record.state.metadata["tool_text"] == "policy"
    assert {s["status"] for s in record.state.metadata["final_state"]["sections"]} == {"completed"}
    assert result.header.preset["name"] == "january"


def proseval_prompt(name: str) -> str:
    from proseval.benchmarks.ravel.prompts import PROMPTS

    return PROMPTS[name].text


def test_a_failed_tool_request_is_retryable_not_a_failed_action(tmp_path, data_dir, scripts):
    failures = {"left": 1}

    def flaky_writer(messages):
        if messages[-1]["content"].startswith("You are writing") and "This section: Ice" in messages[-1]["content"]:
            if failures["left"]:
                failures["left"] -= 1
                return FatalError("writer endpoint down")
        return model(lambda t, s: efficient(s))(messages)

    candidate = scripts("flaky-writer", flaky_writer)
    first = run(tmp_path, data_dir, candidate, scripts("judge", [JUDGE_OK]))
    record = only(first)
    assert record.status == "error" and "writer endpoint down" in record.error and not record.scores
    assert first.results.counts.failed == 1 and first.results.counts.ok == 0
    again = proseval.resume(first.path, retry_failed=True, cache=False)
    record = only(again)
    steps = [Step.model_validate(t) for t in record.state.turns]
    # outline, draft 0, review 0 were kept; the draft of section 1 was asked again, not recorded as failed
    assert record.state.metadata["resumed_at_step"] == 3 and [s.step for s in steps] == list(range(1, 9))
    assert all(s.outcome != "failed" for s in steps) and scores(record)["error_rate"] == 0.0
    assert scores(record)["success"] == 1.0 and again.results.counts.ok == 1


def test_extra_params_of_outline_and_finish_are_stored_not_read(tmp_path, data_dir, scripts):
    plan = {
        1: '{"action": "outline", "params": {"section_id": 5}}',
        2: decide("draft", 0),
        3: '{"action": "finish", "params": {"section_id": 9, "why": "enough"}}',
    }
    record = only(
        run(tmp_path, data_dir, scripts("extra", model(lambda turn, state: plan[turn])), scripts("judge", [JUDGE_OK]))
    )
    steps = [Step.model_validate(t) for t in record.state.turns]
    assert [(s.action, s.section_id, s.outcome) for s in steps] == [
        ("outline", None, "success"),
        ("draft", 0, "success"),
        ("finish", None, "finish"),
    ]
    assert steps[2].decision["params"] == {"section_id": 9, "why": "enough"}
    assert scores(record)["premature_finish"] == 1.0


def test_structured_output_is_asked_per_role_when_switched_on(tmp_path, data_dir):
    from proseval.benchmarks.ravel.schemas import TOOL_SCHEMAS, decision_schema
    from proseval.testing.fake_openai import FakeOpenAIServer

    answer = model(lambda turn, state: efficient(state))
    server = FakeOpenAIServer(responder=lambda body: answer(body["messages"])).start_in_thread()
    try:
        for flags in ((), ("structured_policy",), ("structured_policy", "structured_tools")):
            server.requests.clear()
            params = {"data_dir": str(data_dir), "language": "en", **{flag: True for flag in flags}}
            result = proseval.run(
                "ravel",
                model="openai-compatible/fake",
                roles={"judge": "scripted/echo"},
                base_url=server.base_url,
                params=params,
                limit=1,
                out=tmp_path / "runs",
                cache=False,
                probe=False,
            )  # the fake answers the agent only
            assert only(result).scores["success"].value == 1.0
            asked = {}
            for body in server.requests:
                kind = "policy" if body["messages"][0]["role"] == "system" else body["messages"][-1]["content"][:12]
                fmt = body.get("response_format")
                asked.setdefault(kind, set()).add(json.dumps(fmt["json_schema"]["schema"]) if fmt else None)
            policy = asked.pop("policy")
            assert policy == ({json.dumps(decision_schema())} if flags else {None})
            want = {json.dumps(s) for s in TOOL_SCHEMAS.values()} if "structured_tools" in flags else {None}
            assert set().union(*asked.values()) == want and len(asked) == 4  # planner, writer, reviewer, reviser
    finally:
        server.stop_thread()


@pytest.mark.parametrize("compat, reviews, skipped", [("fixed", 4, 0), ("official", 3, 1)])
def test_the_fixed_protocol_under_persistent_failure(tmp_path, data_dir, scripts, compat, reviews, skipped):
    """Every review fails: per section 3 refines, then the cap closes it: after a 4th review (fixed), or
    by skipping that review (official: 3 reviews + 3 revisions + 1 skipped review)."""

    def harsh(messages):
        return '{"score": 3, "feedback": "no"}' if "You review" in messages[-1]["content"] else tools(messages)

    record = only(
        run(tmp_path, data_dir, scripts("harsh", harsh), scripts("judge", [JUDGE_OK]), protocol="fixed", compat=compat)
    )
    steps = [Step.model_validate(t) for t in record.state.turns]
    per_section = ["draft"] + ["review", "refine"] * 3 + ["review"]
    assert [s.action for s in steps] == ["outline", *per_section, *per_section, "finish"]
    ran = [s for s in steps if s.action == "review" and s.outcome == "success"]
    assert len(ran) == 2 * reviews and sum(s.outcome == "skipped" for s in steps) == 2 * skipped
    assert scores(record)["success"] == 1.0 and scores(record)["forced_completions"] == 2.0
    assert scores(record)["steps"] == 18.0 and scores(record)["refines_per_section"] == 300.0  # 6 refines / n = 2
    assert scores(record)["reviews_per_section"] == 400.0  # eq. 9 as printed: 8 reviews (skipped ones too) / n = 2
    assert scores(record)["refines_per_step"] == pytest.approx(100 * 6 / 18)


def test_the_judge_can_be_asked_for_structured_output(tmp_path, data_dir, scripts):
    from proseval.benchmarks._shared.c3e.judge import judge_schema
    from proseval.testing.fake_openai import FakeOpenAIServer

    server = FakeOpenAIServer(responder=lambda body: '{"score": 7, "verdict": "ok"}').start_in_thread()
    try:
        result = proseval.run(
            "ravel",
            model=scripts("eff", model(lambda turn, state: efficient(state))),
            roles={"judge": "openai-compatible/judge"},
            base_url=server.base_url,
            params={"data_dir": str(data_dir), "language": "en", "judge_structured": True},
            limit=1,
            out=tmp_path / "runs",
            cache=False,
        )
    finally:
        server.stop_thread()
    assert only(result).scores["judge"].value == 7.0
    assert [b["response_format"]["json_schema"]["schema"] for b in sample_requests(server)] == [judge_schema("end2end")]


def test_tool_text_policy_reviews_and_refines_the_texts_the_policy_passes(tmp_path, data_dir, scripts):
    """Official tool arguments: the policy sees whole texts and passes content and feedback; the
    tools get exactly what it passed, even when it differs from the stored text; a review without
    content is an invalid decision."""
    seen: list[str] = []

    def policy(turn: int, state: dict) -> str:
        sections = state["outline"] if isinstance(state["outline"], list) else []
        if turn == 1:
            return decide("outline")
        if turn in (2, 3):
            return decide("draft", turn - 2)
        if turn == 4:
            assert sections[0]["content"] == "Water text."  # whole texts are shown
            return decide("review", 0)  # no content: invalid with --tool-text policy
        if turn == 5:
            return decide("review", 0, content="Water text, as the policy quotes it.")
        if turn == 6:
            return decide("review", 1, content=sections[1]["content"])
        if turn == 7:
            assert sections[1]["feedback"] == "say why ice floats"
            return decide("refine", 1, content="Ice text.", feedback="only this feedback")
        if turn == 8:
            return decide("review", 1, content=sections[1]["content"])
        return decide("finish")

    def candidate(messages):
        if not messages[0]["content"].startswith("You are the editor"):
            seen.append(messages[-1]["content"])
        else:
            assert '"content": "<the text to review>"' in messages[0]["content"]
        return model(lambda turn, state: policy(turn, state))(messages)

    record = only(
        run(tmp_path, data_dir, scripts("texts", candidate), scripts("judge", [JUDGE_OK]), tool_text="policy")
    )
    steps = [Step.model_validate(t) for t in record.state.turns]
    assert [(s.action, s.outcome) for s in steps][3:5] == [("review", "failed"), ("review", "success")]
    assert steps[3].failure == "decision" and "review needs params.content" in steps[3].error
    reviews = [text for text in seen if text.startswith("You review")]
    assert "Section text:\nWater text, as the policy quotes it." in reviews[0]
    revisions = [text for text in seen if text.startswith("You revise")]
    assert "Current text:\nIce text.\n" in revisions[0] and "Reviewer's feedback:\nonly this feedback" in revisions[0]
    assert scores(record)["success"] == 1.0


def test_one_style_guide_for_every_item(tmp_path, data_dir, scripts):
    planned: list[str] = []

    def candidate(messages):
        if messages[-1]["content"].startswith("Plan a piece"):
            planned.append(messages[-1]["content"])
        return model(lambda turn, state: efficient(state))(messages)

    record = only(
        run(
            tmp_path,
            data_dir,
            scripts("style", candidate),
            scripts("judge", [JUDGE_OK]),
            style_guide="plain and friendly",
        )
    )
    assert "Style and genre: plain and friendly\n" in planned[0]
    assert record.state.metadata["final_state"]["style_guide"] == "plain and friendly"
    assert scores(record)["success"] == 1.0  # the trajectory replays with the same start


def test_a_weak_tool_role_is_charged_to_tool_failures_not_to_the_policys_err(tmp_path, data_dir, scripts):
    """Reasoner swap: the policy is one model, the reviewer another that first answers no score."""
    answers = {"first": True}

    def weak_reviewer(messages):
        if answers["first"]:
            answers["first"] = False
            return "A fine section, well done."  # no JSON score: an unusable tool answer
        return tools(messages)

    result = proseval.run(
        "ravel",
        model=scripts("policy", model(lambda turn, state: efficient(state))),
        roles={"judge": scripts("judge", [JUDGE_OK]), "reviewer": scripts("weak", weak_reviewer)},
        params={"data_dir": str(data_dir), "language": "en"},
        limit=1,
        out=tmp_path / "runs",
        cache=False,
    )
    record = only(result)
    steps = [Step.model_validate(t) for t in record.state.turns]
    # outline, draft 0, review 0 (unusable), review 0, draft 1, review 1, refine 1, review 1, finish
    assert [(s.action, s.outcome) for s in steps][2:4] == [("review", "failed"), ("review", "success")]
    assert steps[2].failure == "tool" and steps[2].tool.bound_to == "reviewer"
    values = scores(record)
    assert values["steps"] == 9.0 and values["error_rate"] == 0.0  # the policy made no invalid action
    assert values["tool_error_rate"] == pytest.approx(100 / 9)  # one unusable tool answer in |T| = 9
    assert record.scores["steps"].metadata["failed_by"] == {"tool": 1}
    assert record.scores["tool_error_rate"].metadata == {"tool_failures": 1}
    overall = result.results.extra["ravel"]["overall"]
    assert overall["error_rate"] == 0.0 and overall["tool_error_rate"] == pytest.approx(100 / 9)


def test_the_outline_is_uncapped_by_default_and_a_set_cap_is_recorded(tmp_path, data_dir, scripts):
    planned: list[str] = []

    def candidate(messages):
        if messages[-1]["content"].startswith("Plan a piece"):
            planned.append(messages[-1]["content"])
        return model(lambda turn, state: efficient(state))(messages)

    result = run(tmp_path, data_dir, scripts("uncapped", candidate), scripts("judge", [JUDGE_OK]))
    assert result.header.task_params["max_sections"] is None
    assert only(result).state.metadata["settings"]["max_sections"] is None
    assert "use as many sections as the text needs." in planned[0]
    capped = run(
        tmp_path, data_dir, scripts("capped1", candidate), scripts("judge2", [JUDGE_OK]), max_sections=1, max_steps=3
    )
    assert capped.header.task_params["max_sections"] == 1 and "use at most 1 section." in planned[-1]
    first = Step.model_validate(only(capped).state.turns[0])
    # the planner's two sections exceed the cap: an unusable tool answer, not the policy's error
    assert (first.action, first.outcome, first.failure) == ("outline", "failed", "tool")
    assert "at most 1" in first.error

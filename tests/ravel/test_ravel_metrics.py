"""Every trajectory metric on hand-made trajectories, with values worked out by hand."""

from __future__ import annotations

from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.actions import Decision
from proseval.benchmarks.ravel.env import Step, replay
from proseval.benchmarks.ravel.metrics import (
    completion_median,
    lifecycle_medians,
    lifecycles,
    measure,
    median_shift,
    refine_deltas,
    score_curve,
)
from proseval.benchmarks.ravel.scripted import next_decision

SETTINGS = st.Settings(tau=8.0, revision_cap=3)


def step(k: int, action: str | None, outcome: str = "success", sid: int | None = None, **kw) -> Step:
    return Step(step=k, source="policy", action=action, section_id=sid, outcome=outcome, **kw)


def two_sections_done() -> st.Episode:
    ep = st.apply_outline(st.start("t", "s"), "T", [("A", []), ("B", [])])
    for i in range(2):
        ep = st.apply_review(st.apply_draft(ep, i, "x", ""), i, 9, "", SETTINGS)
    return st.apply_finish(ep)


def test_an_efficient_successful_episode():
    steps = [
        step(1, "outline"),
        step(2, "draft", sid=0),
        step(3, "review", sid=0, score=9, status_after="completed"),
        step(4, "draft", sid=1),
        step(5, "review", sid=1, score=6, status_after="revision_needed"),
        step(6, "refine", sid=1, score_before=6, status_after="drafted"),
        step(7, "review", sid=1, score=8.5, status_after="completed"),
        step(8, "finish", "finish"),
    ]
    m = measure(steps, two_sections_done())
    assert (m.steps, m.outline_len, m.success, m.success_all_completed, m.premature_finish) == (8, 2, True, True, False)
    assert m.efficiency == 4.0  # 8 / 2
    assert m.reviews_per_section == 150.0  # eq. 9 as printed: 3 reviews / n = 2 sections
    assert m.refines_per_section == 50.0  # Table 2 reading: 1 refine / n = 2 sections
    assert m.refines_per_step == 12.5  # 1 refine / |T| = 8 steps
    assert m.deltas == (2.5,) and m.refine_delta == 2.5  # 8.5 - 6
    assert m.error_rate == 0.0 and m.forced_completions == 0


def test_failures_skips_and_premature_finish():
    ep = st.apply_finish(st.apply_draft(st.apply_outline(st.start("t", "s"), "T", [("A", []), ("B", [])]), 0, "x", ""))
    steps = [
        step(1, None, "failed", failure="decision", error="no JSON"),
        step(2, "outline"),
        step(3, "draft", "failed", failure="decision", sid=5),
        step(4, "draft", sid=0),
        step(5, "refine", "failed", failure="state", sid=0),
        step(6, "finish", "finish"),
    ]
    m = measure(steps, ep)
    # eq. 8: the policy finished within T_max, so S = 1, although section B was never written
    assert (m.success, m.success_all_completed, m.premature_finish) == (True, False, True)
    assert m.failed_actions == 3 and m.failed_by == {"decision": 2, "state": 1}
    assert (m.invalid_actions, m.tool_failures) == (3, 0)
    assert m.executed == 4  # 6 steps - 2 invalid decisions; the refine the state refused was still an action
    assert m.error_rate == 50.0 and m.tool_error_rate == 0.0  # 3 / 6
    assert m.efficiency == 3.0 and m.refine_delta is None and m.refines_per_section == 0.0
    assert m.reviews == 0 and m.reviews_per_section == 0.0


def test_an_episode_cut_at_t_max_is_neither_finished_nor_successful():
    ep = st.apply_outline(st.start("t", "s"), "T", [("A", [])])
    m = measure([step(1, "outline"), step(2, "outline")], ep)
    assert (m.success, m.success_all_completed, m.premature_finish, m.steps) == (False, False, False, 2)
    m = measure([step(1, None, "failed", failure="decision")], st.start("t", "s"))
    assert m.outline_len == 0 and m.efficiency is None and m.error_rate == 100.0
    assert m.reviews_per_section is None and m.refines_per_section is None  # eq. 9 needs an outline
    assert m.refines_per_step == 0.0


def test_refine_delta_pairs_are_per_section_and_broken_by_a_redraft_or_new_outline():
    steps = [
        step(1, "refine", sid=0, score_before=4),
        step(2, "refine", sid=1, score_before=5),
        step(3, "review", sid=1, score=7),
        step(4, "review", sid=0, score=3),  # -1 and +2
        step(5, "refine", sid=0, score_before=3),
        step(6, "draft", sid=0),
        step(7, "review", sid=0, score=9),
        step(8, "refine", sid=1, score_before=7),
        step(9, "outline"),
        step(10, "review", sid=1, score=9),
        step(11, "refine", sid=1, score_before=2),
        step(12, "review", "failed", sid=1),
        step(13, "review", sid=1, score=2),
    ]
    assert refine_deltas(steps) == [2.0, -1.0, 0.0]


def test_lifecycles_and_score_curve():
    start = st.start("t", "s")
    outline = {"title": "T", "sections": [{"title": "A", "points": []}, {"title": "B", "points": []}]}
    decisions = [
        ("outline", None, outline),
        ("draft", 0, {"content": "a", "summary": ""}),
        ("review", 0, {"score": 6.0, "feedback": "f"}),
        ("draft", 1, {"content": "b", "summary": ""}),
        ("refine", 0, {"content": "a2"}),
        ("review", 0, {"score": 9.0, "feedback": ""}),
        ("review", 1, {"score": 7.0, "feedback": ""}),
    ]
    from proseval.benchmarks.ravel.env import ToolCall

    steps = []
    for k, (action, sid, out) in enumerate(decisions, start=1):
        params = {} if sid is None else {"section_id": sid}
        status = {
            2: "drafted",
            3: "revision_needed",
            4: "drafted",
            5: "drafted",
            6: "completed",
            7: "revision_needed",
        }.get(k)
        steps.append(
            Step(
                step=k,
                source="scripted",
                decision=Decision(action, params).as_dict(),
                action=action,
                section_id=sid,
                outcome="success",
                status_after=status,
                tool=ToolCall(role="x", bound_to="candidate", output=out),
            )
        )
    states = replay(start, steps, SETTINGS)
    final = states[-1]
    assert [s.status for s in final.sections] == ["completed", "revision_needed"]
    assert lifecycles(steps, final, max_steps=50) == [
        {"section": 0, "first_draft": 2, "completed": 6, "completion_step": 6, "status": "completed", "revisions": 1},
        {
            "section": 1,
            "first_draft": 4,
            "completed": None,
            "completion_step": 50,
            "status": "revision_needed",
            "revisions": 0,
        },
    ]
    assert score_curve(states) == [None, None, 6.0, 6.0, 6.0, 9.0, 8.0]


def test_scripted_protocols():
    ep = st.start("t", "s")
    for name in ("fixed", "no_review", "no_refine"):
        assert next_decision(name, ep, False).action == "outline"
        assert next_decision(name, ep, True).action == "finish"  # the outline failed
    ep = st.apply_outline(ep, "T", [("A", []), ("B", [])])
    ep = st.apply_review(st.apply_draft(ep, 0, "x", ""), 0, 5, "f", SETTINGS)
    assert next_decision("fixed", ep, True) == Decision("refine", {"section_id": 0}, "refine section 0")
    assert next_decision("no_refine", ep, True).params == {"section_id": 1}  # section 0 was reviewed once
    assert next_decision("no_review", ep, True) == Decision("draft", {"section_id": 1}, "draft section 1")
    ep = st.apply_draft(ep, 1, "y", "")
    assert next_decision("no_review", ep, True).action == "finish"
    assert next_decision("no_refine", ep, True) == Decision("review", {"section_id": 1}, "review section 1")
    ep = st.apply_refine(ep, 0, "x2")
    assert next_decision("fixed", ep, True) == Decision("review", {"section_id": 0}, "review section 0")


def test_a_skipped_step_counts_in_t_not_in_err_and_closes_the_lifecycle():
    official = st.Settings(tau=8.0, revision_cap=1, compat="official")
    ep = st.apply_outline(st.start("t", "s"), "T", [("A", [])])
    ep = st.apply_refine(st.apply_review(st.apply_draft(ep, 0, "x", ""), 0, 5, "f", official), 0, "y")
    ep = st.apply_finish(st.apply_cap(ep, 0, official))
    steps = [
        step(1, "outline"),
        step(2, "draft", sid=0, status_after="drafted"),
        step(3, "review", sid=0, score=5, status_after="revision_needed"),
        step(4, "refine", sid=0, score_before=5, status_after="drafted"),
        step(5, "review", "skipped", sid=0, status_after="completed"),
        step(6, "finish", "finish"),
    ]
    m = measure(steps, ep)
    assert (m.steps, m.skipped, m.failed_actions, m.error_rate, m.executed) == (6, 1, 0, 0.0, 5)
    assert m.tool_error_rate == 0.0
    assert m.deltas == () and m.refine_delta is None  # the refine was never reviewed
    assert (m.success, m.success_all_completed, m.forced_completions) == (True, True, 1)
    assert (m.refines_per_section, m.refines_per_step) == (100.0, 100 / 6)  # 1 refine / n = 1; 1 refine / |T| = 6
    assert m.reviews_per_section == 200.0  # a_t = review twice (the skipped one too) / n = 1
    assert m.lifecycles == (
        {"section": 0, "first_draft": 2, "completed": 5, "completion_step": 5, "status": "completed", "revisions": 1},
    )


# Trajectories played through the environment: (action, section id, the tool's answer); a tool answer
# of TOOL_FAILS is an unusable one (the step fails, the state is unchanged), as in episode.step_once.
TOOL_FAILS = object()


def play(moves: list[tuple], settings: st.Settings = SETTINGS) -> tuple[list[Step], st.Episode]:
    from proseval.benchmarks.ravel.env import apply
    from proseval.benchmarks.ravel.tools import Outline, Review, Text

    episode, steps = st.start("t", "s"), []
    for k, (action, sid, answer) in enumerate(moves, start=1):
        decision = Decision(action, {} if sid is None else {"section_id": sid})
        if answer is TOOL_FAILS:
            steps.append(step(k, action, "failed", sid=sid, failure="tool", error="unusable tool answer"))
            continue
        output = (
            Outline("T", [(title, []) for title in answer])
            if action == "outline"
            else Review(answer, "")
            if action == "review"
            else Text(answer)
            if answer is not None
            else None
        )
        before = episode.section(sid).score if sid is not None else None
        episode, outcome = apply(episode, decision, output, settings)
        steps.append(
            step(
                k,
                action,
                outcome,
                sid=sid,
                score=answer if action == "review" else None,
                score_before=before if action == "refine" else None,
                status_after=episode.section(sid).status if sid is not None else None,
            )
        )
    return steps, episode


def test_s_is_the_finish_rate_of_eq_8_even_with_two_sections_below_tau():
    steps, final = play(
        [
            ("outline", None, ["A", "B", "C"]),
            ("draft", 0, "a"),
            ("review", 0, 9.0),
            ("draft", 1, "b"),
            ("review", 1, 6.0),
            ("draft", 2, "c"),
            ("review", 2, 5.0),
            ("finish", None, None),
        ]
    )
    assert [s.status for s in final.sections] == ["completed", "revision_needed", "revision_needed"]
    m = measure(steps, final)
    assert (m.steps, m.outline_len) == (8, 3)
    assert m.success is True  # eq. 8: finish was emitted within T_max
    assert m.success_all_completed is False and m.premature_finish is True  # two sections stayed below τ = 8
    assert (m.error_rate, m.tool_error_rate, m.refines_per_section) == (0.0, 0.0, 0.0)
    assert m.reviews_per_section == 100.0  # 3 reviews / n = 3


def test_refinement_density_eq_9_as_printed_counts_reviews_and_the_table_2_reading_refines():
    """n = 4; 7 reviews and 3 refines: section 1 refined once, section 2 twice."""
    steps, final = play(
        [
            ("outline", None, ["A", "B", "C", "D"]),
            ("draft", 0, "a"),
            ("review", 0, 9.0),
            ("draft", 1, "b"),
            ("review", 1, 6.0),
            ("refine", 1, "b2"),
            ("review", 1, 9.0),
            ("draft", 2, "c"),
            ("review", 2, 5.0),
            ("refine", 2, "c2"),
            ("review", 2, 7.0),
            ("refine", 2, "c3"),
            ("review", 2, 8.0),
            ("draft", 3, "d"),
            ("review", 3, 8.0),
            ("finish", None, None),
        ]
    )
    assert (sum(s.action == "review" for s in steps), sum(s.action == "refine" for s in steps)) == (7, 3)
    m = measure(steps, final)
    assert (m.steps, m.outline_len, m.refines) == (16, 4, 3)  # 1 outline + 4 drafts + 7 reviews + 3 refines + finish
    assert m.reviews == 7 and m.reviews_per_section == 175.0  # eq. 9 as printed: Σ 𝕀(a_t = review) / n = 7 / 4
    assert m.refines_per_section == 75.0  # Table 2 reading: 3 refines / n = 3 / 4
    assert m.refines_per_step == 18.75  # 3 / |T| = 3 / 16
    assert m.deltas == (3.0, 2.0, 1.0) and m.refine_delta == 2.0  # 9-6, 7-5, 8-7
    assert m.success and m.success_all_completed


def test_err_counts_the_policys_invalid_actions_not_the_tools_failures():
    """Every decision is valid; two tool answers are unusable (the writer's, then the reviewer's)."""
    steps, final = play(
        [
            ("outline", None, ["A"]),
            ("draft", 0, TOOL_FAILS),
            ("draft", 0, "a"),
            ("review", 0, TOOL_FAILS),
            ("review", 0, 9.0),
            ("finish", None, None),
        ]
    )
    m = measure(steps, final)
    assert m.failed_by == {"tool": 2} and m.failed_actions == 2
    assert (m.invalid_actions, m.tool_failures) == (0, 2)
    assert m.error_rate == 0.0  # ERR: the policy made no invalid action
    assert m.tool_error_rate == 100 * 2 / 6  # 2 unusable tool answers in |T| = 6
    assert m.success_all_completed


def test_a_section_never_completed_is_placed_at_t_max_and_the_medians_differ():
    steps, final = play(
        [
            ("outline", None, ["A", "B", "C"]),
            ("draft", 0, "a"),
            ("review", 0, 9.0),
            ("draft", 1, "b"),
            ("review", 1, 4.0),
            ("finish", None, None),
        ]
    )
    m = measure(steps, final, max_steps=20)
    assert [(p["first_draft"], p["completed"], p["completion_step"]) for p in m.lifecycles] == [
        (2, 3, 3),
        (4, None, 20),
        (None, None, 20),
    ]  # section 1 below τ, section 2 never drafted: both at T_max
    assert completion_median(m.lifecycles) == 20.0  # median of 3, 20, 20
    other = [{"completion_step": v} for v in (5, 7, 9, 30)]
    assert completion_median(other) == 8.0  # (7 + 9) / 2
    assert median_shift(m.lifecycles, other) == -12.0  # 8 - 20
    assert median_shift(other, m.lifecycles) == 12.0
    assert completion_median([]) is None and median_shift([], other) is None


def test_eq_9_counts_every_review_action_but_not_a_reply_that_is_no_decision():
    """a_t = review: a passed review, one the state refuses and one whose reviewer answer is unusable
    count; a reply that is not a valid decision (even naming review) has no action a_t."""
    ep = st.apply_outline(st.start("t", "s"), "T", [("A", []), ("B", [])])
    steps = [
        step(1, "outline"),
        step(2, "review", "failed", failure="state", sid=0),
        step(3, "draft", sid=0),
        step(4, "review", "failed", failure="tool", sid=0),
        step(5, "review", sid=0, score=9),
        step(6, "review", "failed", failure="decision", sid=9),
        step(7, "finish", "finish"),
    ]
    m = measure(steps, ep)
    assert m.reviews == 3 and m.reviews_per_section == 150.0  # 3 / n = 2
    assert m.refines_per_section == 0.0


def test_fig_4_delta_med_is_median_completion_minus_median_first_draft_per_run():
    """Sections drafted at 2, 4, 6, 8, completed at 3, 9, never (T_max = 20), 12; one never drafted."""
    points = [
        {"first_draft": 2, "completed": 3, "completion_step": 3},
        {"first_draft": 4, "completed": 9, "completion_step": 9},
        {"first_draft": 6, "completed": None, "completion_step": 20},
        {"first_draft": 8, "completed": 12, "completion_step": 12},
        {"first_draft": None, "completed": None, "completion_step": 20},
    ]
    fig4 = lifecycle_medians(points)
    assert (fig4["start_median"], fig4["end_median"]) == (5.0, 10.5)  # (4 + 6) / 2; (9 + 12) / 2
    assert fig4["delta_med"] == 5.5
    assert (fig4["sections"], fig4["drafted"], fig4["not_completed"], fig4["never_drafted"]) == (5, 4, 1, 1)
    # the undrafted section is in the median completion step over all sections, not in Δ_med
    assert completion_median(points) == 12.0  # median of 3, 9, 12, 20, 20
    steps, final = play(
        [
            ("outline", None, ["A", "B", "C"]),
            ("draft", 0, "a"),
            ("review", 0, 9.0),
            ("draft", 1, "b"),
            ("review", 1, 4.0),
            ("finish", None, None),
        ]
    )
    fig4 = lifecycle_medians(measure(steps, final, max_steps=20).lifecycles)
    assert (fig4["start_median"], fig4["end_median"], fig4["delta_med"]) == (3.0, 11.5, 8.5)  # (2+4)/2; (3+20)/2
    assert lifecycle_medians([])["delta_med"] is None

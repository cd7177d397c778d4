"""Every state transition, on hand-made states."""

from __future__ import annotations

import pytest

from proseval.benchmarks.ravel import state as st

SETTINGS = st.Settings(tau=8.0, revision_cap=2)


def outlined(n: int = 2) -> st.Episode:
    return st.apply_outline(
        st.start("Write about rivers.", "essay"), "Rivers", [(f"S{i}", [f"p{i}"]) for i in range(n)]
    )


def test_outline_makes_pending_sections_and_replaces_a_previous_outline():
    ep = outlined(3)
    assert [s.status for s in ep.sections] == ["pending"] * 3 and ep.outlines == 1 and ep.title == "Rivers"
    ep = st.apply_draft(ep, 0, "text", "sum")
    again = st.apply_outline(ep, "", [("Only", [])])
    assert again.n == 1 and again.sections[0].content == "" and again.outlines == 2
    assert again.title == "Write about rivers."  # no title: the topic
    with pytest.raises(st.TransitionError):
        st.apply_outline(ep, "T", [])


def test_draft_sets_text_and_status_and_keeps_the_revision_count():
    ep = st.apply_draft(outlined(), 1, "Body.", "One line.")
    s = ep.section(1)
    assert (s.status, s.content, s.summary, s.score, s.revisions) == ("drafted", "Body.", "One line.", None, 0)
    ep = st.apply_review(ep, 1, 5.0, "weak", SETTINGS)
    ep = st.apply_refine(ep, 1, "Better.")
    ep = st.apply_draft(ep, 1, "Rewritten.", "x")
    assert ep.section(1).revisions == 1 and ep.section(1).status == "drafted" and ep.section(1).feedback == ""
    with pytest.raises(st.TransitionError, match="empty"):
        st.apply_draft(ep, 0, "  ", "")


def test_ids_are_checked_and_an_outline_is_needed():
    with pytest.raises(st.TransitionError, match="no outline"):
        st.apply_draft(st.start("t", "s"), 0, "x", "")
    with pytest.raises(st.TransitionError, match="outside 0..1"):
        st.apply_draft(outlined(), 2, "x", "")
    with pytest.raises(st.TransitionError, match="outside"):
        st.apply_review(outlined(), -1, 9, "", SETTINGS)


def test_review_completes_at_tau_and_sends_back_below():
    ep = st.apply_draft(outlined(), 0, "x", "")
    assert st.apply_review(ep, 0, 8.0, "good", SETTINGS).section(0).status == "completed"  # >= tau
    low = st.apply_review(ep, 0, 7.9, "thin", SETTINGS).section(0)
    assert (low.status, low.score, low.feedback, low.forced) == ("revision_needed", 7.9, "thin", False)
    with pytest.raises(st.TransitionError, match="no draft"):
        st.apply_review(outlined(), 1, 9, "", SETTINGS)


def test_refine_goes_back_to_drafted_and_counts():
    ep = st.apply_review(st.apply_draft(outlined(), 0, "x", "s"), 0, 3, "fix", SETTINGS)
    ep = st.apply_refine(ep, 0, "y")
    s = ep.section(0)
    assert (s.status, s.content, s.revisions, s.summary) == ("drafted", "y", 1, "s")
    with pytest.raises(st.TransitionError, match="revision_needed"):
        st.can_refine(ep.section(0))


def test_the_review_after_the_last_allowed_refine_closes_the_section():
    ep = st.apply_draft(outlined(), 0, "x", "")
    for round_ in range(2):
        ep = st.apply_review(ep, 0, 4, "no", SETTINGS)
        assert ep.section(0).status == "revision_needed"
        ep = st.apply_refine(ep, 0, f"v{round_}")
    ep = st.apply_review(ep, 0, 5, "still no", SETTINGS)
    assert ep.section(0).status == "completed" and ep.section(0).forced and ep.section(0).score == 5
    assert st.at_cap(ep.section(0), SETTINGS)
    uncapped = st.Settings(revision_cap=None)
    assert not st.at_cap(ep.section(0), uncapped)


def test_finish():
    ep = st.apply_review(st.apply_draft(outlined(), 0, "x", ""), 0, 9, "", SETTINGS)
    done = st.apply_finish(ep)
    assert done.finished and done.premature  # section 1 still pending
    ep = st.apply_review(st.apply_draft(ep, 1, "y", ""), 1, 9, "", SETTINGS)
    ep = st.apply_review(st.apply_draft(ep, 0, "z", ""), 0, 9, "", SETTINGS)
    assert ep.all_completed and not st.apply_finish(ep).premature
    assert st.apply_finish(st.start("t", "s")).premature  # nothing written


def test_manuscript_and_diff():
    assert st.manuscript(outlined()) == ""
    ep = st.apply_draft(outlined(), 1, "Second body.", "")
    assert st.manuscript(ep) == "# Rivers\n\n## S1\n\nSecond body.\n"
    reviewed = st.apply_review(ep, 1, 6.5, "more detail", SETTINGS)
    assert st.diff(ep, reviewed) == {
        "sections": {
            "1": {"status": ["drafted", "revision_needed"], "score": [None, 6.5], "feedback": ["", "more detail"]}
        }
    }
    assert st.diff(st.start("t", "s"), outlined())["outline"]["sections"] == ["S0", "S1"]
    assert st.diff(ep, st.apply_finish(ep)) == {"finished": True, "premature": True}


def test_state_round_trips_through_json():
    ep = st.apply_review(st.apply_draft(outlined(), 0, "x", "s"), 0, 9, "ok", SETTINGS)
    assert st.Episode.model_validate_json(ep.model_dump_json()) == ep


def test_the_official_cap_skips_the_review_after_the_last_refine_and_a_draft_resets_the_count():
    official = st.Settings(tau=8.0, revision_cap=2, compat="official")
    ep = st.apply_draft(outlined(), 0, "x", "")
    for round_ in range(2):
        assert not st.blocked_by_cap(ep.section(0), official)
        ep = st.apply_refine(st.apply_review(ep, 0, 4, "no", official), 0, f"v{round_}")
    assert ep.section(0).revisions == 2 and st.blocked_by_cap(ep.section(0), official)
    assert not st.blocked_by_cap(ep.section(0), SETTINGS)  # fixed: the review runs, then closes it
    closed = st.apply_cap(ep, 0, official).section(0)
    assert (closed.status, closed.forced, closed.score) == ("completed", True, 4)
    redrafted = st.apply_draft(ep, 0, "fresh", "", reset_revisions=True).section(0)
    assert redrafted.revisions == 0 and not st.blocked_by_cap(redrafted, official)
    assert not st.blocked_by_cap(outlined().section(1), st.Settings(revision_cap=0, compat="official"))  # pending
    passed = st.apply_review(st.apply_draft(outlined(), 1, "y", ""), 1, 9, "", official)
    assert st.apply_cap(passed, 1, st.Settings(revision_cap=0, compat="official")).section(1).forced is False

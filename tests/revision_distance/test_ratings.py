"""Revision Distance's ratings: the reviser's preference per chosen/rejected pair; the drafts mode rates nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import proseval
from proseval.benchmarks.revision_distance.scoring import PREFERENCE, pair_ratings
from proseval.kit import Rating, Scale, Score
from proseval.models.base import FatalError
from proseval.registry import get_task

DATA = Path(__file__).parent / "data"
SCALE = Scale(-1, 1, "ordinal")
_DRAFT = re.compile(r"Draft:\n<<<\n(.*?)\n>>>", re.S)


def distances(chosen: float, rejected: float) -> dict[str, Score]:
    return {
        "distance_chosen": Score(value=chosen, metadata={"edits": []}),
        "distance_rejected": Score(value=rejected, metadata={"edits": []}),
        "pair_agree": Score(value=float(chosen < rejected)),
        "pair_tie": Score(value=float(chosen == rejected)),
    }


@pytest.mark.parametrize(("chosen", "rejected", "preference"), [(0, 2, 1.0), (1, 1, 0.0), (3, 0, -1.0)])
def test_the_preference_is_read_off_both_edit_counts(chosen, rejected, preference):
    assert pair_ratings()(distances(chosen, rejected)) == [Rating(PREFERENCE, preference, SCALE, "reviser")]


def test_an_unusable_reply_leaves_the_pair_unscored():
    failed = Score.unscored("empty", "rejected: the reviser returned no text", raw="", attempts=1)
    scores = {name: failed for name in ("distance_chosen", "distance_rejected", "pair_agree", "pair_tie")}
    assert pair_ratings()(scores) == [Rating(PREFERENCE, None, SCALE, "reviser")]
    assert pair_ratings()({}) == []


def counting_reviser(messages):
    """One edit per capitalised word; "PROSE" gets prose, "DOWN" a failed call."""
    draft = _DRAFT.search(messages[-1]["content"]).group(1)
    if "PROSE" in draft:
        return "It reads well to me."
    if "DOWN" in draft:
        return FatalError("reviser endpoint refused")
    words = [w for w in re.findall(r"[A-Za-z]+", draft) if w.isupper() and len(w) > 1]
    return json.dumps(
        [
            {
                "action_name": "replace",
                "revision_description": "lower it",
                "revision_level": "word",
                "original_snippet": w,
                "revised_snippet": w.lower(),
                "revision_intention": "calmer",
            }
            for w in words
        ]
    )


def test_a_pairs_run_rates_each_pair(tmp_path: Path, scripts):
    rows = [
        ("fine text", "BAD TEXT"),
        ("SAME", "ALSO"),
        ("MANY CAPS", "clean"),
        ("good", "PROSE please"),
        ("ok", "DOWN it goes"),
    ]
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(
        "".join(json.dumps({"id": f"p{i}", "chosen": c, "rejected": r}) + "\n" for i, (c, r) in enumerate(rows)),
        encoding="utf-8",
    )
    run = proseval.run(
        "revision-distance",
        roles={"reviser": scripts("rdr-count", counting_reviser)},
        params={"pairs": str(pairs), "setting": "reference-free"},
        out=tmp_path / "runs",
    )
    task = get_task("revision-distance", run.header.task_params)
    found = {r.id: task.ratings(r.scores) for r in run.records()}
    assert {key: [(x.criterion, x.value, x.role) for x in found[key]] for key in found} == {
        "p0": [(PREFERENCE, 1.0, "reviser")],
        "p1": [(PREFERENCE, 0.0, "reviser")],
        "p2": [(PREFERENCE, -1.0, "reviser")],
        "p3": [(PREFERENCE, None, "reviser")],
        "p4": [(PREFERENCE, None, "reviser")],
    }
    assert "reviser" in run.header.roles  # the role a rating names is a bound role of the run


def test_the_drafts_mode_and_the_stability_check_declare_no_ratings():
    drafts = {"drafts": str(DATA / "drafts20.jsonl"), "setting": "reference-free"}
    assert get_task("revision-distance", drafts).ratings is None
    assert get_task("revision-distance-stability", drafts).ratings is None

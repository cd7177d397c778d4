"""A panel of judges (and their agreement) is made of judges that scored the same items.

RAVEL's reviewer is a tool of the episode, run on the candidate's own model unless bound apart: each
candidate's reviewer reviews only that candidate's manuscripts. Two such runs hold two "judges" of the
reviewer role that share no item; the report shows each per candidate, never as a panel of two whose
agreement is computed on no item.
"""

from __future__ import annotations

import json
from pathlib import Path

from proseval.reliability.analysis import analyse
from proseval.reliability.render import analysis_tables

JUDGE = "openai/the-judge"
END2END = {"low": 1, "high": 10, "kind": "ordinal"}
REVIEW = {"low": 0, "high": 10, "kind": "interval"}


def ravel_like_run(
    folder: Path, candidate: str, judge: str = JUDGE, rescored_from: Path | None = None, shift: int = 0
) -> Path:
    """A RAVEL-like run written by hand: three episodes, each with the End2End judge's verdict and
    the reviewer's last score of two sections (the reviewer being the candidate's own model)."""
    folder.mkdir(parents=True)
    roles = (
        {"judge": {"spec": judge}} if rescored_from else {"candidate": {"spec": candidate}, "judge": {"spec": judge}}
    )
    header = {
        "run_id": folder.name,
        "task": "ravel",
        "task_version": "1",
        "roles": roles,
        "config_hash": "0" * 64,
        "package_version": "0",
        "python": "3",
        "platform": "linux",
        "started_at": f"2026-01-0{1 + shift}T00:00:00+00:00",
        "ratings": {"recorded": True},
        "rescored_from": str(rescored_from) if rescored_from else None,
    }
    (folder / "header.json").write_text(json.dumps(header), encoding="utf-8")
    lines = []
    for n in range(3):
        ratings = [{"criterion": "judge", "value": 3 + n + shift, "scale": END2END, "role": "judge"}]
        if rescored_from is None:
            ratings += [
                {"criterion": f"reviewer: section {s}", "value": 5 + n + s, "scale": REVIEW, "role": "reviewer"}
                for s in (1, 2)
            ]
        lines.append(
            {
                "id": f"item-{n}",
                "epoch": 0,
                "status": "ok",
                "input": f"Topic {n}.",
                "state": {
                    "messages": [],
                    "output": f"A manuscript on topic {n} by {candidate}.",
                    "turns": [],
                    "metadata": {},
                },
                "scores": {},
                "ratings": ratings,
            }
        )
    (folder / "samples.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return folder


def titles(paths: list[Path]) -> tuple[list[str], object]:
    analysis = analyse(paths)
    return [table.title for table in analysis_tables(analysis)], analysis


def test_self_reviews_of_two_candidates_are_shown_per_candidate_not_as_a_panel(tmp_path: Path):
    runs = [
        ravel_like_run(tmp_path / "ravel-a", "openai/model-a"),
        ravel_like_run(tmp_path / "ravel-b", "openai/model-b"),
    ]
    shown, analysis = titles(runs)
    assert not [t for t in shown if t.startswith("Panel of")], shown
    assert not analysis.panels and not [p for p in analysis.pairs if p.role == "reviewer"]
    assert "Agreement between judges" not in shown  # no pair of judges scored a common item
    reviewers = {card.judge: card.candidates for card in analysis.cards if card.role == "reviewer"}
    assert reviewers == {"openai/model-a": ["openai/model-a"], "openai/model-b": ["openai/model-b"]}
    assert all(not card.other_judges for card in analysis.cards if card.role == "reviewer")


def test_judges_that_scored_the_same_items_still_make_a_panel(tmp_path: Path):
    first = ravel_like_run(tmp_path / "ravel-a", "openai/model-a")
    runs = [
        first,
        ravel_like_run(tmp_path / "ravel-b", "openai/model-b"),
        ravel_like_run(
            tmp_path / "ravel-a-rescore", "openai/model-a", judge="openai/other-judge", rescored_from=first, shift=1
        ),
    ]
    shown, analysis = titles(runs)
    assert [t for t in shown if t.startswith("Panel of")] == ["Panel of 2 judges: ravel / judge"]
    [pair] = analysis.pairs
    assert (pair.role, pair.overall.n) == ("judge", 3)  # the three manuscripts of model-a both judges scored
    assert not [p for p in analysis.panels if p.role == "reviewer"]

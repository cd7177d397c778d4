"""The reviewer's verdicts on the final manuscript's sections: the last review of each section of the
final outline, with the text the reviewer read.

The reviewer is a judge inside the episode: its scores steer the policy, and they are verdicts a
model gave on a text, so they are ratings of the ``reviewer`` role (`ratings`), one per reviewed
section, beside the End2End judge's verdict on the whole manuscript. A person labelling an episode
is asked the reviewer's question about the same texts (`labelling`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from proseval.benchmarks._shared.c3e.judge import verdict_ratings
from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.env import Step
from proseval.benchmarks.ravel.report import JUDGE
from proseval.benchmarks.ravel.tools import SCORE_HIGH, SCORE_LOW
from proseval.kit import Rating, Scale, Score

ROLE = "reviewer"
SCALE = Scale(SCORE_LOW, SCORE_HIGH, "interval")  # the reviewer may answer any number from 0 to 10
RECORDED = "section_reviews"  # the key of the trajectory detail (the `steps` score's metadata) holding them


@dataclass(frozen=True)
class SectionReview:
    """The last review of one section: its score, at which step, and the section as the reviewer saw it."""

    section: int  # the section's id (0-based) in the final outline
    step: int
    score: float
    title: str
    points: tuple[str, ...]
    text: str

    @property
    def criterion(self) -> str:
        return criterion(self.section)

    def recorded(self) -> dict[str, Any]:
        return {"section": self.section, "step": self.step, "score": self.score}


def criterion(section: int) -> str:
    """The rating's name for a section (numbered from 1, as a reader counts them)."""
    return f"reviewer: section {section + 1}"


def last_reviews(
    start: st.Episode, steps: list[Step], states: list[st.Episode], texts_from_policy: bool
) -> list[SectionReview]:
    """The last successful review of each section of the final outline, in outline order. `states`
    are the states after each step (`env.replay`); the text reviewed is the section's stored text
    before the review, or with ``--tool-text policy`` the text the policy passed in."""
    last_outline = max((i for i, s in enumerate(steps) if s.action == "outline" and s.outcome == "success"), default=-1)
    last: dict[int, tuple[int, float]] = {}
    for i, s in enumerate(steps[last_outline + 1 :], start=last_outline + 1):
        if s.action == "review" and s.outcome == "success" and s.score is not None and s.section_id is not None:
            last[s.section_id] = i, s.score
    found = []
    for section_id, (i, score) in sorted(last.items()):
        step = steps[i]
        section = (states[i - 1] if i else start).section(section_id)
        text = section.content
        if texts_from_policy:
            text = str(((step.decision or {}).get("params") or {}).get("content", ""))
        found.append(SectionReview(section_id, step.step, score, section.title, section.points, text))
    return found


_judge_ratings = verdict_ratings(JUDGE)


def ratings(scores: Mapping[str, Score]) -> list[Rating]:
    """`Task.ratings` of RAVEL: the End2End judge's score of the manuscript, then the reviewer's last
    score of each reviewed section (recorded in the trajectory detail; none in runs made before)."""
    found = _judge_ratings(scores)
    detail = scores.get("steps")
    reviews = detail.metadata.get(RECORDED) if detail is not None else None
    for entry in reviews or []:
        found.append(Rating(criterion(int(entry["section"])), float(entry["score"]), SCALE, ROLE))
    return found

"""What a person labelling a RAVEL episode is asked, so that `proseval agreement` can compare both
of its judges with people:

- the End2End judge's question about the final manuscript (the answer shown): C3EBench's End2End
  rubric, 1-10 with the human reference worth 6, named as the judge's rating (``judge``) and shown
  as a question about the manuscript; also asked of two episodes' manuscripts side by side;
- for each section of the final outline the reviewer reviewed, the reviewer's question about the
  text it read at its last review (0-10, the pass mark τ stated), named as the reviewer's rating
  (``reviewer: section N``) and shown under the section's number and title. That text is in the
  criterion's description, since it may differ from the manuscript's (a refinement the reviewer
  never saw). Asked of one episode at a time.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from proseval.benchmarks._shared.c3e.labelling import judge_form
from proseval.benchmarks.ravel import state as st
from proseval.benchmarks.ravel.env import Step, replay
from proseval.benchmarks.ravel.prompts import REVIEW_CHECK, REVIEW_SCALE
from proseval.benchmarks.ravel.report import JUDGE
from proseval.benchmarks.ravel.reviews import RECORDED, SectionReview, last_reviews
from proseval.kit.views import LabelCriterion, LabelForm


def _reviews(record: dict[str, Any]) -> list[SectionReview]:
    """The reviews the record's ratings hold, each with the text reviewed (the episode replayed)."""
    state = record.get("state") or {}
    metadata = state.get("metadata") or {}
    detail = ((record.get("scores") or {}).get("steps") or {}).get("metadata") or {}
    rated = {(int(entry["section"]), int(entry["step"])) for entry in detail.get(RECORDED) or []}
    if not rated:
        return []
    target = record.get("target") or {}
    start = st.start(str(target.get("instruction", "")), "", str(target.get("language", "en")))
    settings = st.Settings.model_validate(metadata.get("settings") or {})
    steps = [Step.model_validate(turn) for turn in state.get("turns") or []]
    found = last_reviews(start, steps, replay(start, steps, settings), metadata.get("tool_text") == "policy")
    return [review for review in found if (review.section, review.step) in rated]


def _criterion(review: SectionReview, tau: float, style: str) -> LabelCriterion:
    points = "\n".join(f"- {point}" for point in review.points) or "- (none given)"
    ask = f"{REVIEW_CHECK} {REVIEW_SCALE.replace('{tau}', f'{tau:g}')}."
    description = (
        f'The reviewer\'s question about section {review.section + 1}, "{review.title}", as it read '
        f"it:\n{ask}\n\nStyle and genre: {style}\nPoints it must cover:\n{points}\n\n"
        f"Section text:\n{review.text}"
    )
    title = f'Section {review.section + 1}, "{review.title}": how well does it stand as written (0-10)?'
    return LabelCriterion(review.criterion, description, 0, 10, paired=False, title=title)


def label_form(record: dict[str, Any]) -> LabelForm:
    form = judge_form(
        record, JUDGE, "Which manuscript is better?", "How good is the final manuscript, on the rubric below (1-10)?"
    )
    metadata = (record.get("state") or {}).get("metadata") or {}
    tau = float((metadata.get("settings") or {}).get("tau", st.Settings().tau))
    style = str((metadata.get("final_state") or {}).get("style_guide", ""))
    return replace(form, criteria=[*form.criteria, *(_criterion(r, tau, style) for r in _reviews(record))])

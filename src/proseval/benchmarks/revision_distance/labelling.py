"""What a person labelling Revision Distance is asked: for a chosen/rejected pair, the reviser's own
question, which of the two texts needs fewer edits (recorded on the reviser's -1..1 scale: 1 the
chosen text, -1 the rejected one, 0 as many); a draft of the drafts mode is scored 1-10."""

from __future__ import annotations

from typing import Any

from proseval.benchmarks.revision_distance.scoring import PREFERENCE
from proseval.kit.views import LabelCriterion, LabelForm

FEWER_EDITS = LabelCriterion(
    PREFERENCE,  # "chosen vs rejected": the name the task's pair ratings give the reviser's verdict
    "Pick the text you would have to edit less before you could use it for the instruction (t: as many edits).",
    -1,
    1,
    title="Which text would you have to edit less?",
)
DRAFT = LabelCriterion(
    "draft quality",
    "How little editing this draft needs before it does what the instruction asks "
    "(1 = rewrite it, 10 = use as it is). The task has no judge verdict to compare this with.",
    1,
    10,
    title="How little editing does this draft need (1-10)?",
)


def label_form(record: dict[str, Any]) -> LabelForm:
    target = found if isinstance(found := record.get("target"), dict) else {}
    instruction = str(target.get("instruction") or record.get("input") or "")
    reference = target.get("reference") or None
    if "rejected" in target:  # the pairs mode: the first text is the chosen one, as the scale says
        return LabelForm(
            question=instruction,
            criteria=[FEWER_EDITS],
            reference=reference,
            pairwise="Which text needs fewer edits?",
            texts=(str(target.get("draft", "")), str(target["rejected"])),
        )
    # the drafts mode: every run holds the same given drafts, so there are no answers to pair
    return LabelForm(question=instruction, criteria=[DRAFT], reference=reference, pairwise="")

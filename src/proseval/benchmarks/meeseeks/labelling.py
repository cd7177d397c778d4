"""What a person labelling a Meeseeks answer is asked: the requirements the judge answered, yes/no.

The answer shown is the sample's final one (`State.output`), and the requirements are those the
Yes/No judge was asked about it (`task.judge_verdicts`: the last round evaluated), each named as
`task.judge_ratings` names its verdict, so `proseval agreement` pairs a label with the judge's
verdict on the same requirement. A label is recorded as 1 (yes, met) or 0 (no), the judge's scale.

Not asked: requirements checked by rule (code on the extracted parts: there is no judge verdict
to compare with) and those a failed or undecided dependency kept from the judge. An answer none of
whose requirements went to the judge gets the viewer's default form, which no verdict matches.
The question is the item's task, as the judge reads it (but under ``compat=head``), never a later
round's prompt: its feedback would show the rater the earlier checks' verdicts. No pairs: the
judge's verdicts are absolute, per requirement, and two answers to an item need not have the same
requirements judged.
"""

from __future__ import annotations

from typing import Any

from proseval.benchmarks.meeseeks.task import SCORE, requirement_names
from proseval.kit.views import LabelCriterion, LabelForm


def judged_verdicts(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The judge's verdicts stored with the record's score ([] for none, or an old record)."""
    score = (record.get("scores") or {}).get(SCORE) or {}
    judged = (score.get("metadata") or {}).get("judge_verdicts") or {}
    return list(judged.get("verdicts") or [])


def label_form(record: dict[str, Any]) -> LabelForm:
    verdicts = judged_verdicts(record)
    # the name (the legend) is the requirement's text: the description says where it is in the item
    criteria = [LabelCriterion(name, f"Requirement {verdict['position'] + 1} of the task: yes if the answer meets "
                               "it, no if it does not.", 0, 1)
                for name, verdict in zip(requirement_names(verdicts), verdicts)]
    return LabelForm(question=str(record.get("input") or ""), criteria=criteria, pairwise="")

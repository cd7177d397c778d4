"""What a person labelling a demo answer is asked: the judge's own question, on its 1-10 scale."""

from __future__ import annotations

from typing import Any

from proseval.kit.views import LabelCriterion, LabelForm

QUALITY = LabelCriterion(
    "quality",  # the name the task's ratings give the judge's verdict
    "How well the writing fulfils the request: its clarity, organisation and language. 1 = very poor, 10 = excellent.",
    1,
    10,
    title="How well does the answer fulfil the request (1-10)?",
)


def label_form(record: dict[str, Any]) -> LabelForm:
    request = record.get("input")
    return LabelForm(
        question=request if isinstance(request, str) else str(request),
        criteria=[QUALITY],
        pairwise="Which answer fulfils the request better?",
    )

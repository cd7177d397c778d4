"""What a person labelling a C3EBench answer is asked: the judge's rubric for the item's task and
language (what to look at, and the 1-10 bands with the human reference worth 6), with the reference;
two runs' answers to the same item are compared side by side (A, B or tie) on the same rubric."""

from __future__ import annotations

from typing import Any

from proseval.benchmarks._shared.c3e.labelling import judge_form
from proseval.benchmarks.c3ebench.report import METRIC
from proseval.kit.views import LabelForm


def label_form(record: dict[str, Any]) -> LabelForm:
    # the judge's verdict, named as its ratings name it
    return judge_form(
        record, METRIC, "Which candidate text is better?", "How good is the candidate text, on the rubric below (1-10)?"
    )

"""What a person labelling a haiku is asked: the judge's own question, on its 1-10 scale, under the
name the task's `ratings` give the judge's verdict (so the two can be compared)."""

from __future__ import annotations

from typing import Any

from proseval import kit

QUALITY = kit.views.LabelCriterion("quality", "How good is this haiku: imagery, the theme, and 5-7-5 form? "
                                   "1 = very poor, 10 = excellent.", 1, 10)


def label_form(record: dict[str, Any]) -> kit.views.LabelForm:
    theme = (record.get("metadata") or {}).get("theme", "?")
    return kit.views.LabelForm(question=f"A haiku on the theme: {theme}", criteria=[QUALITY],
                               pairwise="Which haiku is better?")

"""What a person labelling an answer to a C3EBench item is asked: the judge's rubric for the item's
task and language (what to look at, and the 1-10 bands with the human reference worth 6), with the
instruction, its input fields and the reference. C3EBench asks it of each answer; RAVEL of each
final manuscript (its End2End judge)."""

from __future__ import annotations

from typing import Any

from proseval.benchmarks._shared.c3e.judge_prompts import JUDGE_PROMPTS
from proseval.kit.views import LabelCriterion, LabelForm

FIELDS = {"context": "Context", "outline": "Outline", "draft": "Draft", "critique": "Critique"}


def _text(name: str) -> str:
    template = JUDGE_PROMPTS.get(name)
    return template.text if template is not None else ""


def judge_form(record: dict[str, Any], criterion: str, pairwise: str, title: str) -> LabelForm:
    """The judge's one 1-10 verdict as a form: `criterion` is the name the task's ratings give it,
    `title` the words its question is shown under."""
    target = found if isinstance(found := record.get("target"), dict) else {}
    task, language = str(target.get("task", "")), str(target.get("language", "en"))
    parts = [str(target.get("instruction") or record.get("input") or "")]
    for key, value in (target.get("input") or {}).items():
        if value and key != "instruction":
            parts.append(f"[{FIELDS.get(key, key.capitalize())}]\n{value}")
    traits, bands = _text(f"traits_{task}_{language}"), _text(f"bands_{task}_{language}")
    reference = target.get("reference")
    if not reference:
        bands = _text(f"bands_noref_{language}")
    rubric = "\n\n".join(part for part in (traits, bands) if part)
    return LabelForm(
        question="\n\n".join(p for p in parts if p),
        criteria=[LabelCriterion(criterion, rubric, 1, 10, title=title)],
        reference=str(reference) if reference else None,
        pairwise=pairwise,
    )

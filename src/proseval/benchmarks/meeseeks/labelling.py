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

Requirements are shown as the data gives them, untranslated: the official data write most
requirements of the items in other languages in Chinese (3,472 of the 3,582 sub-questions of the
English items; docs/meeseeks.md), and the judge is asked them so. A requirement in Chinese under a
task in another language says so in its description.
"""

from __future__ import annotations

import re
from typing import Any

from proseval.benchmarks.meeseeks.task import SCORE, requirement_names
from proseval.kit.views import LabelCriterion, LabelForm

LANGUAGE_NAMES = {
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "pt": "Portuguese",
    "ru": "Russian",
    "ar": "Arabic",
    "id": "Indonesian",
}
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")
KANA_OR_HANGUL = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")


def in_chinese(text: str) -> bool:
    """Whether a requirement is written in Chinese: Chinese characters, and no Japanese kana or
    Korean Hangul (Japanese writes Chinese characters too)."""
    return bool(HAN.search(text)) and not KANA_OR_HANGUL.search(text)


def description(position: int, requirement: str, language: str) -> str:
    """What a requirement's question says under it: where it is in the task, how to answer, and,
    for one in Chinese under a task in another language, that the data give it so."""
    text = f"Requirement {position + 1} of the task: yes if the answer meets it, no if it does not."
    if language != "zh" and in_chinese(requirement):
        name = LANGUAGE_NAMES.get(language, language)
        text += (
            f" It is in Chinese, as the benchmark's data give most requirements of its {name} items (the task "
            "itself is not): the judge was asked it in Chinese too."
        )
    return text


def judged_verdicts(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The judge's verdicts stored with the record's score ([] for none, or an old record)."""
    score = (record.get("scores") or {}).get(SCORE) or {}
    judged = (score.get("metadata") or {}).get("judge_verdicts") or {}
    return list(judged.get("verdicts") or [])


def label_form(record: dict[str, Any]) -> LabelForm:
    verdicts = judged_verdicts(record)
    language = str((record.get("metadata") or {}).get("language") or "")
    # the name is the requirement's text (numbered when asked twice), the title it with its place in the item
    criteria = [
        LabelCriterion(
            name,
            description(verdict["position"], verdict["question"], language),
            0,
            1,
            title=f"Requirement {verdict['position'] + 1}: {verdict['question']}",
        )
        for name, verdict in zip(requirement_names(verdicts), verdicts)
    ]
    return LabelForm(question=str(record.get("input") or ""), criteria=criteria, pairwise="")

"""Meeseeks and LongWeave runs made by scripted models, for the tests of their labelling forms.

Meeseeks: one item whose requirements are judged (one asked twice, so named with its position),
checked by rule, and kept from the judge by a failed dependency. LongWeave: one BioG, SR, NW and
CF sample each at 1k words; the judge's verdicts follow the target ids, and SR's questions it calls
unanswered leave their ``correct`` unrated (gated). The candidate writes more words than the
target length, so BioG's and NW's judges read only the start.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import proseval
from support.scripted import registered_scripts

HAIKU_ITEM = {
    "category": "general_multi",
    "question": "Write a haiku about autumn leaves and give it a title.",
    "corresponding_parts": {"haiku": "Extract the haiku."},
    "sub_questions": [
        {"point_id": 0, "question": "Is the answer a haiku?", "rule": None, "dep": [], "能力项": "生成特定文案"},
        {"point_id": 1, "question": "Is it about autumn leaves?", "rule": None, "dep": [0], "能力项": "主题约束"},
        {
            "point_id": 2,
            "question": "Does the haiku mention leaves?",
            "corresponding_part": "haiku",
            "rule": 'keywords:["leaves"]',
            "dep": [],
            "能力项": "关键词",
        },
        {"point_id": 3, "question": "Does the answer have a title?", "rule": None, "dep": [], "能力项": "其他"},
        {"point_id": 4, "question": "Is the title in capitals?", "rule": None, "dep": [3], "能力项": "其他"},
        {"point_id": 5, "question": "Is the answer a haiku?", "rule": None, "dep": [], "能力项": "生成特定文案"},
    ],
}
HAIKU = "Red leaves drift and fall\nthe old maple lets them go\ncold wind keeps the rest"
# the judge's verdicts by requirement: the title one fails, so the one depending on it is not asked
MEESEEKS_VERDICTS = {
    "Is the answer a haiku?": "是",
    "Is it about autumn leaves?": "是",
    "Does the answer have a title?": "否",
    "Is the title in capitals?": "是",
}
MEESEEKS_JUDGED = [
    "Is the answer a haiku? (#1)",
    "Is it about autumn leaves?",
    "Does the answer have a title?",
    "Is the answer a haiku? (#6)",
]


def meeseeks_judged_run(out: Path, scripts: Callable[[str, object], str]) -> proseval.Run:
    raw = out.parent / "meeseeks-judged" / "input_data" / "english_data" / "raw_input"
    raw.mkdir(parents=True, exist_ok=True)
    (raw / "DATA-task英语版.json").write_text(json.dumps([HAIKU_ITEM], ensure_ascii=False), encoding="utf-8")

    def judge(messages) -> str:
        prompt = messages[-1]["content"]
        asked = next(q for q in MEESEEKS_VERDICTS if q in prompt)
        return f"分析：checked\n判断：{MEESEEKS_VERDICTS[asked]}"

    roles = {"extractor": scripts("lj-ms-extractor", ["ALL"]), "judge": scripts("lj-ms-judge", judge)}
    return proseval.run(
        "meeseeks",
        model=scripts("lj-ms-candidate", [HAIKU]),
        roles=roles,
        out=out,
        cache=False,
        params={"data_dir": str(out.parent / "meeseeks-judged"), "language": "en", "rounds": 1},
    )


ITEM = re.compile(r"^\[(\d+)\]", re.MULTILINE)
LONG_ANSWER = " ".join(f"word{n}" for n in range(1, 1201))  # 1,200 words: the 1k judges stop at word1024


def longweave_judge(messages) -> str:
    """Verdicts that follow the ids: BioG even facts covered; SR questions not divisible by 3
    answered, even ones correct; NW odd statements present, those divisible by 3 in AP style."""
    prompt = messages[-1]["content"]
    if "relevant_and_complete" in prompt:
        return '{"relevant_and_complete": true}'
    ids = [int(i) for i in ITEM.findall(prompt)]
    if "Facts to check" in prompt:
        verdicts = [{"id": i, "covered": i % 2 == 0} for i in ids]
    elif "Reference answer" in prompt:
        verdicts = [{"id": i, "answered": i % 3 != 0, "correct": i % 2 == 0} for i in ids]
    else:
        verdicts = [{"id": i, "exists": i % 2 == 1, "follows_rules": i % 3 == 0, "evidence": ""} for i in ids]
    return json.dumps(verdicts)


def longweave_judged_run(out: Path, scripts: Callable[[str, object], str]) -> proseval.Run:
    return proseval.run(
        "longweave",
        model=scripts("lj-lw-candidate", lambda m: LONG_ANSWER),
        roles={"judge": scripts("lj-lw-judge", longweave_judge)},
        out=out,
        cache=False,
        params={"task": "biog,sr,nw,cf", "length": "1k", "per_cell": 1, "judge_attempts": 1},
    )


def judged_runs(root: Path) -> Path:
    """The Meeseeks run and the LongWeave run under `root` (their scripts registered meanwhile)."""
    with registered_scripts() as scripts:
        meeseeks_judged_run(root, scripts)
        longweave_judged_run(root, scripts)
    return root

"""A tiny hand-made C3EBench data set in the official record shapes (EN 4 items, ZH 4 items)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EN_RECORDS: list[dict[str, Any]] = [
    {
        "infer_id": "cloze_en_1",
        "task_type": "cloze",
        "sub_task": "essay",
        "instruction": "Fill the blank marked [fill in the blank] using the context.",
        "input": {"prefix": "The river rose overnight.\n", "suffix": "\nBy noon the water had gone."},
        "reference": "Farmers moved their animals to the hills.",
    },
    {
        "infer_id": "condition_en_1",
        "task_type": "condition",
        "sub_task": "speech",
        "instruction": "Write a short speech thanking volunteers, in three parts.",
        "input": {
            "genre": "Speech",
            "brief": "Thanks to flood volunteers.",
            "condition": "1. Opening 2. Stories 3. Thanks",
            "audience": "Town residents",
            "word": "200-300",
        },
        "reference": "Friends, neighbours, volunteers: thank you.",
    },
    {
        "infer_id": "edit_en_1",
        "task_type": "edit",
        "sub_task": "essay",
        "instruction": "Rewrite the draft based on the content and the critique.",
        "input": {"content": "Floods are bad.", "critique": "Too vague: name a concrete consequence."},
        "reference": "Floods ruin harvests and homes within hours.",
    },
    {
        "infer_id": "end2end_en_1",
        "task_type": "end2end",
        "sub_task": "academic_writing",
        "instruction": "Write an essay on river management.",
        "input": {"genre": "Essay", "brief": "River management.", "audience": "Students", "word": "800"},
        "reference": "River management balances farming, housing and nature.",
    },
]

ZH_RECORDS: list[dict[str, Any]] = [
    {
        "infer_id": "cloze_cn_7",
        "task_type": "cloze",
        "sub_task": "散文",
        "instruction": "请根据上下文补全以下文章中用 [fill in the blank] 特殊符号标记出的内容。",
        "input": {"content": "清晨的西湖很安静。[fill in the blank]傍晚游人才渐渐散去。"},
        "reference": "午后，湖边挤满了赏荷的人。",
        "meta": {"old_id": "infer_7"},
        "id": None,
    },
    {
        "infer_id": "condition_cn_400",
        "task_type": "condition",
        "sub_task": "议论文",
        "instruction": "请写一篇关于读书的评论。\n\n下面是已经规划好的大纲，请根据大纲内容进行写作。",
        "input": {"outline": "【大纲】\n- 读书的意义\n- 读书的方法"},
        "reference": "读书使人明理。",
        "meta": {"old_id": "infer_400"},
        "id": None,
    },
    {
        "infer_id": "edit_cn_900",
        "task_type": "edit",
        "sub_task": "诗歌",
        "instruction": "你的任务是根据“reference”（原文背景材料）和“content”（初稿文本），结合“专业点评与修改建议”，对初稿进行改写。",
        "input": {"content": "桥很老了。", "critique": "【问题诊断与修改建议】意象单薄，请加入具体细节。"},
        "reference": "木廊桥落成，群山转身。",
        "meta": {"old_id": "edit_9"},
        "id": "edit_9",
    },
    {
        "infer_id": "end2end_cn_1200",
        "task_type": "end2end",
        "sub_task": "公文",
        "instruction": "请写一份关于防汛工作的通知。",
        "input": {"content": ""},
        "reference": "各单位：为做好防汛工作，现通知如下。",
        "meta": {"old_id": "infer_1200"},
        "id": None,
    },
]

HUMAN_IDS = ["cloze_cn_7", "condition_cn_400", "edit_cn_900"]
HYBRID_IDS = ["end2end_cn_1200"]


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)


def write_tiny(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "english_dataset.jsonl").write_text(jsonl(EN_RECORDS), encoding="utf-8")
    (folder / "chinese_dataset_v2.jsonl").write_text(jsonl(ZH_RECORDS), encoding="utf-8")
    (folder / "human_ids_zh.txt").write_text("\n".join(HUMAN_IDS) + "\n", encoding="utf-8")
    (folder / "hybrid_ids_zh.txt").write_text("\n".join(HYBRID_IDS) + "\n", encoding="utf-8")
    return folder

"""Every text C3EBench sends, as named templates (replace any with ``--prompt NAME=FILE``).

Candidate prompts: ``candidate_{task}_{lang}`` (proseval's posing) and ``official_{task}_{lang}``
(the official code's posing, reproduced in structure with proseval's wording, for
``--compat official``; only where it differs). The judge's templates are shared with RAVEL
(`proseval.benchmarks._shared.c3e.judge_prompts`). All wording is proseval's own.
"""

from __future__ import annotations

from proseval.benchmarks._shared.c3e.fields import EN_CLOZE_GAP
from proseval.benchmarks._shared.c3e.judge_prompts import JUDGE_PROMPTS
from proseval.kit import PromptTemplate
from proseval.kit import PromptTemplate as _t  # short, for the long tables below

CLOSING_EN = "Reply with the requested text only, without any explanation or commentary."
CLOSING_ZH = "请只输出所要求的文本，不要附加任何解释或说明。"


# --- candidate -------------------------------------------------------------------------------------

CANDIDATE = [
    _t(
        "candidate_cloze_en",
        "{instruction}\n\n{prefix}" + EN_CLOZE_GAP + "{suffix}\n\n"
        "Write only the passage that belongs in the gap. " + CLOSING_EN,
        ("instruction", "prefix", "suffix"),
        description="EN Cloze: the article with its gap, then the request",
    ),
    _t(
        "candidate_cloze_zh",
        "{instruction}\n\n下面是完整的文章，缺失的部分用 [fill in the blank] 标出：\n\n{content}\n\n"
        "请只写出应当填入空缺处的文字。" + CLOSING_ZH,
        ("instruction", "content"),
        description="ZH Cloze: the instruction, then the article with its gap",
    ),
    _t(
        "official_cloze_zh",
        "{instruction}\n\n" + CLOSING_ZH,
        ("instruction",),
        description="ZH Cloze as the official code poses it: the article is not shown (compat only)",
    ),
    _t(
        "candidate_expand_en",
        "{instruction}\n\n" + CLOSING_EN,
        ("instruction",),
        description="EN Expand: the request, which already describes the planned structure",
    ),
    _t(
        "candidate_expand_zh",
        "{instruction}\n\n[大纲]\n{outline}\n\n" + CLOSING_ZH,
        ("instruction", "outline"),
        description="ZH Expand: the request and its outline",
    ),
    _t(
        "candidate_edit_en",
        "Revise the draft below. The critique that follows it diagnoses the draft's weaknesses "
        "and suggests changes. Apply that advice so that the passage becomes a stronger piece of writing, while "
        "keeping the draft's subject and purpose.\n\n[Content: the draft to revise]\n{draft}\n\n"
        "[Critique: diagnosis and suggestions]\n{critique}\n\nReply with the revised passage only, without any "
        "explanation or commentary.",
        ("draft", "critique"),
        ("instruction",),
        description="EN Edit: proseval's own request, the draft and the critique, each labelled for what it is",
    ),
    _t(
        "official_edit_en",
        "{instruction}\n\n[Content]\n{draft}\n\n[Critique]\n{critique}\n\n"
        "Reply with the revised passage only, without any explanation or commentary.",
        ("instruction", "draft", "critique"),
        description="EN Edit as the official code poses it: the data's instruction, which calls the draft "
        "background material (compat only)",
    ),
    _t(
        "candidate_edit_zh",
        "请修改下面的初稿。初稿后面附有一段专业点评，指出了初稿的问题并给出修改建议。请依照这些建议改写初稿，"
        "使它成为更好的作品，同时保留初稿的主题和用途。\n\n【初稿（content）】\n{draft}\n\n"
        "【点评与修改建议（critique）】\n{critique}\n\n请只输出修改后的文本，不要附加任何解释或说明。",
        ("draft", "critique"),
        ("instruction",),
        description="ZH Edit: proseval's own request; the draft and the critique labelled as such",
    ),
    _t(
        "official_edit_zh",
        "{instruction}\n\n【原文背景材料】\n{draft}\n\n【初稿材料】\n{critique}\n\n"
        "请只输出修改后的文本，不要附加任何解释或说明。",
        ("instruction", "draft", "critique"),
        description="ZH Edit as the official code poses it: draft labelled as background material, critique as "
        "draft, the instruction citing a reference never given (compat only)",
    ),
    _t(
        "candidate_end2end_en",
        "{instruction}\n\n" + CLOSING_EN,
        ("instruction",),
        description="EN End2End: the request",
    ),
    _t(
        "candidate_end2end_zh",
        "{instruction}\n\n" + CLOSING_ZH,
        ("instruction",),
        description="ZH End2End: the request",
    ),
]

PROMPTS: dict[str, PromptTemplate] = {**{t.name: t for t in CANDIDATE}, **JUDGE_PROMPTS}

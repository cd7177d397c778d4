"""The texts of C3EBench's judge, as named templates (replace any with ``--prompt NAME=FILE``).

The system message is ``judge_{task}_{lang}`` with two slots, ``{traits}`` (``traits_{task}_{lang}``:
what to look at) and ``{scale}`` (``bands_{task}_{lang}``: the 1-10 bands, the human reference
worth 6); the user message is ``judge_user_{task}`` (``judge_user_{task}_noref`` without the
reference). The ablations swap a slot's text for ``traits_generic_{lang}``, ``scale_plain_{lang}``,
``bands_noref_{lang}`` or ``scale_plain_noref_{lang}``. All wording is proseval's own.
"""

from __future__ import annotations

from proseval.kit import PromptTemplate
from proseval.kit import PromptTemplate as _t  # short, for the long tables below

# --- judge: system messages --------------------------------------------------------------------------

_FORMAT_EN = (
    "Keep the whole answer under 300 words. Answer with one JSON object and nothing else, shaped like "
    "this example (the score is a single whole number):\n"
)
_FORMAT_ZH = "全部回答不超过300字。只输出一个JSON对象，不要输出其他内容，格式如下例（score 为一个整数）：\n"

JUDGE_SYSTEM = [
    _t(
        "judge_cloze_en",
        "You are a professor of text linguistics who grades gap-filling answers. One passage was "
        "taken out of an article; the [Context] shows the article with the gap marked. The [Candidate] is the "
        "passage a model wrote for the gap. Decide how well it fills the gap.\n\nWhat to look at:\n{traits}\n\n"
        "How to score (a whole number from 1 to 10):\n{scale}\n\n"
        + _FORMAT_EN
        + '{"critique": {"strengths_and_weaknesses": "...", "decisive_reason": "..."}, "score": 6, '
        '"verdict": "one sentence"}',
        (),
        ("traits", "scale"),
        description="judge system message, EN Cloze",
    ),
    _t(
        "judge_expand_en",
        "You are the chief judge of a writing contest that spans many genres. The writer was "
        "given an [Instruction] and an [Outline] to develop into a full text; the [Candidate] is what the writer "
        "produced. Assess it.\n\nWhat to look at:\n{traits}\n\nHow to score (a whole number from 1 to 10):\n"
        "{scale}\n\n" + _FORMAT_EN + '{"analysis": {"outline_coverage": "...", "structure_and_style": "...", '
        '"overall": "..."}, "score": 6, "verdict": "one sentence"}',
        (),
        ("traits", "scale"),
        description="judge system message, EN Expand",
    ),
    _t(
        "judge_edit_en",
        "You are a senior editor who checks revisions. A writer received a [Draft] and a "
        "[Critique] of it and had to revise the draft accordingly; the [Candidate] is the revision. Assess how "
        "well it carries out the critique and how good the resulting text is.\n\nWhat to look at:\n{traits}\n\n"
        "How to score (a whole number from 1 to 10):\n{scale}\n\n"
        + _FORMAT_EN
        + '{"critique_uptake": {"applied": "...", "missed_or_misread": "...", "content_kept": "..."}, '
        '"quality": "...", "score": 6, "verdict": "one sentence"}',
        (),
        ("traits", "scale"),
        description="judge system message, EN Edit (for any Edit item, not one particular text)",
    ),
    _t(
        "judge_end2end_en",
        "You are an experienced editor and critic who reads every kind of writing. The writer "
        "received only the [Instruction]; the [Candidate] is the text produced. Assess it in the genre the writer "
        "chose, as long as that genre suits the instruction.\n\nWhat to look at:\n{traits}\n\n"
        "How to score (a whole number from 1 to 10):\n{scale}\n\n"
        + _FORMAT_EN
        + '{"analysis": {"instruction_fit_and_structure": "...", "language_and_originality": "...", '
        '"form": "..."}, "score": 6, "verdict": "one sentence"}',
        (),
        ("traits", "scale"),
        description="judge system message, EN End2End",
    ),
    _t(
        "judge_cloze_zh",
        "你是一位研究篇章语言学的教授，负责评阅补写题。一篇文章中被抽去了一段，[Context] 给出了标有空缺位置的文章，"
        "[Candidate] 是模型为空缺处写出的段落。请判断它补得好不好。\n\n评阅要点：\n{traits}\n\n评分方法（1到10的整数）：\n"
        "{scale}\n\n" + _FORMAT_ZH + '{"critique": {"strengths_and_weaknesses": "……", "decisive_reason": "……"}, '
        '"score": 6, "verdict": "一句话结论"}',
        (),
        ("traits", "scale"),
        description="judge system message, ZH Cloze",
    ),
    _t(
        "judge_expand_zh",
        "你是一场多文体写作比赛的评审组长。作者拿到了 [Instruction] 和需要扩写成全文的 [Outline]，"
        "[Candidate] 是作者交出的文章。请对它作出评价。\n\n评阅要点：\n{traits}\n\n评分方法（1到10的整数）：\n{scale}\n\n"
        + _FORMAT_ZH
        + '{"analysis": {"outline_coverage": "……", "structure_and_style": "……", "overall": "……"}, '
        '"score": 6, "verdict": "一句话结论"}',
        (),
        ("traits", "scale"),
        description="judge system message, ZH Expand",
    ),
    _t(
        "judge_edit_zh",
        "你是一位负责审稿的资深编辑。作者拿到了一份 [Draft]（初稿）和针对它的 [Critique]（点评与修改建议），"
        "需要据此修改初稿；[Candidate] 是修改后的文本。请评价它落实点评的程度以及修改后文本的质量。\n\n评阅要点：\n{traits}\n\n"
        "评分方法（1到10的整数）：\n{scale}\n\n" + _FORMAT_ZH + '{"critique_uptake": {"applied": "……", '
        '"missed_or_misread": "……", "content_kept": "……"}, "quality": "……", "score": 6, "verdict": "一句话结论"}',
        (),
        ("traits", "scale"),
        description="judge system message, ZH Edit (for any Edit item)",
    ),
    _t(
        "judge_end2end_zh",
        "你是一位阅读面很广的编辑和评论家。作者只拿到了 [Instruction]，[Candidate] 是作者写出的文章。"
        "只要作者选择的文体符合要求，就按该文体的标准来评价。\n\n评阅要点：\n{traits}\n\n评分方法（1到10的整数）：\n{scale}\n\n"
        + _FORMAT_ZH
        + '{"analysis": {"instruction_fit_and_structure": "……", "language_and_originality": "……", '
        '"form": "……"}, "score": 6, "verdict": "一句话结论"}',
        (),
        ("traits", "scale"),
        description="judge system message, ZH End2End",
    ),
]

TRAITS = [
    _t(
        "traits_cloze_en",
        "1. Meaning: the passage fits what comes before and after it and moves the text forward.\n"
        "2. Cohesion: it joins the text smoothly at both ends, without contradiction, repetition or loose ends.\n"
        "3. Language: grammar, word choice, tone and register match the surrounding article.",
        description="what the EN Cloze judge looks at",
    ),
    _t(
        "traits_expand_en",
        "1. Outline coverage: every point of the outline is developed; names, dates, figures "
        "and concepts it lists are present and right.\n2. Genre: the text reads as the kind of text requested, for "
        "its audience.\n3. Flow: the parts grow out of one another instead of being listed mechanically.\n"
        "4. Substance and originality: ideas are developed with concrete detail rather than filler.\n"
        "5. Form: layout, headings and length suit the request.",
        description="what the EN Expand judge looks at",
    ),
    _t(
        "traits_edit_en",
        "1. Uptake: each problem the critique names is addressed, in the way it suggests or in a "
        "better one; nothing it asks for is ignored or misread.\n2. Preservation: the draft's subject, facts and "
        "purpose are kept; the revision does not invent a different text.\n3. Quality: the revised passage is "
        "clear, precise and well organised, in the register its genre needs (essay, report, speech, story or "
        "poem alike).\n4. Economy: the revision does not add padding, sermonising or needless length.",
        description="what the EN Edit judge looks at (generic: any genre)",
    ),
    _t(
        "traits_end2end_en",
        "1. Instruction fit: the topic, purpose, audience, length and any constraints of the "
        "instruction are met.\n2. Structure: the text is organised and argued or narrated the way its genre "
        "expects.\n3. Language and originality: precise, varied and fresh rather than generic.\n"
        "4. Form: formatting and genre conventions are respected.",
        description="what the EN End2End judge looks at",
    ),
    _t(
        "traits_cloze_zh",
        "1. 语义：所补段落与前后文意思衔接，并推动文章向前发展。\n2. 连贯：与上下文两端过渡自然，没有矛盾、重复或断裂。\n"
        "3. 语言：语法、用词、语气和语体与全文一致。",
        description="what the ZH Cloze judge looks at",
    ),
    _t(
        "traits_expand_zh",
        "1. 大纲落实：大纲的每个要点都得到展开，其中的人名、年份、数据和概念齐全准确。\n2. 文体：文章符合所要求的文体和读者对象。\n"
        "3. 行文：各部分自然生发、层层推进，而不是机械罗列。\n4. 内容与新意：观点有具体材料支撑，不空泛。\n5. 格式：版式、标题和篇幅符合要求。",
        description="what the ZH Expand judge looks at",
    ),
    _t(
        "traits_edit_zh",
        "1. 落实点评：点评指出的每个问题都得到处理，方式与建议一致或更好；没有遗漏或误解。\n"
        "2. 保留原意：初稿的主题、事实和用途得到保留，没有写成另一篇文章。\n3. 质量：修改后的文本清楚、准确、条理分明，"
        "语体符合其文体（议论文、纪实、散文、小说或诗歌均然）。\n4. 简洁：没有添加空话、说教或不必要的篇幅。",
        description="what the ZH Edit judge looks at (generic: any genre)",
    ),
    _t(
        "traits_end2end_zh",
        "1. 符合要求：题目、目的、读者、篇幅及各项限制都得到满足。\n2. 结构：文章的组织和论证（或叙述）符合该文体的要求。\n"
        "3. 语言与新意：表达准确、丰富、有新意，不落俗套。\n4. 格式：遵守格式与文体规范。",
        description="what the ZH End2End judge looks at",
    ),
    _t("traits_generic_en", "Judge the candidate as a whole.", description="--judge-no-traits: replaces the traits"),
    _t("traits_generic_zh", "请对 [Candidate] 作整体评价。", description="--judge-no-traits: replaces the traits"),
]

_REF_EN = (
    "The [Reference] is the text the human author wrote for this item. It is the baseline and is worth "
    "exactly 6: a candidate as good as the reference scores 6.\n"
)
_REF_ZH = "[Reference] 是人类作者为本题写的原文，作为基准，记 6 分：与原文水平相当的答案得 6 分。\n"

BANDS = [
    _t(
        "bands_cloze_en",
        _REF_EN + "- 8-10: better than the reference: fits more tightly and reads better.\n"
        "- 7: slightly better than the reference.\n- 6: as good as the reference.\n"
        "- 4-5: weaker than the reference: it fits, but reads awkwardly, drifts, or leaves part of the gap unfilled.\n"
        "- 1-3: breaks the text: contradicts the context, is off-topic, garbled, or not a gap filling at all.",
        description="EN Cloze score bands, reference = 6",
    ),
    _t(
        "bands_expand_en",
        _REF_EN + "- 9-10: far better than the reference.\n- 7-8: better than the reference.\n"
        "- 6: as good as the reference.\n- 4-5: stiff or mechanical, or one or two minor outline points are "
        "missing.\n- 1-3: departs from the outline or the request, or is the wrong genre.",
        description="EN Expand score bands, reference = 6",
    ),
    _t(
        "bands_edit_en",
        _REF_EN + "- 8-10: the critique is fully absorbed and the result is better and more "
        "original than the reference.\n- 7: every suggestion is applied well; slightly better than the reference.\n"
        "- 6: every suggestion is applied; as good as the reference.\n- 4-5: only part of the critique is "
        "applied, or the revision is weaker than the reference.\n- 1-3: the critique is ignored, or the revision "
        "damages the draft.",
        description="EN Edit score bands, reference = 6",
    ),
    _t(
        "bands_end2end_en",
        _REF_EN + "- 8-10: clearly better than the reference.\n- 7: fully meets the "
        "instruction and is slightly better than the reference.\n- 6: fully meets the instruction; as good as "
        "the reference.\n- 4-5: meets the instruction only superficially.\n- 1-3: departs from the instruction.",
        description="EN End2End score bands, reference = 6",
    ),
    _t(
        "bands_cloze_zh",
        _REF_ZH + "- 8-10：优于原文，衔接更紧密，表达更好。\n- 7：略优于原文。\n- 6：与原文相当。\n"
        "- 4-5：不如原文：大体能接上，但表达生硬、偏离文意或没有补全。\n- 1-3：破坏文章：与上下文矛盾、离题、语句不通或根本不是补写。",
        description="ZH Cloze score bands, reference = 6",
    ),
    _t(
        "bands_expand_zh",
        _REF_ZH + "- 9-10：远超原文。\n- 7-8：优于原文。\n- 6：与原文相当。\n"
        "- 4-5：行文生硬或机械，或遗漏一两个次要的大纲要点。\n- 1-3：偏离大纲或要求，或文体错误。",
        description="ZH Expand score bands, reference = 6",
    ),
    _t(
        "bands_edit_zh",
        _REF_ZH + "- 8-10：充分吸收点评，修改结果优于原文，更有新意。\n- 7：各条建议都落实得好，略优于原文。\n"
        "- 6：各条建议都已落实，与原文相当。\n- 4-5：只落实了部分点评，或修改稿不如原文。\n- 1-3：无视点评，或改坏了初稿。",
        description="ZH Edit score bands, reference = 6",
    ),
    _t(
        "bands_end2end_zh",
        _REF_ZH + "- 8-10：明显优于原文。\n- 7：完全符合要求，略优于原文。\n- 6：完全符合要求，与原文相当。\n"
        "- 4-5：只在表面上符合要求。\n- 1-3：偏离要求。",
        description="ZH End2End score bands, reference = 6",
    ),
    _t(
        "bands_noref_en",
        "- 9-10: excellent; hard to improve.\n- 7-8: good, with minor flaws.\n"
        "- 5-6: adequate, with clear weaknesses.\n- 3-4: poor, with serious problems.\n- 1-2: fails the task.",
        description="--judge-no-reference: absolute bands (no reference shown)",
    ),
    _t(
        "bands_noref_zh",
        "- 9-10：优秀，难以改进。\n- 7-8：良好，有小瑕疵。\n- 5-6：尚可，有明显不足。\n- 3-4：较差，问题严重。\n"
        "- 1-2：未完成任务。",
        description="--judge-no-reference: absolute bands (no reference shown)",
    ),
    _t(
        "scale_plain_en",
        "Give a whole number from 1 to 10. The [Reference] is the human author's text for this "
        "item and is worth 6: score higher if the candidate is better, lower if it is worse.",
        description="--judge-no-rubric: the bare scale, reference = 6",
    ),
    _t(
        "scale_plain_zh",
        "给出1到10的整数。[Reference] 是人类作者的原文，记6分：答案更好则高于6分，更差则低于6分。",
        description="--judge-no-rubric: the bare scale, reference = 6",
    ),
    _t(
        "scale_plain_noref_en",
        "Give a whole number from 1 to 10; higher is better.",
        description="--judge-no-rubric with --judge-no-reference",
    ),
    _t(
        "scale_plain_noref_zh",
        "给出1到10的整数，越好分数越高。",
        description="--judge-no-rubric with --judge-no-reference",
    ),
]

# --- judge: user messages ----------------------------------------------------------------------------

_FIELDS = {
    "cloze": (("Context", "context"),),
    "expand": (("Instruction", "instruction"), ("Outline", "outline")),
    "edit": (("Draft", "draft"), ("Critique", "critique")),
    "end2end": (("Instruction", "instruction"),),
}


def _user(task: str, with_reference: bool) -> PromptTemplate:
    reference = [("Reference", "reference")] if with_reference else []
    fields = [*_FIELDS[task], *reference, ("Candidate", "candidate")]
    text = "\n\n".join(f"[{label}]\n{{{slot}}}" for label, slot in fields)
    name = f"judge_user_{task}" + ("" if with_reference else "_noref")
    what = "with" if with_reference else "without (--judge-no-reference)"
    return _t(
        name, text, tuple(slot for _, slot in fields), description=f"judge user message, {task}, {what} the reference"
    )


JUDGE_USER = [_user(task, ref) for task in _FIELDS for ref in (True, False)]

JUDGE_PROMPTS: dict[str, PromptTemplate] = {t.name: t for t in (*JUDGE_SYSTEM, *TRAITS, *BANDS, *JUDGE_USER)}

"""Every text RAVEL sends, as named templates (replace any with ``--prompt NAME=FILE``).

``policy_system`` / ``policy_turn``: the policy (the model under test) choosing the next action.
``planner`` / ``writer`` / ``reviewer`` / ``reviser``: the four tools. The final manuscript is
judged with C3EBench's End2End judge templates (``judge_end2end_{lang}``, ``traits_end2end_{lang}``,
``bands_end2end_{lang}``, ``judge_user_end2end``), shared with `c3ebench`. All wording is proseval's own.
"""

from __future__ import annotations

from proseval.benchmarks._shared.c3e.judge_prompts import JUDGE_PROMPTS
from proseval.kit import PromptTemplate

_POLICY_HEAD = """You are the editor in charge of producing one piece of writing. You never write text yourself: \
you direct four assistants through actions, one action per turn, and you see the state of the work after each.

Actions:
- outline — params {}: the planner drafts a title and a list of sections with their key points. A new outline \
replaces the old one and discards every section text.
- draft — params {"section_id": N}: the writer writes section N from its points, continuing from the previous \
section's summary. The section becomes "drafted".
"""
_POLICY_TAIL = """- finish — params {}: hand in the manuscript and stop. Finish once every section is "completed".

Section ids are whole numbers starting at 0. You have {max_steps} turns in all; every answer uses one, an \
invalid one included. Answer with one JSON object and nothing else, for example:
{"thought": "section 0 has no text yet", "action": "draft", "params": {"section_id": 0}}"""

POLICY_SYSTEM = (
    _POLICY_HEAD
    + """- review — params {"section_id": N}: the reviewer scores a written section from 0 to 10. A score of {tau} or \
more makes it "completed"; a lower score makes it "revision_needed", with feedback.
- refine — params {"section_id": N}: the reviser rewrites a "revision_needed" section following the feedback. \
It becomes "drafted" again and needs another review. {cap_rule}
"""
    + _POLICY_TAIL
)

# --tool-text policy: the tools work on the texts the policy passes, as in the official agent.
POLICY_SYSTEM_TEXTS = (
    _POLICY_HEAD
    + """- review — params {"section_id": N, "content": "<the text to review>"}: \
the reviewer scores the text you pass as section N, from 0 to 10. A score of {tau} or more makes the section \
"completed"; a lower score makes it "revision_needed", with feedback. Pass the section's current text in full.
- refine — params {"section_id": N, "content": "<the text to revise>", "feedback": "<what to change>"}: the \
reviser rewrites the text you pass following the feedback you pass, and the result becomes section N's text. \
Pass the section's current text and the reviewer's feedback in full. The section becomes "drafted" again and \
needs another review. {cap_rule}
"""
    + _POLICY_TAIL
)

POLICY_TURN = """Turn {step} of {max_steps} ({steps_left} left after this one).

Current state:
{state}

Your recent actions and what came of them:
{history}

Choose the next action. Answer with one JSON object: {"thought": ..., "action": ..., "params": {...}}"""

PLANNER = """Plan a piece of writing.

Task: {topic}
Style and genre: {style_guide}
Language of the text: {language}

Divide the text into sections that together fulfil the task, in reading order; {section_rule} Give the whole \
text a title, and give each section a title and the points it must cover. Answer with one JSON object and \
nothing else:
{"title": "...", "sections": [{"title": "...", "points": ["...", "..."]}]}"""

WRITER = """You are writing one section of a longer text.

Task of the whole text: {topic}
Style and genre: {style_guide}
Language: {language}
Title of the text: {title}
This section: {section_title}
Points it must cover:
{points}
Summary of the section before it: {previous_summary}

Write the body of this section (no heading), covering every point, following the style, and continuing \
naturally from the previous section. Then summarise what you wrote in one sentence. Answer with one JSON \
object and nothing else:
{"content": "<the body of the section>", "summary": "<one sentence>"}"""

# What the reviewer checks and how it scores: also what a person labelling a reviewed section is asked.
REVIEW_CHECK = (
    "Check that every point is covered, that the style fits, that the reasoning or narrative holds "
    "together and that the section has substance."
)
REVIEW_SCALE = "Score it from 0 to 10: {tau} or more means it can stand as it is (minor flaws at most)"

REVIEWER = (
    """You review one section of a longer text.

Task of the whole text: {topic}
Style and genre: {style_guide}
Section: {section_title}
Points it must cover:
{points}

Section text:
{content}

"""
    + REVIEW_CHECK
    + " "
    + REVIEW_SCALE
    + """; below {tau}, say precisely what is missing or wrong so that a \
reviser can fix it. Answer with one JSON object and nothing else:
{"score": <your score, a number from 0 to 10>, "feedback": "<what to fix; empty if nothing>"}"""
)

REVISER = """You revise one section of a longer text according to a reviewer's feedback.

Task of the whole text: {topic}
Style and genre: {style_guide}
Language: {language}
Section: {section_title}
Points it must cover:
{points}

Current text:
{content}

Reviewer's feedback:
{feedback}

Rewrite the section so that it answers the feedback, keeps every point and the style, and keeps what was \
already good. Answer with one JSON object and nothing else:
{"content": "<the revised body of the section>", "changes": "<what you changed, briefly>"}"""


def _t(name: str, text: str, placeholders: tuple[str, ...], description: str) -> PromptTemplate:
    return PromptTemplate(name, text, placeholders, description=description)


OWN = [
    _t(
        "policy_system",
        POLICY_SYSTEM,
        ("tau", "cap_rule", "max_steps"),
        "the policy's system message: the actions and the answer format",
    ),
    _t(
        "policy_system_texts",
        POLICY_SYSTEM_TEXTS,
        ("tau", "cap_rule", "max_steps"),
        "the policy's system message with --tool-text policy: review and refine carry the texts in params",
    ),
    _t(
        "policy_turn",
        POLICY_TURN,
        ("step", "max_steps", "steps_left", "state", "history"),
        "the policy's turn: the state (JSON) and its recent actions with their outcomes",
    ),
    _t(
        "planner",
        PLANNER,
        ("topic", "style_guide", "language", "section_rule"),
        "outline tool: title and sections ({section_rule}: as many as the text needs, or the --max-sections cap)",
    ),
    _t(
        "writer",
        WRITER,
        ("topic", "style_guide", "language", "title", "section_title", "points", "previous_summary"),
        "draft tool: one section's text and a one-sentence summary",
    ),
    _t(
        "reviewer",
        REVIEWER,
        ("topic", "style_guide", "section_title", "points", "content", "tau"),
        "review tool: a 0-10 score and feedback (the pass mark τ is stated)",
    ),
    _t(
        "reviser",
        REVISER,
        ("topic", "style_guide", "language", "section_title", "points", "content", "feedback"),
        "refine tool: the section rewritten from the feedback",
    ),
]

JUDGE_NAMES = (
    "judge_end2end_en",
    "judge_end2end_zh",
    "traits_end2end_en",
    "traits_end2end_zh",
    "bands_end2end_en",
    "bands_end2end_zh",
    "judge_user_end2end",
)

PROMPTS: dict[str, PromptTemplate] = {**{t.name: t for t in OWN}, **{n: JUDGE_PROMPTS[n] for n in JUDGE_NAMES}}

"""The reviser's prompts, one per setting; each is replaceable with ``--prompt NAME=FILE``.

The texts are proseval's own wording of what the paper's reviser is told (§3, App. D): the
reviser revises for concept, structure, coherence and logical flow and leaves grammar and word
choice alone; in the knowledge-intensive setting it works on the cited works (references) —
expanding, simplifying, comparing, grouping, reorganising them — and does not copy sentences
from the target text.
"""

from __future__ import annotations

from proseval.kit import PromptTemplate

SETTINGS = ("general", "knowledge", "reference-free")
PROMPT_OF_SETTING = {
    "general": "reviser-general",
    "knowledge": "reviser-knowledge",
    "reference-free": "reviser-reference-free",
}
# The revision levels each prompt offers (and the structured-output schema allows).
PROMPT_LEVELS = {
    "general": ("phrase", "sentence", "paragraph", "document"),
    "knowledge": ("reference", "sentence", "paragraph", "document"),
    "reference-free": ("phrase", "sentence", "paragraph", "document"),
}

_FOCUS = """Revise for substance, not surface. Look at the concepts the draft presents, how it is structured, whether
its parts hang together and whether one point leads logically to the next. Leave grammar, spelling,
punctuation and word choice as they are: an edit that only corrects them, or swaps a word for one that means
the same, is not wanted."""


def _format(actions: str, levels: str, revised: str, category: str = "") -> str:
    return f"""Reply with a JSON array and nothing else. Each element is one edit:
{{"action_name": "<one verb: {actions}, ...>",
 "revision_description": "<what the edit does, one sentence>",
 "revision_level": "<{levels}>",
 "original_snippet": "<the exact draft text the edit changes; empty for a pure insertion>",
 "revised_snippet": "<{revised}; empty for a pure deletion>",
 "revision_intention": "<why the edit brings the draft closer to the goal>"{category}}}
One edit performs one action on one place of the draft: if you would "simplify and reorganize"
a passage, list the two edits separately. Copy original snippets from the draft word for word.
List only edits that are needed; if the draft needs none, reply with []."""


_GENERAL_FORMAT = _format(
    "add, delete, expand, simplify, reorganize, move, merge, split",
    "phrase, sentence, paragraph or document",
    "the text after the edit",
)

GENERAL = PromptTemplate(
    "reviser-general",
    """You are the person who asked for the text below and you are about to revise the draft you were given.
You know what the final text should look like: it is the target text. List the edits you would make to the
draft so that it conveys what the target conveys. Do not rewrite the draft into the target wholesale; list
the separate edits a careful writer would make.

"""
    + _FOCUS
    + """

Request (may be empty): {instruction}

Target text:
<<<
{reference}
>>>

Draft:
<<<
{draft}
>>>

"""
    + _GENERAL_FORMAT,
    ("draft", "reference"),
    optional=("instruction",),
    description="reference-based general writing: edits of concept, structure, coherence and flow that bring "
    "the draft to the human reference (not grammar or word choice)",
)

KNOWLEDGE = PromptTemplate(
    "reviser-knowledge",
    """You are the author of a knowledge-intensive text (for example the related-work section of a paper) and
you are revising a draft of it. The target text is the version you would publish. Work on the cited works
(the references) the text discusses, not on its sentences: for each work, or group of works, decide what has
to change so that the draft conveys the knowledge the target conveys. Typical edits expand what is said about
a work, simplify it, compare works with each other or with the author's own work, group related works, or
reorganise the order in which works are presented. Leave grammar and word choice alone. Do not copy sentences
from the target: say in your own words what each edited passage should convey.

File every edit under one category:
- order: the works or points are arranged, grouped or sequenced differently;
- comparison: how works or points are contrasted or related to each other (including to the author's own work);
- description: what a single work or point is said to be or to do (content, facts, detail).

Request (may be empty): {instruction}

Target text:
<<<
{reference}
>>>

Draft:
<<<
{draft}
>>>

"""
    + _format(
        "expand, simplify, compare, group, reorganize, add, delete",
        "reference, sentence, paragraph or document (reference: the edit concerns one cited work)",
        "what the passage should convey after the edit, in your own words",
        ',\n "category": "<order, comparison or description>"',
    ),
    ("draft", "reference"),
    optional=("instruction",),
    description="reference-based knowledge-intensive writing (e.g. a related-work section): edits to the cited "
    "works (expand, simplify, compare, group, reorganise), filed under order / comparison / "
    "description",
)

REFERENCE_FREE = PromptTemplate(
    "reviser-reference-free",
    """You asked a writing assistant for the text below and received this draft. There is no model answer: judge
against the text you yourself would consider ideal for the request. List the edits you would make before
using the draft.

"""
    + _FOCUS
    + """

Request (may be empty): {instruction}

Draft:
<<<
{draft}
>>>

"""
    + _GENERAL_FORMAT,
    ("draft",),
    optional=("instruction",),
    description="reference-free: edits of concept, structure, coherence and flow towards the reviser's own "
    "ideal text (not grammar or word choice)",
)

PROMPTS: dict[str, PromptTemplate] = {t.name: t for t in (GENERAL, KNOWLEDGE, REFERENCE_FREE)}

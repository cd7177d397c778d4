"""The reviser's prompts, one per setting; each is replaceable with ``--prompt NAME=FILE``."""

from __future__ import annotations

from proseval.core.prompt import PromptTemplate

SETTINGS = ("general", "knowledge", "reference-free")
PROMPT_OF_SETTING = {"general": "reviser-general", "knowledge": "reviser-knowledge",
                     "reference-free": "reviser-reference-free"}

_FORMAT = """Reply with a JSON array and nothing else. Each element is one edit:
{"action_name": "<one verb: add, delete, replace, rephrase, reorder, merge, split, ...>",
 "revision_description": "<what the edit does, one sentence>",
 "revision_level": "<word, phrase, sentence, paragraph or document>",
 "original_snippet": "<the exact draft text the edit changes; empty for a pure insertion>",
 "revised_snippet": "<the text after the edit; empty for a pure deletion>",
 "revision_intention": "<why the edit brings the draft closer to the goal>"%s}
One edit performs one action on one place of the draft: if you would "simplify and reorganize"
a passage, list the two edits separately. Copy original snippets from the draft word for word.
List only edits that are needed; if the draft needs none, reply with []."""

_KNOWLEDGE_FIELD = """,
 "category": "<order, comparison or description>\""""

GENERAL = PromptTemplate(
    "reviser-general",
    """You are the person who asked for the text below and you are about to revise the draft you were given.
You know what the final text should look like: it is the target text. List the edits you would make to the
draft so that it says what the target says, in a comparable way. Do not rewrite the draft into the target
wholesale; list the separate edits a careful editor would make.

Request (may be empty): {instruction}

Target text:
<<<
{reference}
>>>

Draft:
<<<
{draft}
>>>

""" + _FORMAT % "",
    ("draft", "reference"), optional=("instruction",),
    description="reference-based general writing: edits that bring the draft to the human reference",
)

KNOWLEDGE = PromptTemplate(
    "reviser-knowledge",
    """You are the author of a knowledge-intensive text (for example the related-work section of a paper) and
you are revising a draft of it. The target text is the version you would publish. List the edits you would
make to the draft so that it conveys the target's knowledge. File every edit under one category:
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

""" + _FORMAT % _KNOWLEDGE_FIELD,
    ("draft", "reference"), optional=("instruction",),
    description="reference-based knowledge-intensive writing (e.g. a related-work section): edits filed "
                "under order / comparison / description",
)

REFERENCE_FREE = PromptTemplate(
    "reviser-reference-free",
    """You asked a writing assistant for the text below and received this draft. There is no model answer: judge
against the text you yourself would consider ideal for the request. List the edits you would make before
using the draft.

Request (may be empty): {instruction}

Draft:
<<<
{draft}
>>>

""" + _FORMAT % "",
    ("draft",), optional=("instruction",),
    description="reference-free: edits towards the reviser's own ideal text",
)

PROMPTS: dict[str, PromptTemplate] = {t.name: t for t in (GENERAL, KNOWLEDGE, REFERENCE_FREE)}

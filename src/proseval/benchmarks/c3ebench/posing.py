"""How an item is put to the candidate and shown to the judge (pure: no I/O, no model calls).

``fixed`` (the default) is proseval's posing: the model sees everything the task needs, and every
input is labelled for what it is. ``official`` reproduces how the official code poses the items,
including its known mistakes (the Chinese Cloze article left out; the Chinese Edit draft and
critique labelled as background material and draft), for comparison with published figures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from proseval.benchmarks.c3ebench.data import BLANK_MARKER, Item
from proseval.benchmarks.c3ebench.prompts import EN_CLOZE_GAP
from proseval.core.prompt import PromptTemplate

Compat = Literal["fixed", "official"]
PromptLookup = Callable[[str], PromptTemplate]


def cloze_parts(item: Item) -> tuple[str, str]:
    """(prefix, suffix) of a Cloze item: given, or the article split at its first gap marker."""
    if "prefix" in item.input:
        return item.input["prefix"], item.input.get("suffix", "")
    content = item.input.get("content", "")
    prefix, marker, suffix = content.partition(BLANK_MARKER)
    return (prefix, suffix) if marker else (content, "")


def cloze_article(item: Item) -> str:
    """The article with its gap marked (``[fill in the blank]``), as the Chinese files give it."""
    if "content" in item.input:
        return item.input["content"]
    prefix, suffix = cloze_parts(item)
    return prefix + BLANK_MARKER + suffix


def judge_context(item: Item) -> str:
    """The judge's [Context] for Cloze: prefix + gap + suffix for split items, else the article."""
    if "prefix" in item.input:
        prefix, suffix = cloze_parts(item)
        return prefix + EN_CLOZE_GAP + suffix
    return cloze_article(item)


def outline(item: Item) -> str:
    """An Expand item's plan: ``outline`` (Chinese files) or ``condition`` (English files)."""
    return item.input.get("outline") or item.input.get("condition", "")


def field_values(item: Item) -> dict[str, str]:
    """Every value a candidate or judge template of this item can use."""
    values = {"instruction": item.instruction, "reference": item.reference}
    if item.task == "cloze":
        prefix, suffix = cloze_parts(item)
        values.update(prefix=prefix, suffix=suffix, content=cloze_article(item), context=judge_context(item))
    elif item.task == "expand":
        values["outline"] = outline(item)
    elif item.task == "edit":
        values.update(draft=item.input.get("content", ""), critique=item.input.get("critique", ""))
    return values


def candidate_template_name(item: Item, compat: Compat, known: Mapping[str, object]) -> str:
    """``official_{task}_{lang}`` in compat mode where the official posing differs, else ``candidate_…``."""
    official = f"official_{item.task}_{item.language}"
    if compat == "official" and official in known:
        return official
    return f"candidate_{item.task}_{item.language}"


def render_with(template: PromptTemplate, values: Mapping[str, str]) -> str:
    """Render `template` with the values it declares (a user's file may use fewer optional ones)."""
    wanted = (*template.placeholders, *template.optional)
    return template.render(**{name: values[name] for name in wanted if name in values})


def candidate_prompt(item: Item, compat: Compat, prompt: PromptLookup, known: Mapping[str, object]) -> tuple[str, str]:
    """(template name, the user message) for the candidate."""
    name = candidate_template_name(item, compat, known)
    return name, render_with(prompt(name), field_values(item))

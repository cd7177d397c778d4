"""An item's fields as the candidate and judge templates use them, and rendering a template with
them (pure: no I/O, no model calls)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from proseval.benchmarks._shared.c3e.data import BLANK_MARKER, Item
from proseval.kit import PromptTemplate

PromptLookup = Callable[[str], PromptTemplate]
# The gap marker the EN Cloze prompt shows between prefix and suffix (kept from the official posing).
EN_CLOZE_GAP = "[fill in the blanks]"


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


def render_with(template: PromptTemplate, values: Mapping[str, str]) -> str:
    """Render `template` with the values it declares (a user's file may use fewer optional ones)."""
    wanted = (*template.placeholders, *template.optional)
    return template.render(**{name: values[name] for name in wanted if name in values})

"""How an item is put to the candidate and shown to the judge (pure: no I/O, no model calls).

``fixed`` (the default) is proseval's posing: the model sees everything the task needs, and every
input is labelled for what it is. ``official`` reproduces how the official code poses the items,
including its known mistakes (the Chinese Cloze article left out; the Chinese Edit draft and
critique labelled as background material and draft), for comparison with published figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from proseval.benchmarks._shared.c3e.data import Item
from proseval.benchmarks._shared.c3e.fields import PromptLookup, field_values, render_with

Compat = Literal["fixed", "official"]


def candidate_template_name(item: Item, compat: Compat, known: Mapping[str, object]) -> str:
    """``official_{task}_{lang}`` in compat mode where the official posing differs, else ``candidate_…``."""
    official = f"official_{item.task}_{item.language}"
    if compat == "official" and official in known:
        return official
    return f"candidate_{item.task}_{item.language}"


def candidate_prompt(item: Item, compat: Compat, prompt: PromptLookup, known: Mapping[str, object]) -> tuple[str, str]:
    """(template name, the user message) for the candidate."""
    name = candidate_template_name(item, compat, known)
    return name, render_with(prompt(name), field_values(item))

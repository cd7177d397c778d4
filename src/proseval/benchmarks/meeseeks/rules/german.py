"""German sentence, clause and number rules."""

from __future__ import annotations

from .spec import RuleSpec

RULES: list[RuleSpec] = []

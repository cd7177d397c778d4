"""French grammar rules."""

from __future__ import annotations

from .spec import RuleSpec

RULES: list[RuleSpec] = []

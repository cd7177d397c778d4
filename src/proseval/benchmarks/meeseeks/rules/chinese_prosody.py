"""Chinese classical prosody: rhyme groups, tone patterns, regulated verse."""

from __future__ import annotations

from .spec import RuleSpec

RULES: list[RuleSpec] = []

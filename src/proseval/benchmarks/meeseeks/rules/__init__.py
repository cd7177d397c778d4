"""Meeseeks rule checkers: one module per family, two registries (CJK / non-CJK)."""

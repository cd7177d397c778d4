"""Meeseeks' `proseval doctor` check: can the modules of every rule checker be imported here?"""

from __future__ import annotations

from proseval.kit.doctor import Check, extra_check


def checks() -> list[Check]:
    from proseval.benchmarks.meeseeks.rules.registry import REGISTRIES

    modules = sorted({m for specs in REGISTRIES.values() for spec in specs for m in spec.requires})
    return [extra_check("meeseeks checkers", "meeseeks", modules, ok=f"all {len(modules)} checker modules importable")]

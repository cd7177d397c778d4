"""LongWeave's `proseval doctor` check: the pinned flake8 stack that scores code fixing (CF)."""

from __future__ import annotations

from proseval.kit.doctor import Check

NAME = "longweave code scoring"
INSTALL = "pip install 'proseval[longweave]'"


def checks() -> list[Check]:
    try:
        from proseval.benchmarks.longweave.scorers.code_checks import installed_versions
    except ModuleNotFoundError as exc:  # flake8 itself (the scorer imports it)
        return [Check(NAME, "warn", f"missing {exc.name}: {INSTALL}")]
    versions = installed_versions()
    missing = [name for name, version in versions.items() if version is None]
    if missing:
        return [Check(NAME, "warn", f"missing {', '.join(missing)}: {INSTALL}")]
    return [Check(NAME, "ok", ", ".join(f"{name} {version}" for name, version in versions.items()))]

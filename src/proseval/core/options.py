"""What benchmark options share: options arrive as pydantic models, often from the command line."""

from __future__ import annotations


def comma_list(value: object) -> object:
    """A comma-separated string as the list of its stripped, non-empty parts (``"en, zh"`` →
    ``["en", "zh"]``); any other value as given, for pydantic to check. Use it in a
    ``field_validator(..., mode="before")``."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value

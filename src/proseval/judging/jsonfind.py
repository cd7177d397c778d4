"""Finding JSON values inside free model text (fenced, bare, or after prose), with repair."""

from __future__ import annotations

import json
from typing import Any

import json_repair

_DECODER = json.JSONDecoder()


def find_json_values(text: str) -> list[Any]:
    """Every complete top-level JSON object or array in ``text``, in order of appearance.

    Scans for ``{``/``[`` and decodes greedily, so prose, Markdown fences and trailing
    text around the JSON are ignored. Values nested inside a found value are not listed
    separately.
    """
    values: list[Any] = []
    position = 0
    while True:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            return values
        start = min(starts)
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        values.append(value)
        position = end


def repair_json_value(text: str) -> Any | None:
    """Best-effort repair of broken JSON starting at the first ``{`` or ``[``; None if nothing usable."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    repaired = json_repair.repair_json(text[min(starts) :], return_objects=True)
    if repaired in ("", None, {}, []):
        return None
    return repaired

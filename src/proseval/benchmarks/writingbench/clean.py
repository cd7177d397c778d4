"""WritingBench's reasoning removal: the general rule, or the official marker rule for parity runs.

:func:`strip_reasoning_official` reproduces the official rule: cut through the first
occurrence of the exact string ``</think>`` followed by two newlines.
"""

from __future__ import annotations

from proseval.kit import CleanedResponse, strip_reasoning

__all__ = ["CleanedResponse", "strip_reasoning", "strip_reasoning_official"]

_OFFICIAL_MARKER = "</think>\n\n"


def strip_reasoning_official(text: str) -> CleanedResponse:
    """The official marker rule: drop everything through the first ``</think>`` + two newlines."""
    cut = text.find(_OFFICIAL_MARKER)
    if cut < 0:
        return CleanedResponse(text=text)
    end = cut + len(_OFFICIAL_MARKER)
    return CleanedResponse(text=text[end:], removed=(text[:end],))

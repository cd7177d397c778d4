"""Measures of texts and statistics over samples (`count_words`, which most tasks use, is in the core)."""

from proseval.kit._lazy import lend, names

_SOURCES = {
    "core.closeness": ("closeness", "length_adherence", "word_matches"),
    "tokens": ("count_tokens",),
    "runtime.aggregate": ("bootstrap_ci",),
}
__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
__getattr__, __dir__ = lend(__name__, _SOURCES)

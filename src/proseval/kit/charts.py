"""Charts for a run folder: PNG bytes, or None without matplotlib."""

from proseval.kit._lazy import lend, names

_SOURCES = {"plots": ("chart", "ci_errors")}
__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
__getattr__, __dir__ = lend(__name__, _SOURCES)

"""`proseval doctor`: a benchmark's checks of its environment."""

from proseval.kit._lazy import lend, names

_SOURCES = {"core.health": ("Check", "extra_check")}
__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
__getattr__, __dir__ = lend(__name__, _SOURCES)

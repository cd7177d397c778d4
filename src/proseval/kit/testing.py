"""For a benchmark's tests: deterministic models answering as ``scripted/NAME``."""

from proseval.kit._lazy import lend, names

_SOURCES = {"models.scripted": ("register_script", "unregister_script")}
__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
__getattr__, __dir__ = lend(__name__, _SOURCES)

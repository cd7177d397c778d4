"""Running model-written code confined by the operating system."""

from proseval.kit._lazy import lend, names

_SOURCES = {"sandbox": ("run_function_async", "SandboxLimits", "SandboxResult", "isolation")}
__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
__getattr__, __dir__ = lend(__name__, _SOURCES)

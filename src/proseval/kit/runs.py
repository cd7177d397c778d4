"""Results, records and run folders: what `aggregate`, `artifacts`, `render` and commands read."""

from proseval.kit._lazy import lend, names

_SOURCES = {
    "runtime.records": ("Results", "ScoredSample", "SampleRecord"),
    "runtime.runlog": ("RunFolder", "RunFolderError"),
}
__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
__getattr__, __dir__ = lend(__name__, _SOURCES)

"""What the viewer shows of a sample, what a person labelling it is asked, and the text helpers
(a word diff, highlighted snippets) that make its segments."""

from proseval.kit._lazy import lend, names

_SOURCES = {
    "core.views": ("ViewBlock", "LabelForm", "LabelCriterion"),
    "core.textdiff": ("word_diff", "highlight", "locate"),
}
__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
__getattr__, __dir__ = lend(__name__, _SOURCES)

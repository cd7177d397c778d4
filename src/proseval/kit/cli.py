"""A benchmark's own commands: the common options, running a task, printing and failing."""

from proseval.kit._lazy import lend, names

_SOURCES = {
    "commandline.options": ("BaseUrlOpt", "ConcurrencyOpt", "DisplayOpt", "GenOpt", "PromptOpt"),
    "commandline.requests": ("role_request", "prompt_files", "display_mode", "checked"),
    "commandline.running": ("execute", "report_run"),
    "runtime.options": ("RunOptions",),
    "commandline.console": ("console", "fail"),
}
__all__ = names(_SOURCES)  # noqa: PLE0605 (built from the table, so the two cannot disagree)
__getattr__, __dir__ = lend(__name__, _SOURCES)

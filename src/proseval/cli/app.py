"""The top-level typer application: the commands of `commands.py` and every benchmark's command
group, each imported when it runs, all inside the error boundary (`boundary.ProsevalGroup`)."""

import typer

from ..kit._plugin_warnings import show_plugin_warnings
from .boundary import DEBUG_ENV, ProsevalGroup
from .commands import benchmark_groups, built_in
from .lazy import LazyCommand


class Proseval(ProsevalGroup):
    def lazy_commands(self) -> list[LazyCommand]:
        show_plugin_warnings()  # before the plug-ins are imported: a deprecated name they use is shown
        return built_in() + benchmark_groups()


app = typer.Typer(
    cls=Proseval,
    help="Evaluate how well large language models write.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)


def _version(asked: bool) -> None:
    """`--version` / `-V`: proseval's version and the Python it runs on, then exit."""
    if asked:
        import platform

        from .. import __version__

        typer.echo(f"proseval {__version__} (Python {platform.python_version()})")
        raise typer.Exit()


@app.callback()
def options(
    debug: bool = typer.Option(
        False, "--debug", envvar=DEBUG_ENV, show_envvar=True, help="Print the traceback of any error (for developers)."
    ),
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print proseval's version and exit."
    ),
) -> None:
    """Options of every command."""

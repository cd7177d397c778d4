"""The typer applications the commands attach to; the top one runs every command inside the
error boundary (`boundary.ProsevalGroup`)."""

import typer

from .boundary import DEBUG_ENV, ProsevalGroup

app = typer.Typer(
    cls=ProsevalGroup,
    help="Evaluate how well large language models write.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
cache_app = typer.Typer(help="Inspect or clear the response cache.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")
generate_app = typer.Typer(help="Write benchmark datasets: generated samples or items expanded from a template.",
                           no_args_is_help=True)
app.add_typer(generate_app, name="generate")


@app.callback()
def options(
    debug: bool = typer.Option(False, "--debug", envvar=DEBUG_ENV, show_envvar=True,
                               help="Print the traceback of any error (for developers)."),
) -> None:
    """Options of every command."""

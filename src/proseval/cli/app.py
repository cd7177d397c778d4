"""The typer applications the commands attach to."""

import typer

app = typer.Typer(
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

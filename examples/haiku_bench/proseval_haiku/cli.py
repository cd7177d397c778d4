"""`proseval haiku syllables FILE`: the benchmark's own command, mounted by proseval's CLI."""

from pathlib import Path

import typer

from proseval_haiku.form import form_score, line_syllables

app = typer.Typer(no_args_is_help=True)  # its help: the summary it is registered with


@app.command("syllables")
def syllables(file: Path = typer.Argument(..., help="A text file with one haiku.")) -> None:
    """Print the syllables per line and whether the form check passes."""
    text = file.read_text(encoding="utf-8")
    typer.echo(f"syllables per line: {line_syllables(text)}; form: {form_score(text, strict=True):.0f}")


@app.command("version")
def version() -> None:
    """Print the template's version."""
    typer.echo("proseval-haiku 0.1.0")

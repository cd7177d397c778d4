"""`proseval docs [TOPIC]`: the documentation, from the installed package's own copy (the wheel
carries docs/ as `proseval/docs/`), or from the checkout beside the source in a development install;
so a `--help` or an error that says "see: proseval docs models" points somewhere a pip user has."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import typer
from rich.markdown import Markdown
from rich.markup import escape
from rich.table import Table

from ..commandline.console import console, fail

app = typer.Typer()
CHECKOUT_DOCS = Path(__file__).resolve().parents[3] / "docs"  # src/proseval/cli -> the checkout


def docs_folder() -> Path | None:
    """The documentation's folder: the package's copy, else the checkout's; None when neither exists."""
    shipped = resources.files("proseval").joinpath("docs")
    if shipped.is_dir():
        return Path(str(shipped))
    return CHECKOUT_DOCS if CHECKOUT_DOCS.is_dir() else None


def topics(folder: Path) -> dict[str, Path]:
    """Each page by its topic name: `many-models` for many-models.md (`revision_distance` also as
    `revision-distance`)."""
    pages = {path.stem: path for path in sorted(folder.glob("*.md"))}
    return {**pages, **{name.replace("_", "-"): path for name, path in pages.items() if "_" in name}}


def title(path: Path) -> str:
    """A page's first heading."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return re.sub(r"^#+\s*", "", line).strip()
    return path.stem


@app.command("docs")
def docs(
    topic: str = typer.Argument(
        None, help="A page's name, e.g. models, many-models, profile, writingbench; without it, the list of pages."
    ),
    path: bool = typer.Option(False, "--path", help="Print the page's file path instead of the page."),
) -> None:
    """Read proseval's documentation in the terminal (the pages the help and errors point to)."""
    folder = docs_folder()
    if folder is None:
        fail("this installation has no copy of the documentation; it is online in the project's docs/ folder", code=1)
    pages = topics(folder)
    if topic is None:
        table = Table(title=f"Documentation ({escape(str(folder))}): proseval docs TOPIC", title_justify="left")
        table.add_column("topic")
        table.add_column("page")
        for name, page in pages.items():
            if "_" not in name:
                table.add_row(escape(name), escape(title(page)))
        console.print(table)
        return
    page = pages.get(topic.removesuffix(".md").removeprefix("docs/"))
    if page is None:
        fail(f"no page {topic!r}; the pages: {', '.join(n for n in pages if '_' not in n)}")
    if path:
        typer.echo(str(page))
        return
    console.print(Markdown(page.read_text(encoding="utf-8")))

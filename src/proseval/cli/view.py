"""`proseval view [RUNS_DIR]`: browse run folders in a local web app."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..commandline.console import fail

app = typer.Typer()  # this module's commands, mounted by name from cli/commands.py


@app.command()
def view(
    runs_dir: Path = typer.Argument(Path("runs"), help="Folder of run folders (or one run folder)."),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        help="Address to listen on. Anything but loopback needs a token: --token, or one is generated and printed.",
    ),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="Port to listen on."),
    token: Optional[str] = typer.Option(
        None,
        "--token",
        envvar="PROSEVAL_VIEW_TOKEN",
        help="Secret every request must carry (in the address once, then a cookie).",
    ),
    open_browser: bool = typer.Option(False, "--open/--no-open", help="Open the viewer in a web browser."),
    label: Optional[str] = typer.Option(
        None,
        "--label",
        metavar="SESSION",
        help="Labelling mode: people rate samples blind at /label; the session's "
        "plan and labels are kept under RUNS_DIR/labels/ (see proseval docs viewer).",
    ),
    rater: Optional[list[str]] = typer.Option(
        None,
        "--rater",
        help="With --label, repeatable: a rater of the "
        "session; each new one gets a secret link of their own, printed "
        "once (without raters, people join on /label under a name no one "
        "has, and get a link of their own).",
    ),
    labels: Optional[Path] = typer.Option(
        None,
        "--labels",
        metavar="FILE",
        help="With --label: the labels file to append to (.jsonl; default RUNS_DIR/labels/SESSION.jsonl).",
    ),
    seed: Optional[int] = typer.Option(
        None,
        "--seed",
        min=0,
        help="With --label: the seed of a new session's order and sides (default: drawn, and recorded in its plan).",
    ),
    label_items: str = typer.Option(
        "all",
        "--label-items",
        help="With --label, for a new session: all (answers to score and pairs of answers), scores or pairs.",
    ),
    label_order: Optional[str] = typer.Option(
        None,
        "--label-order",
        help="With --label, for a new session: plan "
        "(every rater in the plan's order, the default) or shuffled (each "
        "rater in an order of their own, drawn from the seed and their name).",
    ),
    label_only: bool = typer.Option(
        False,
        "--label-only",
        help="With --label: serve only the labelling pages (no run pages, no agreement page): a viewer for raters.",
    ),
    reopen: bool = typer.Option(
        False,
        "--reopen",
        help="With --label: open a session closed to joining (planned "
        "with --rater) so that anyone who reaches /label can join it under a new name; "
        "kept in its plan, and said on stderr.",
    ),
) -> None:
    """Browse runs and their samples in a web browser, live while a run is written (needs the "view" extra)."""
    if not runs_dir.is_dir():
        fail(f"{runs_dir}: no such folder")
    if token is not None and len(token) < 8:
        fail("--token: use at least 8 characters")
    if label is None and (
        rater
        or labels is not None
        or seed is not None
        or label_items != "all"
        or label_order is not None
        or label_only
        or reopen
    ):
        fail(
            "--rater, --labels, --seed, --label-items, --label-order, --label-only and --reopen go with --label SESSION"
        )
    try:
        from ..view.labelling import LabellingError, LabelOptions
        from ..view.server import serve
    except ImportError as exc:
        fail(f"the viewer needs its extra: pip install 'proseval[view]' ({exc})")
    try:
        labelling = (
            None
            if label is None
            else LabelOptions(
                label,
                raters=tuple(rater or ()),
                labels_file=labels,
                seed=seed,
                items=label_items,
                only=label_only,
                order=label_order,
                reopen=reopen,
            )
        )
        serve(
            runs_dir,
            host=host,
            port=port,
            token=token,
            open_browser=open_browser,
            announce=typer.echo,
            warn=lambda line: typer.echo(line, err=True),
            labelling=labelling,
        )
    except LabellingError as exc:
        fail(f"--label: {exc}")

"""`proseval view [RUNS_DIR]`: browse run folders in a local web app."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..commandline.console import fail
from .app import app


@app.command()
def view(
    runs_dir: Path = typer.Argument(Path("runs"), help="Folder of run folders (or one run folder)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on. Anything but loopback needs a "
                             "token: --token, or one is generated and printed."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="Port to listen on."),
    token: Optional[str] = typer.Option(None, "--token", envvar="PROSEVAL_VIEW_TOKEN",
                                        help="Secret every request must carry (in the address once, then a "
                                        "cookie)."),
    open_browser: bool = typer.Option(False, "--open/--no-open", help="Open the viewer in a web browser."),
) -> None:
    """Browse runs and their samples in a web browser, live while a run is written (needs the "view" extra)."""
    if not runs_dir.is_dir():
        fail(f"{runs_dir}: no such folder")
    if token is not None and len(token) < 8:
        fail("--token: use at least 8 characters")
    try:
        from ..view.server import serve
    except ImportError as exc:
        fail(f"the viewer needs its extra: pip install 'proseval[view]' ({exc})")
    serve(runs_dir, host=host, port=port, token=token, open_browser=open_browser, announce=typer.echo)

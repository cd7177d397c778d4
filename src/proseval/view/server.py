"""Serving the viewer with uvicorn: the address, the token, the browser."""

from __future__ import annotations

import secrets
import socket
import threading
import webbrowser
from pathlib import Path

from .app import create_app, is_loopback
from .labelling import LabelOptions, label_address


def address(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def new_token() -> str:
    return secrets.token_urlsafe(24)


def serve(runs_dir: Path, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
          open_browser: bool = False, announce=print, labelling: LabelOptions | None = None) -> None:
    """Run the viewer until interrupted. A host other than loopback gets a token (generated when
    not given); `create_app` refuses to serve one without."""
    import uvicorn

    if not is_loopback(host) and not token:
        token = new_token()
    app = create_app(runs_dir, host=host, token=token, labelling=labelling)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    url = address(socket.gethostname() if host in ("0.0.0.0", "::") else host, port, token)
    if labelling is not None:
        url = label_address(url, labelling.rater)
    announce(f"proseval view: {runs_dir} at {url}" + ("" if is_loopback(host) else
                                                        "  (the token is needed once per browser; keep it private)"))
    if open_browser:
        threading.Timer(0.8, webbrowser.open, args=(url,)).start()
    server.run()

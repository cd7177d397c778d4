"""Serving the viewer with uvicorn: the address, the token, the browser."""

from __future__ import annotations

import errno
import os
import secrets
import socket
import threading
import webbrowser
from pathlib import Path

from ..errors import ProsevalError
from .app import create_app, is_loopback
from .labelling import LabelOptions, joining_line, label_address, rater_links, reopened_line


def address(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def new_token() -> str:
    return secrets.token_urlsafe(24)


class ListenError(ProsevalError):
    """The viewer cannot listen where it was asked: a port in use, an address not of this machine."""


def listen(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address of `host` at `port`, as uvicorn would bind them; bound before
    the viewer says where it serves, so that a port in use is refused in one line."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ListenError(f"--host {host}: {exc.strerror}") from None
    sockets: list[socket.socket] = []
    try:
        for family, address in dict.fromkeys((family, address) for family, _, _, _, address in found):
            sock = socket.socket(family, socket.SOCK_STREAM)
            sockets.append(sock)
            if os.name == "posix":  # as asyncio does: a port left in TIME_WAIT by a stopped viewer is free
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ListenError(f"port {port} on {host} is in use ({exc.strerror}); choose another with --port") from None
        raise ListenError(
            f"cannot listen on port {port} on {host} ({exc.strerror}); choose another --host or --port"
        ) from None
    return sockets


def serve(
    runs_dir: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    open_browser: bool = False,
    announce=print,
    warn=print,
    labelling: LabelOptions | None = None,
) -> None:
    """Run the viewer until interrupted. A host other than loopback gets a token (generated when
    not given); `create_app` refuses to serve one without. A port in use raises `ListenError`
    before anything is announced; `warn` says that a session closed to joining was reopened."""
    import uvicorn

    if not is_loopback(host) and not token:
        token = new_token()
    app = create_app(runs_dir, host=host, token=token, labelling=labelling)
    # log_config=None: uvicorn's own logging setup would bind handlers to the sys.stderr of the
    # moment, which outlives it when a caller swaps the stream (a test runner); warnings reach the
    # stderr of the time they happen through Python's last-resort handler instead.
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, log_config=None)
    server = uvicorn.Server(config)
    sockets = listen(host, port)
    url = address(socket.gethostname() if host in ("0.0.0.0", "::") else host, port, token)
    shown = url if labelling is None else label_address(url)
    private = "" if is_loopback(host) else "  (the token is needed once per browser; keep it private)"
    announce(f"proseval view: {runs_dir} at {shown}{private}")
    if labelling is not None:
        if app.state.labelling.reopened:
            warn(reopened_line(app.state.labelling))
        announce(joining_line(app.state.labelling))
    if labelling is not None and labelling.raters:
        announce("Each rater's own link (keep it private: it is their name in this session):")
        for line in rater_links(app.state.labelling, url):
            announce(line)
    if open_browser:
        threading.Timer(0.8, webbrowser.open, args=(shown,)).start()
    try:
        server.run(sockets=sockets)
    finally:
        for sock in sockets:
            sock.close()

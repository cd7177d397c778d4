"""`proseval view`: options checked before serving; a token generated for a host other than loopback."""

from __future__ import annotations

import socket
from pathlib import Path

from typer.testing import CliRunner

from proseval.cli import app


def served(monkeypatch) -> list[dict]:
    import uvicorn

    calls: list[dict] = []
    monkeypatch.setattr(
        uvicorn.Server,
        "run",
        lambda self, sockets=None: calls.append({"host": self.config.host, "port": self.config.port}),
    )
    return calls


def test_loopback_by_default_without_a_token(tmp_path: Path, monkeypatch):
    calls = served(monkeypatch)
    result = CliRunner().invoke(app, ["view", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert calls == [{"host": "127.0.0.1", "port": 8765}]
    assert "http://127.0.0.1:8765/" in result.output and "token" not in result.output


def test_another_host_gets_a_generated_token_printed(tmp_path: Path, monkeypatch):
    calls = served(monkeypatch)
    result = CliRunner().invoke(app, ["view", str(tmp_path), "--host", "0.0.0.0", "--port", "9100"])
    assert result.exit_code == 0, result.output
    assert calls == [{"host": "0.0.0.0", "port": 9100}]
    assert f"http://{socket.gethostname()}:9100/?token=" in result.output
    given = CliRunner().invoke(app, ["view", str(tmp_path), "--host", "0.0.0.0", "--token", "my-own-secret"])
    assert "?token=my-own-secret" in given.output


def test_bad_options_are_refused_before_serving(tmp_path: Path, monkeypatch):
    calls = served(monkeypatch)
    missing = CliRunner().invoke(app, ["view", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "no such folder" in missing.output
    short = CliRunner().invoke(app, ["view", str(tmp_path), "--token", "abc"])
    assert short.exit_code == 2 and "at least 8 characters" in short.output
    port = CliRunner().invoke(app, ["view", str(tmp_path), "--port", "70000"])
    assert port.exit_code == 2
    assert calls == []

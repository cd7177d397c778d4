"""tools/reproduce_offline.py: every offline reproduction agrees with the published figure."""

from __future__ import annotations

import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "reproduce_offline.py"


def test_every_offline_reproduction_agrees(shared_dir, capsys, monkeypatch):
    spec = importlib.util.spec_from_file_location("reproduce_offline", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr("sys.argv", ["reproduce_offline.py", "--shared", str(shared_dir)])
    module.main()
    table = capsys.readouterr().out
    assert "| 1329 cells | 1329 of 1329 equal |" in table
    assert table.count("| identical |") == 2 and "DIFFERENT" not in table
    assert "147/363 = 0.404959" in table and "169/363 = 0.465565" in table
    assert "| 50/70 = 0.714286 / 4/10 (hand count) | 0.714286 / 0.400000 |" in table
    assert "| 48/70 = 0.685714 / 4/10 (hand count) | 0.685714 / 0.400000 |" in table

"""CF programs checked by flake8 itself (the official selection, nothing ignored)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from proseval.benchmarks.longweave.generators import generate
from proseval.benchmarks.longweave.generators._cf_program import write_program

pytest.importorskip("flake8")
PLUGINS = ("flake8-bugbear", "flake8-comprehensions", "flake8_simplify", "pep8-naming")


def _flake8(tmp_path: Path, programs: dict[str, str]) -> dict[str, set[tuple[int, str]]]:
    """Run flake8 once over several programs; reported ``(line, code)`` per file name."""
    for name, code in programs.items():
        (tmp_path / name).write_text(code, encoding="utf-8")
    version = subprocess.run(
        [sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True, check=True
    ).stdout
    missing = [p for p in PLUGINS if p not in version]
    if missing:
        pytest.skip(f"flake8 plugins not installed: {', '.join(missing)}")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=E,W,F,B,N,SIM,C4", *programs],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    reported: dict[str, set[tuple[int, str]]] = {name: set() for name in programs}
    for line in result.stdout.splitlines():
        name, row, _col, message = line.split(":", 3)
        reported[name].add((int(row), message.split()[0]))
    return reported


def test_unpolluted_programs_are_flake8_clean(tmp_path: Path) -> None:
    programs = {f"clean_{seed}.py": write_program(random.Random(seed), 25, 0.0, 4, 0.0).code for seed in range(12)}
    assert _flake8(tmp_path, programs) == {name: set() for name in programs}


def test_every_recorded_violation_is_reported(tmp_path: Path) -> None:
    targets = {}
    for length in ("1k", "2k"):
        for index in range(12):
            target = generate("cf", length, index).target
            if not target["syntax_slips"]:
                targets[f"cf_{length}_{index}.py"] = target
    assert len(targets) >= 8
    reported = _flake8(tmp_path, {name: t["original_code"] for name, t in targets.items()})
    codes = set()
    for name, target in targets.items():
        recorded = {(line, code) for line, code in target["violations"]}
        assert recorded <= reported[name], (name, sorted(recorded - reported[name]))
        codes |= {code for _, code in recorded}
    families = {re.match(r"[A-Z]+", code).group() for code in codes}
    assert families >= {"E", "W", "F", "B", "N", "SIM", "C"}


def test_fully_polluted_program_covers_the_catalogue(tmp_path: Path) -> None:
    program = write_program(random.Random(1), 60, 1.0, 6, 0.0)
    assert len(program.violations) == program.sites
    reported = _flake8(tmp_path, {"dirty.py": program.code})["dirty.py"]
    assert set(program.violations) <= reported

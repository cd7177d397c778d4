"""A run on the embedded model gives the same answers whatever ran before each request.

Two `proseval run demo` runs on the embedded model, each in its own process and without the
response cache: one with four candidate requests queued at once, so that the requests reach
llama.cpp in another order; one in the plain order (one request at a time, the embedded model's
default), killed after its first finished sample and resumed in a new process. Every sample's
answers, judge replies and scores, and the run's metrics, must be identical. The processes run
side by side (each generates on one thread), so the cores are shared instead of taken in turns;
none of them can see the others.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

SAMPLES = 2  # enough for another order (two candidate requests queued at once) and a kill between samples
SETTINGS = [
    "--limit",
    str(SAMPLES),
    "--no-cache",
    "--display",
    "none",
    "-g",
    "candidate.max_tokens=32",
    "-g",
    "judge.max_tokens=48",
]


PROSEVAL = [sys.executable, "-m", "proseval"]


def start(args: list[str], cwd: Path, name: str) -> subprocess.Popen:
    """`proseval ARGS` started in `cwd`, its output in `name`.log there."""
    with (cwd / f"{name}.log").open("w") as log:
        return subprocess.Popen([*PROSEVAL, *args], cwd=cwd, stdout=log, stderr=subprocess.STDOUT)


def finish(process: subprocess.Popen, cwd: Path, name: str) -> None:
    returncode = process.wait(600)
    assert returncode == 0, (cwd / f"{name}.log").read_text()[-4000:]


def per_sample(run_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """What a sample's record says the models answered and how it was scored."""
    records = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    return {
        (r["id"], r["epoch"]): {
            "output": r["state"]["output"],
            "calls": sorted((c["role"], str(c["turn"]), c["text"]) for c in r["calls"]),
            "scores": {name: s["value"] for name, s in r["scores"].items()},
        }
        for r in records
        if r["status"] == "ok"
    }


def metrics(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "results.json").read_text())["metrics"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    pytest.importorskip("llama_cpp", reason="the embedded model needs: pip install 'proseval[local]'")
    root = tmp_path_factory.mktemp("determinism")
    killed = root / "killed"
    running: dict[str, subprocess.Popen] = {}
    try:
        running["reordered"] = start(
            ["run", "demo", *SETTINGS, "--concurrency", "4", "--run-dir", str(root / "reordered")], root, "reordered"
        )
        child = subprocess.Popen(
            [*PROSEVAL, "run", "demo", *SETTINGS, "--run-dir", str(killed)],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        samples = killed / "samples.jsonl"
        while child.poll() is None:  # until its first finished sample is written (or it ends)
            if samples.exists() and samples.read_bytes().count(b"\n") >= 1:
                break
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        finished_before_kill = samples.read_bytes().count(b"\n")
        assert 1 <= finished_before_kill < SAMPLES, "the run must be killed in the middle"
        running["resumed"] = start(["resume", str(killed), "--no-cache", "--display", "none"], root, "resumed")
        for name, process in running.items():
            finish(process, root, name)
    finally:
        for process in running.values():
            if process.poll() is None:
                process.kill()
                process.wait(30)
    return {"reordered": root / "reordered", "killed": killed}


def test_every_sample_gets_the_same_answers_in_another_order_and_after_a_resume(runs):
    plain = per_sample(runs["killed"])
    assert len(plain) == SAMPLES and all(sample["output"].strip() for sample in plain.values())
    assert per_sample(runs["reordered"]) == plain


def test_every_judge_reply_is_scored(runs):
    """The judge's answer is held to the demo's JSON schema by llama.cpp's grammar."""
    quality = metrics(runs["killed"])["quality"]
    assert quality["n_scored"] == SAMPLES and quality["n_unscored"] == 0


def test_the_metrics_are_identical(runs):
    assert metrics(runs["reordered"]) == metrics(runs["killed"])

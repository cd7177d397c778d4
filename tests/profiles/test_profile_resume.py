"""A profile killed with SIGKILL and run again resumes its runs: every sample once, then the report."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from profiles.profile_support import CALLS, SMALL_SUITE, register_all, unregister_all
from proseval.cli import app
from proseval.profile.report import Profile
from proseval.runtime.runlog import RunFolder

ROOT = Path(__file__).resolve().parents[2]
# The child's candidate answers the first samples, then holds the next request until the child is
# killed: the kill lands in the middle of the profile however fast or slow the machine is.
ANSWERED_BEFORE_THE_KILL = 3
CHILD = textwrap.dedent(
    f"""
    import asyncio
    import sys
    from profiles.profile_support import register_all
    from proseval.cli import app
    from proseval.models.scripted import register_script

    register_all()
    answered = 0

    async def answer_then_hold(messages):
        global answered
        answered += 1
        if answered > {ANSWERED_BEFORE_THE_KILL}:
            await asyncio.Event().wait()
        return messages[-1]["content"] if messages else ""

    register_script("profile-long", answer_then_hold)
    app(["profile", "scripted/profile-long", "--judge", "scripted/profile-judge", "--suite", sys.argv[1],
         "-o", sys.argv[2], "-c", "1", "--yes", "--display", "none"])
    """
)


def test_a_killed_profile_run_again_resumes_and_has_every_sample_once(tmp_path: Path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(SMALL_SUITE, encoding="utf-8")
    out = tmp_path / "out"
    samples = out / "runs" / "longweave--scripted-profile-long" / "samples.jsonl"
    env = {
        **os.environ,
        "PROSEVAL_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")]),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(suite), str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while child.poll() is None:  # until the samples answered before the held request are written
        if samples.is_file() and samples.read_bytes().count(b"\n") >= ANSWERED_BEFORE_THE_KILL:
            break
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    written = samples.read_bytes().count(b"\n")
    assert written == ANSWERED_BEFORE_THE_KILL, "the child must be killed in the middle of the profile"
    assert not (out / "profile.json").exists()

    register_all()
    try:
        result = CliRunner().invoke(
            app,
            [
                "profile",
                "scripted/profile-long",
                "--judge",
                "scripted/profile-judge",
                "--suite",
                str(suite),
                "-o",
                str(out),
                "--yes",
                "--display",
                "none",
            ],
        )
    finally:
        unregister_all()
    assert result.exit_code == 0, result.output
    folder = RunFolder(samples.parent)
    assert folder.read_header().resumes, "the run was resumed, not started anew"
    counted = Counter((r.id, r.epoch) for r in folder.iter_scored())
    assert len(counted) == 14 and set(counted.values()) == {1}
    assert CALLS["profile-long"] <= 14 - written + 1  # only the unfinished samples ran (one in flight at most)
    profile = Profile.model_validate_json((out / "profile.json").read_text(encoding="utf-8"))
    states = [(r.benchmark, r.state) for r in profile.rows]
    assert states == [("longweave", "complete"), ("revision-distance", "complete")]
    assert profile.rows[1].samples == 14  # the drafts: one per longweave answer

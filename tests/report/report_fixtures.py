"""Run folders made with scripted models for the report and export tests: demo, WritingBench, C3EBench."""

from __future__ import annotations

import json
import re
from pathlib import Path

import proseval
from c3ebench.c3e_fixtures import write_tiny
from proseval.models.base import FatalError
from proseval.models.scripted import register_script, unregister_script
from writingbench.wb_fixtures import tiny_files, write_files

HOSTILE = '<script>alert("x")</script> & <b>bold</b>'
CRITERION = re.compile(r"'name': 'q(\d)_c(\d)'")


def demo_candidate(messages):
    prompt = messages[-1]["content"]
    if "kettle" in prompt:
        raise FatalError("the provider rejected this request")
    return f"A short answer. {HOSTILE}" if "memo" in prompt else "A short answer of a few words here."


def demo_judge(strength: int):
    def judge(messages):
        prompt = messages[-1]["content"]
        if "story" in prompt.lower():
            return "no JSON at all"  # unscored
        return json.dumps({"score": strength + len(prompt) % 3, "reason": f"fine {HOSTILE}"})

    return judge


def wb_candidate(messages):
    text = messages[-1]["content"]
    if "number 4" in text:
        raise FatalError("the provider rejected this request")
    return f"Answer to: {text} {HOSTILE}"


def wb_judge(shift: int):
    def judge(messages):
        query, crit = map(int, CRITERION.search(messages[-1]["content"]).groups())
        if query == 3 and crit == 5:
            return '{"score": 11, "reason": "off the scale"}'
        return json.dumps({"score": min(10, crit + shift), "reason": "ok"})

    return judge


def c3e_candidate(messages):
    prompt = messages[-1]["content"]
    if "thanking volunteers" in prompt:
        raise FatalError("request rejected")
    return "" if "Floods are bad." in prompt else f"Candidate text {HOSTILE}"


def c3e_judge(score: int):
    def judge(messages):
        if "清晨的西湖" in messages[-1]["content"]:
            return "unparsable"
        return json.dumps({"analysis": "fits", "score": score, "verdict": "good"})

    return judge


def make_runs(root: Path) -> dict[str, list[Path]]:
    """Two demo runs, two WritingBench runs and two C3EBench runs (different judges), by task name."""
    scripts = {
        "rep-demo-cand": demo_candidate,
        "rep-demo-judge-a": demo_judge(4),
        "rep-demo-judge-b": demo_judge(6),
        "rep-wb-cand": wb_candidate,
        "rep-wb-judge-a": wb_judge(1),
        "rep-wb-judge-b": wb_judge(3),
        "rep-c3e-cand": c3e_candidate,
        "rep-c3e-judge-a": c3e_judge(5),
        "rep-c3e-judge-b": c3e_judge(7),
    }
    for name, script in scripts.items():
        register_script(name, script)
    wb_dir = write_files(root / "wb-data", tiny_files())
    c3e_dir = write_tiny(root / "c3e-data")
    runs: dict[str, list[Path]] = {"demo": [], "writingbench": [], "c3ebench": []}
    try:
        for variant in ("a", "b"):
            runs["demo"].append(
                proseval.run(
                    "demo",
                    model="scripted/rep-demo-cand",
                    roles={"judge": f"scripted/rep-demo-judge-{variant}"},
                    run_dir=root / f"demo-{variant}",
                ).path
            )
            runs["writingbench"].append(
                proseval.run(
                    "writingbench",
                    model="scripted/rep-wb-cand",
                    roles={"judge": f"scripted/rep-wb-judge-{variant}"},
                    params={"data_dir": str(wb_dir), "verify": False},
                    run_dir=root / f"wb-{variant}",
                ).path
            )
            runs["c3ebench"].append(
                proseval.run(
                    "c3ebench",
                    model="scripted/rep-c3e-cand",
                    roles={"judge": f"scripted/rep-c3e-judge-{variant}"},
                    params={"data_dir": str(c3e_dir)},
                    run_dir=root / f"c3e-{variant}",
                ).path
            )
    finally:
        for name in scripts:
            unregister_script(name)
    return runs

"""WritingBench's ratings: one 1-10 verdict per criterion, unreadable ones unscored, unasked ones left out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from proseval.benchmarks.writingbench.judging import criterion_ratings
from proseval.benchmarks.writingbench.userdata import curate_task
from proseval.kit import Rating, Scale, Score
from proseval.models.base import FatalError
from proseval.models.scripted import register_script, unregister_script
from proseval.registry import get_task
from proseval.runtime.options import RunOptions
from proseval.runtime.records import RoleBinding
from proseval.runtime.runner import start_run

SCALE = Scale(1, 10, "ordinal")
NAME = re.compile(r"'name': 'q(\d)_c(\d)'")


def entry(score, status, **more):
    return {
        "score": score,
        "reason": "r" if score is not None else None,
        "status": status,
        "error": None if score is not None else "why",
        **more,
    }


def test_one_rating_per_criterion_named_by_it():
    criteria = {
        "Logical coherence": entry(7, "ok", attempts=1),
        "Use of sources": entry(3, "repaired", attempts=2),
        "Tone": entry(5, "coerced", attempts=1),
    }
    scores = {"writingbench": Score(value=5.0, metadata={"criteria": criteria, "reasoning_removed": False})}
    assert criterion_ratings(scores) == [
        Rating("Logical coherence", 7.0, SCALE, "judge"),
        Rating("Use of sources", 3.0, SCALE, "judge"),
        Rating("Tone", 5.0, SCALE, "judge"),
    ]


def test_unreadable_and_failed_verdicts_are_unscored_and_unasked_ones_left_out():
    criteria = {
        "a": entry(None, "invalid", attempts=3),
        "b": entry(None, "unparsable", attempts=3),
        "c": {"score": None, "status": "error", "error": "FatalError: gone", "attempts": 1},
        "d": {"score": None, "status": "context_overflow", "error": "prompt too long"},
        "e": entry(8, "ok"),
    }
    scores = {"writingbench": Score(value=8.0, parse_status="partial", metadata={"criteria": criteria})}
    assert criterion_ratings(scores) == [
        Rating("a", None, SCALE),
        Rating("b", None, SCALE),
        Rating("c", None, SCALE),
        Rating("e", 8.0, SCALE),
    ]


def test_nothing_to_rate_without_criteria():
    assert criterion_ratings({}) == []
    # curation whose criteria model failed: the judge was never asked
    assert criterion_ratings({"writingbench": Score.unscored("error", "no criteria: bad reply")}) == []


def judge(messages):
    """q1: score = criterion number, except c2 out of range, c3 no JSON and c4 a failed call; q3: 9."""
    query, crit = map(int, NAME.search(messages[-1]["content"]).groups())
    if query == 1 and crit == 2:
        return '{"score": 11, "reason": "off the scale"}'
    if query == 1 and crit == 3:
        return "I would not know."
    if query == 1 and crit == 4:
        return FatalError("the judge endpoint refused")
    return json.dumps({"score": crit if query == 1 else 9, "reason": "ok"})


@pytest.fixture
def scripts():
    register_script("wbr-candidate", lambda messages: "An answer.")
    register_script("wbr-judge", judge)
    yield
    unregister_script("wbr-candidate")
    unregister_script("wbr-judge")


BINDINGS = {"candidate": RoleBinding(spec="scripted/wbr-candidate"), "judge": RoleBinding(spec="scripted/wbr-judge")}


async def test_a_run_rates_what_its_judge_said(tiny_dir: Path, tmp_path: Path, scripts):
    task = get_task("writingbench", {"data_dir": str(tiny_dir), "verify": False, "lang": "en", "judge_attempts": 1})
    assert task.ratings is criterion_ratings
    folder, _ = await start_run(task, BINDINGS, RunOptions(out_dir=tmp_path, display="none"))
    found = {r.id: task.ratings(r.scores) for r in folder.iter_records()}
    assert found["writingbench/1"] == [
        Rating("q1_c1", 1.0, SCALE),
        Rating("q1_c2", None, SCALE),
        Rating("q1_c3", None, SCALE),
        Rating("q1_c4", None, SCALE),
        Rating("q1_c5", 5.0, SCALE),
    ]
    assert found["writingbench/3"] == [Rating(f"q3_c{n}", 9.0, SCALE) for n in range(1, 6)]


async def test_a_judge_prompt_over_the_input_limit_is_not_a_rating(tiny_dir: Path, tmp_path: Path, scripts):
    task = get_task("writingbench", {"data_dir": str(tiny_dir), "verify": False, "judge_max_input_tokens": 256})
    folder, _ = await start_run(task, BINDINGS, RunOptions(out_dir=tmp_path, display="none", limit=1))
    record = next(folder.iter_records())
    statuses = {e["status"] for e in record.scores["writingbench"].metadata["criteria"].values()}
    assert statuses == {"context_overflow"}  # the prompt alone exceeds 256 tokens: no call was made
    assert task.ratings(record.scores) == []


def test_every_judged_variant_declares_its_ratings(tmp_path: Path):
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        json.dumps(
            {
                "query": "Write.",
                "response": "Done.",
                "checklist": [
                    {
                        "name": f"c{n}",
                        "criteria_description": "d",
                        "1-2": "a",
                        "3-4": "b",
                        "5-6": "c",
                        "7-8": "d",
                        "9-10": "e",
                    }
                    for n in range(1, 6)
                ],
            }
        )
        + "\n"
    )
    assert get_task("writingbench", {"queries": str(queries)}).ratings is criterion_ratings
    assert curate_task(queries, object()).ratings is criterion_ratings
    assert get_task("writingbench-criteria", {"in_file": str(queries)}).ratings is None  # writes criteria only

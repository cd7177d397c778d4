"""RAVEL's ratings: the final manuscript's judge score and the reviewer's last score of each section,
never the rule-computed trajectory metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

import proseval
from proseval.kit import Rating, Scale, Score
from proseval.models.base import FatalError
from proseval.registry import get_task
from ravel.ravel_fixtures import tools

SCALE = Scale(1, 10, "ordinal")
REVIEWER_SCALE = Scale(0, 10, "interval")
TRAJECTORY = {
    "success": Score(value=1.0),
    "steps": Score(value=7.0, metadata={"lifecycles": []}),
    "error_rate": Score(value=0.0),
    "efficiency": Score(value=3.5),
    "refine_delta": Score(value=2.0),
}


@pytest.fixture
def ratings(data_dir: Path):
    task = get_task("ravel", {"data_dir": str(data_dir), "language": "en"})
    assert task.ratings is not None
    return task.ratings


def test_only_the_judges_verdicts_are_rated(ratings):
    scores = {**TRAJECTORY, "judge": Score(value=7.0, explanation="solid", metadata={"judge_calls": 1})}
    assert ratings(scores) == [Rating("judge", 7.0, SCALE, "judge")]
    assert ratings(TRAJECTORY) == []
    reviewed = {
        **TRAJECTORY,
        "steps": Score(
            value=9.0,
            metadata={
                "section_reviews": [{"section": 0, "step": 3, "score": 8.5}, {"section": 2, "step": 9, "score": 4.0}]
            },
        ),
    }
    assert ratings(reviewed) == [
        Rating("reviewer: section 1", 8.5, REVIEWER_SCALE, "reviewer"),
        Rating("reviewer: section 3", 4.0, REVIEWER_SCALE, "reviewer"),
    ]


@pytest.mark.parametrize("status", ["unparsable", "out_of_range", "error", "empty"])
def test_an_unreadable_verdict_is_unscored(ratings, status):
    scores = {**TRAJECTORY, "judge": Score.unscored(status, "no verdict", judge_calls=3)}
    assert ratings(scores) == [Rating("judge", None, SCALE, "judge")]


def test_an_unwritten_manuscripts_lowest_score_is_not_a_rating(ratings):
    scores = {
        **TRAJECTORY,
        "judge": Score(
            value=1.0, parse_status="empty", explanation="no section was written: lowest score, no judge call"
        ),
    }
    assert ratings(scores) == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [('{"analysis": {}, "score": 8, "verdict": "good"}', 8.0), ("", None), (FatalError("judge down"), None)],
)
def test_a_run_rates_the_manuscript(tmp_path: Path, data_dir: Path, scripts, reply, expected):
    run = proseval.run(
        "ravel",
        model=scripts("ravel-tools", tools),
        roles={"judge": scripts("ravel-judge", [reply])},
        params={"data_dir": str(data_dir), "language": "en", "protocol": "fixed", "judge_attempts": 1},
        limit=1,
        out=tmp_path,
        cache=False,
    )
    record = next(run.records())
    assert record.status == "ok" and len(record.scores) > 1  # the trajectory metrics are there, unrated
    task = get_task("ravel", run.header.task_params)
    # the fixed protocol reviews Water (9), Ice (6), refines Ice and reviews it again (9): the last reviews count
    reviews = [Rating(f"reviewer: section {n}", 9.0, REVIEWER_SCALE, "reviewer") for n in (1, 2)]
    assert task.ratings(record.scores) == record.ratings == [Rating("judge", expected, SCALE, "judge"), *reviews]

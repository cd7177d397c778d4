"""Position bias of RAVEL's final judge: --judge-order swapped shows it the manuscript ([Candidate]) before the
human reference; a re-score with the order swapped measures how often its verdict changes."""

from __future__ import annotations

from pathlib import Path

import pytest

import proseval
from proseval.benchmarks._shared.c3e import data
from proseval.benchmarks._shared.c3e.judge import JudgeSetup, judge_messages
from proseval.benchmarks.ravel.prompts import PROMPTS
from proseval.registry import get_task
from ravel.ravel_fixtures import tools


def test_the_final_judge_sees_the_manuscript_first_when_swapped(data_dir: Path):
    item = next(i for i in data.load_folder(data_dir, ["en"]).items if i.task == "end2end")
    given = get_task("ravel", {"data_dir": str(data_dir), "language": "en"})
    swapped = get_task("ravel", {"data_dir": str(data_dir), "language": "en", "judge_order": "swapped"})
    assert given.swap_param == swapped.swap_param == "judge_order" and given.prompts == PROMPTS
    before = judge_messages(item, "On Water.", JudgeSetup(), PROMPTS.__getitem__)
    assert judge_messages(item, "On Water.", JudgeSetup(), given.prompts.__getitem__) == before
    after = judge_messages(item, "On Water.", JudgeSetup(), swapped.prompts.__getitem__)
    assert after[0] == before[0]
    assert before[1]["content"] == (
        f"[Instruction]\n{item.instruction}\n\n[Reference]\n{item.reference}\n\n[Candidate]\nOn Water."
    )
    assert after[1]["content"] == (
        f"[Instruction]\n{item.instruction}\n\n[Candidate]\nOn Water.\n\n[Reference]\n{item.reference}"
    )


def shown(messages) -> bool:
    """Whether the manuscript came before the reference (either judge format)."""
    user = messages[-1]["content"]
    return user.index("[Candidate]\n") < user.index("[Reference]\n")


def biased(messages):
    """6, and 8 for the speech item's manuscript shown before the reference."""
    planted = "flood volunteers" in messages[-1]["content"]
    return f'{{"score": {8 if planted and shown(messages) else 6}}}'


@pytest.mark.parametrize("judge_format", ["system", "single"])
def test_a_swapped_rescore_measures_the_final_judges_position_bias(
    tmp_path: Path, data_dir: Path, scripts, judge_format
):
    seen: list[bool] = []

    def judge(messages):
        seen.append(shown(messages))
        return biased(messages)

    run = proseval.run(
        "ravel",
        model=scripts("ravel-tools", tools),
        roles={"judge": scripts("ravel-judge", judge)},
        params={
            "data_dir": str(data_dir),
            "language": "en",
            "protocol": "fixed",
            "judge_attempts": 1,
            "judge_format": judge_format,
        },
        out=tmp_path,
    )
    assert seen == [False, False]
    swapped = proseval.score(run.path, swap_order=True)[0]
    assert seen[2:] == [True, True] and swapped.header.task_params["judge_order"] == "swapped"
    card = next(c for c in proseval.agreement([run.path, swapped.path]).cards if c.task == "ravel")
    assert card.position is not None and card.position.n == 2
    assert card.position.flip_rate == 0.5 and card.position.mean_shift == pytest.approx(1.0)

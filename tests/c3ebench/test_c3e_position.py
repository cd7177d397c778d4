"""Position bias: --judge-order swapped shows the judge the [Candidate] block before the [Reference] block
(labels kept); as given, the judge's messages are exactly what they were; a re-score with the order swapped
measures how often a judge's verdict changes with the order."""

from __future__ import annotations

from pathlib import Path

import pytest

import proseval
from proseval.benchmarks._shared.c3e import data
from proseval.benchmarks._shared.c3e.judge import JudgeSetup, SwappedOrder, judge_messages, swap_blocks
from proseval.benchmarks.c3ebench.prompts import PROMPTS
from proseval.errors import UsageError
from proseval.kit import PromptError, PromptTemplate
from proseval.registry import get_task

ANSWER = "Floods wreck crops.\n\nA second paragraph."
# The judge's user messages before the order became a parameter (captured from the code before the change).
BEFORE = {
    "cloze_en_1": "[Context]\nThe river rose overnight.\n[fill in the blanks]\nBy noon the water had gone.\n\n"
    "[Reference]\nFarmers moved their animals to the hills.\n\n[Candidate]\n" + ANSWER,
    "condition_en_1": "[Instruction]\nWrite a short speech thanking volunteers, in three parts.\n\n[Outline]\n"
    "1. Opening 2. Stories 3. Thanks\n\n[Reference]\nFriends, neighbours, volunteers: thank you."
    "\n\n[Candidate]\n" + ANSWER,
    "edit_en_1": "[Draft]\nFloods are bad.\n\n[Critique]\nToo vague: name a concrete consequence.\n\n[Reference]\n"
    "Floods ruin harvests and homes within hours.\n\n[Candidate]\n" + ANSWER,
    "end2end_en_1": "[Instruction]\nWrite an essay on river management.\n\n[Reference]\nRiver management balances "
    "farming, housing and nature.\n\n[Candidate]\n" + ANSWER,
}
SWAPPED = {
    "cloze_en_1": "[Context]\nThe river rose overnight.\n[fill in the blanks]\nBy noon the water had gone.\n\n"
    "[Candidate]\n" + ANSWER + "\n\n[Reference]\nFarmers moved their animals to the hills.",
    "end2end_en_1": "[Instruction]\nWrite an essay on river management.\n\n[Candidate]\n"
    + ANSWER
    + "\n\n[Reference]\nRiver management balances farming, housing and nature.",
}


@pytest.fixture
def items(tiny_dir: Path) -> list[data.Item]:
    return data.load_folder(tiny_dir, ["en", "zh"]).items


def task_messages(tiny_dir: Path, item: data.Item, **params) -> list[dict[str, str]]:
    task = get_task("c3ebench", {"data_dir": str(tiny_dir), **params})
    setup = JudgeSetup(reference=not params.get("judge_no_reference", False))
    return judge_messages(item, ANSWER, setup, task.prompts.__getitem__)


# --- the prompts -------------------------------------------------------------------------------------


def test_as_given_the_judge_messages_are_unchanged(tiny_dir: Path, items):
    task = get_task("c3ebench", {"data_dir": str(tiny_dir)})
    assert task.params["judge_order"] == "as_given" and task.swap_param == "judge_order"
    assert task.prompts == PROMPTS and all(type(t) is PromptTemplate for t in task.prompts.values())
    for item in items:
        for reference in (True, False):
            params = {} if reference else {"judge_no_reference": True}
            built = task_messages(tiny_dir, item, **params)
            assert built == judge_messages(item, ANSWER, JudgeSetup(reference=reference), PROMPTS.__getitem__)
            if reference and item.id in BEFORE:
                assert built[1]["content"] == BEFORE[item.id]


def test_swapped_puts_the_candidate_block_first_with_its_label(tiny_dir: Path, items):
    for item in items:
        given = task_messages(tiny_dir, item)
        swapped = task_messages(tiny_dir, item, judge_order="swapped")
        assert swapped[0] == given[0]  # the rubric (system message) is the same
        user = swapped[1]["content"]
        candidate, reference = f"[Candidate]\n{ANSWER}", f"[Reference]\n{item.reference}"
        assert candidate in user and reference in user
        assert user.index(candidate) < user.index(reference)
        assert given[1]["content"].index(reference) < given[1]["content"].index(candidate)
        # the other fields stay where they were, and nothing is added or lost
        head = given[1]["content"].split("\n\n[Reference]\n", 1)[0]
        assert user.startswith(head + "\n\n[Candidate]\n")
        assert sorted(user) == sorted(given[1]["content"])
        if item.id in SWAPPED:
            assert user == SWAPPED[item.id]


def test_the_builtin_user_templates_swap_their_two_blocks():
    for task in ("cloze", "expand", "edit", "end2end"):
        template = PROMPTS[f"judge_user_{task}"]
        swapped = swap_blocks(template.text, template.placeholders)
        assert swapped.endswith("\n\n[Candidate]\n{candidate}\n\n[Reference]\n{reference}")
        assert (
            swapped.replace(
                "[Candidate]\n{candidate}\n\n[Reference]\n{reference}",
                "[Reference]\n{reference}\n\n[Candidate]\n{candidate}",
            )
            == template.text
        )
        assert "_noref" not in template.name
    assert PROMPTS["judge_user_cloze_noref"].placeholders == ("context", "candidate")  # nothing to swap there


@pytest.mark.parametrize(
    "text, expected",
    [
        # a label on its own paragraph above the text moves with it
        (
            'Grade it.\n\nReference:\n\n{reference}\n\nCandidate:\n\n{candidate}\n\nAnswer in JSON {"score": 6}.',
            'Grade it.\n\nCandidate:\n\n{candidate}\n\nReference:\n\n{reference}\n\nAnswer in JSON {"score": 6}.',
        ),
        # tags around the text, in its paragraph, move with it
        (
            "<reference>\n{reference}\n</reference>\n\n<candidate>\n{candidate}\n</candidate>",
            "<candidate>\n{candidate}\n</candidate>\n\n<reference>\n{reference}\n</reference>",
        ),
        # a block never reaches past another placeholder
        (
            "{instruction}\nReference: {reference}\n\n{candidate}",
            "{instruction}\n{candidate}\n\nReference: {reference}",
        ),
    ],
)
def test_a_users_template_swaps_its_paragraphs(text, expected):
    assert swap_blocks(text, ("instruction", "reference", "candidate")) == expected


@pytest.mark.parametrize(
    "text, problem",
    [
        ("[Reference]\n{reference}\n[Candidate]\n{candidate}", "are in one paragraph"),
        ("{reference}\n\n{candidate}\n\n(again: {candidate})", "appears 2 times"),
    ],
)
def test_a_template_whose_blocks_cannot_change_places_is_refused_when_loaded(text, problem):
    with pytest.raises(ValueError, match=problem):
        swap_blocks(text, ("reference", "candidate"))
    template = SwappedOrder("judge_user_x", "{reference}\n\n{candidate}", ("reference", "candidate"))
    with pytest.raises(PromptError, match=problem):
        template.replaced_by(text, "mine.txt")
    assert PromptTemplate("judge_user_x", text, ("reference", "candidate")).text == text  # as given: accepted


def test_swapped_needs_the_reference(tiny_dir: Path):
    assert get_task("c3ebench", {"data_dir": str(tiny_dir), "judge_no_reference": True}).swap_param is None
    with pytest.raises(ValueError, match="no order to swap"):
        get_task("c3ebench", {"data_dir": str(tiny_dir), "judge_no_reference": True, "judge_order": "swapped"})


# --- end to end: a position-biased judge, re-judged with the order swapped ---------------------------

# A phrase of each tiny item's prompt -> the candidate's answer; "[shift]" plants the judge's bias.
ANSWERS = {
    "The river rose overnight": "Farmers fled. [shift]",
    "Floods are bad.": "Floods ruin homes.",
    "thanking volunteers": "Thank you all. [shift]",
    "river management": "An essay.",
    "清晨的西湖": "午后游人如织。[shift]",
    "读书的意义": "读书明理。",
    "桥很老了。": "木桥老去。",
    "防汛工作": "各单位：通知。",
}
PLANTED = sum("[shift]" in answer for answer in ANSWERS.values()) / len(ANSWERS)  # 3 of 8


def candidate(messages):
    prompt = messages[-1]["content"]
    return next(answer for phrase, answer in ANSWERS.items() if phrase in prompt)


def shown(messages) -> tuple[str, bool]:
    """The candidate's text in a judge prompt, and whether it came before the reference."""
    user = messages[-1]["content"]
    text = user.split("[Candidate]\n", 1)[1].split("\n\n[Reference]\n", 1)[0]
    return text, user.index("[Candidate]\n") < user.index("[Reference]\n")


def biased_judge(messages):
    """4 + (length of the answer mod 5), and +2 for a planted answer shown before the reference."""
    text, first = shown(messages)
    score = 4 + len(text) % 5 + (2 if first and "[shift]" in text else 0)
    return f'{{"score": {score}, "verdict": "ok"}}'


def neutral_judge(messages):
    text, _ = shown(messages)
    return f'{{"score": {4 + len(text) % 5}, "verdict": "ok"}}'


@pytest.mark.parametrize("judge, flips, shift", [(biased_judge, PLANTED, 2 * PLANTED), (neutral_judge, 0.0, 0.0)])
def test_a_swapped_rescore_measures_the_judges_position_bias(
    tiny_dir: Path, tmp_path: Path, scripts, judge, flips, shift
):
    seen: list[bool] = []

    def judging(messages):
        seen.append(shown(messages)[1])
        return judge(messages)

    run = proseval.run(
        "c3ebench",
        model=scripts("pos-candidate", candidate),
        roles={"judge": scripts("pos-judge", judging)},
        params={"data_dir": str(tiny_dir), "judge_attempts": 1},
        out=tmp_path,
    )
    assert run.results.counts.finished == 8 and seen == [False] * 8  # as given: the reference first
    swapped = proseval.score(run.path, swap_order=True)
    assert len(swapped) == 1 and swapped[0].header.task_params["judge_order"] == "swapped"
    assert seen[8:] == [True] * 8  # re-judged: the candidate's text first
    assert all(r.scores["c3e"].metadata["judge_order"] == "swapped" for r in swapped[0].records())
    card = next(c for c in proseval.agreement([run.path, swapped[0].path]).cards if c.task == "c3ebench")
    assert card.judge == "scripted/pos-judge" and card.position is not None and card.position.n == 8
    assert card.position.flip_rate == flips  # exactly the planted share (3/8), or none
    assert card.position.mean_shift == pytest.approx(shift)  # swapped - as given: +2 on each planted item
    assert card.consistency is None  # the swapped run is the position probe, not a repeat
    with pytest.raises(UsageError, match="swapped already"):
        proseval.score(swapped[0].path, swap_order=True)


def test_a_users_judge_template_is_swapped_too(tiny_dir: Path, tmp_path: Path, scripts):
    seen: list[str] = []

    def judging(messages):
        seen.append(messages[-1]["content"])
        return '{"score": 6}'

    mine = tmp_path / "user.txt"
    mine.write_text(
        "Task: {instruction}\n\n<reference>\n{reference}\n</reference>\n\n<answer>\n{candidate}\n</answer>",
        encoding="utf-8",
    )
    run = proseval.run(
        "c3ebench",
        model=scripts("pos-candidate", candidate),
        roles={"judge": scripts("pos-judge", judging)},
        params={"data_dir": str(tiny_dir), "language": "en", "task": "end2end"},
        prompts={"judge_user_end2end": mine},
        out=tmp_path / "runs",
    )
    swapped = proseval.score(run.path, swap_order=True)[0]
    assert seen == [
        "Task: Write an essay on river management.\n\n<reference>\nRiver management balances farming, "
        "housing and nature.\n</reference>\n\n<answer>\nAn essay.\n</answer>",
        "Task: Write an essay on river management.\n\n<answer>\nAn essay.\n</answer>\n\n<reference>\n"
        "River management balances farming, housing and nature.\n</reference>",
    ]
    assert swapped.header.prompts["judge_user_end2end"].sha256 == run.header.prompts["judge_user_end2end"].sha256


def test_a_users_template_that_cannot_be_swapped_stops_before_any_request(tiny_dir: Path, tmp_path: Path, scripts):
    calls: list[int] = []

    def judging(messages):
        calls.append(1)
        return '{"score": 6}'

    mine = tmp_path / "user.txt"
    mine.write_text("{instruction}\n[Reference] {reference}\n[Candidate] {candidate}", encoding="utf-8")
    out = tmp_path / "runs"
    run = proseval.run(
        "c3ebench",
        model=scripts("pos-candidate", candidate),
        roles={"judge": scripts("pos-judge", judging)},
        params={"data_dir": str(tiny_dir), "language": "en", "task": "end2end"},
        prompts={"judge_user_end2end": mine},
        out=out,
    )
    assert calls == [1]  # as given, the template is fine
    with pytest.raises(PromptError, match="cannot show the judge its two texts in the other order"):
        proseval.score(run.path, swap_order=True)
    assert calls == [1] and [p.name for p in out.iterdir()] == [run.path.name]


def test_without_the_reference_there_is_no_order_to_swap(tiny_dir: Path, tmp_path: Path, scripts):
    run = proseval.run(
        "c3ebench",
        model=scripts("pos-candidate", candidate),
        roles={"judge": scripts("pos-judge", neutral_judge_noref)},
        params={"data_dir": str(tiny_dir), "language": "en", "task": "end2end", "judge_no_reference": True},
        out=tmp_path,
    )
    with pytest.raises(UsageError, match="no two texts"):
        proseval.score(run.path, swap_order=True)


def neutral_judge_noref(messages):
    return '{"score": 6}'

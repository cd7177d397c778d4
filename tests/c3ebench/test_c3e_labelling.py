"""C3EBench labelled by people, end to end: two runs of different candidates on the same items, scored
and compared pairwise (A, B or tie) in the viewer's labelling app, then compared by `proseval
agreement` with the judge's scores: preference agreement over the A/B/tie choices, and pairwise
consistency over the pairs of answers to the same instruction (C3EBench's Table 3 measure)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import proseval
from proseval.registry import tasks
from view.test_labelling import client, kind_of, post

PHRASES = ("The river rose overnight", "thanking volunteers", "Floods are bad.", "river management")  # EN items
# By candidate, for the items in PHRASES' order: the judge's scores and the rater's.
JUDGE = {"ALPHA": (7, 5, 4, 8), "BETA": (6, 5, 6, 3)}
HUMAN = {"ALPHA": (8, 6, 3, 7), "BETA": (5, 4, 7, 7)}
PREFERRED = ("ALPHA", "BETA", "BETA", None)  # the rater's choice per item (None: a tie)


def candidate(name: str):
    def answer(messages):
        prompt = messages[-1]["content"]
        return f"{name} answer {next(k for k, phrase in enumerate(PHRASES) if phrase in prompt)}"

    return answer


def judge(messages):
    name, _, k = messages[-1]["content"].rsplit("[Candidate]\n", 1)[1].split()
    return f'{{"analysis": "-", "score": {JUDGE[name][int(k)]}, "verdict": "-"}}'


@pytest.fixture
def runs(tmp_path: Path, tiny_dir: Path, scripts) -> Path:
    root = tmp_path / "runs"
    judged_by = scripts("c3e-label-judge", judge)
    for name in JUDGE:
        proseval.run(
            "c3ebench",
            model=scripts(f"c3e-{name.lower()}", candidate(name)),
            roles={"judge": judged_by},
            params={"data_dir": str(tiny_dir), "language": "en"},
            out=root,
            cache=False,
        )
    return root


def shown(page: str) -> list[tuple[str, int]]:
    """The answers a page shows, in order (A, then B): (candidate, item)."""
    return [(name, int(k)) for name, k in re.findall(r'<pre class="output">(ALPHA|BETA) answer (\d)', page)]


def test_pairs_and_scores_labelled_in_the_app_are_compared_with_the_judge(runs: Path):
    record = next(next(proseval.read_run(p) for p in runs.iterdir() if (p / "header.json").is_file()).records())
    form = tasks()["c3ebench"].labelling(record.model_dump(mode="json"))
    assert [c.name for c in form.criteria] == [r.criterion for r in record.ratings] == ["c3e"] and form.pairwise

    web = client(runs, rater="Ann")
    kinds = []
    for position in range(1, len(web.app.state.labelling.plan.items) + 1):
        page = web.get(f"/label/{position}").text
        kinds.append(kind_of(page))
        answers = shown(page)
        if kinds[-1] == "pair":
            (a, k), (b, same) = answers
            assert k == same and a != b  # two candidates' answers to the same instruction
            choice = "tie" if PREFERRED[k] is None else "A" if PREFERRED[k] == a else "B"
            values = {"c0": choice}
        else:
            ((name, k),) = answers
            values = {"c0": str(HUMAN[name][k])}
        assert post(web, position, "Ann", values).status_code == 303
    assert sorted(kinds) == ["pair"] * 4 + ["score"] * 8

    folders = [p for p in runs.iterdir() if (p / "header.json").is_file()]
    analysis = proseval.agreement(folders, labels=runs / "labels" / "s1.jsonl")
    assert (analysis.labels.matched, analysis.labels.unmatched, analysis.labels.ambiguous) == (12, 0, 0)
    (card,) = analysis.cards
    humans = card.humans
    assert humans.n_items == 8 and humans.per_rater["Ann"].n == 8
    # The A/B/tie choices against the order the judge's scores imply: items 1 and 3 agree; on item 2 the
    # judge ties where the rater prefers BETA, on item 4 the rater ties where the judge prefers ALPHA.
    implied = [
        "ALPHA" if JUDGE["ALPHA"][k] > JUDGE["BETA"][k] else "BETA" if JUDGE["ALPHA"][k] < JUDGE["BETA"][k] else None
        for k in range(4)
    ]
    agreed = sum(judge_order == rater for judge_order, rater in zip(implied, PREFERRED))
    assert (humans.n_preferences, humans.preference_agreement) == (4, agreed / 4) == (4, 0.5)
    # Pairs of answers to the same instruction the rater scores differently (items 1-3; item 4 is a tie),
    # ordered the same way by the judge: items 1 and 3 (item 2: the judge ties), never across items.
    assert humans.pairwise_consistency == pytest.approx(2 / 3)

"""RAVEL's labelling form, end to end: two finished runs (scripted policies, tools and judge), labelled
through the viewer's labelling app, compared by `proseval agreement` with the End2End judge's
verdicts and with the reviewer's section scores."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

import proseval
from proseval.registry import tasks
from ravel.ravel_fixtures import efficient, model, tools
from view.test_labelling import client, kind_of, post

JUDGE_A, JUDGE_B = 5, 7  # the judge's score of run A's and run B's manuscripts


def variant(messages):
    """Run B's tools: marked texts, and a reviewer that passes Water at 8 and Ice at 10 at once."""
    user = messages[-1]["content"]
    if user.startswith("You are writing"):
        section = re.search(r"This section: (.*)", user).group(1)
        return json.dumps({"content": f"B-{section} text.", "summary": f"About {section}."})
    if user.startswith("You review"):
        return '{"score": 8, "feedback": "fine"}' if "Section: Water" in user else '{"score": 10, "feedback": ""}'
    return tools(messages)


def judge(messages):
    return json.dumps(
        {"analysis": {}, "score": JUDGE_B if "B-Water" in messages[-1]["content"] else JUDGE_A, "verdict": "ok"}
    )


@pytest.fixture
def runs(tmp_path: Path, data_dir: Path, scripts) -> Path:
    root = tmp_path / "runs"
    b = model(lambda turn, state: efficient(state))
    judged_by = scripts("ravel-judge", judge)  # one judge of both runs' manuscripts
    for name, answer in (
        ("ravel-pol-a", model(lambda turn, state: efficient(state))),
        ("ravel-pol-b", lambda m: b(m) if "editor in charge" in m[0]["content"] else variant(m)),
    ):
        proseval.run(
            "ravel",
            model=scripts(name, answer),
            roles={"judge": judged_by},
            params={"data_dir": str(data_dir), "language": "en"},
            limit=2,
            out=root,
            cache=False,
        )
    return root


def records(root: Path, policy: str = "scripted/ravel-pol-a") -> list[dict]:
    """The records of the run whose policy is `policy` (folder names do not say which run is which)."""
    return [
        json.loads(line)
        for path in sorted(root.glob("*/samples.jsonl"))
        if json.loads((path.parent / "header.json").read_text(encoding="utf-8"))["roles"]["candidate"]["spec"] == policy
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def test_the_form_asks_the_judges_question_and_the_reviewers_for_each_reviewed_section(runs: Path):
    first = records(runs)[0]
    form = tasks()["ravel"].labelling(first)
    names = [c.name for c in form.criteria]
    assert names == [r["criterion"] for r in first["ratings"]] == ["judge", *(f"reviewer: section {n}" for n in (1, 2))]
    judge_criterion, water, ice = form.criteria
    assert (judge_criterion.low, judge_criterion.high, judge_criterion.paired) == (1, 10, True)
    assert "worth exactly 6" in judge_criterion.description and form.reference == "Water is a strange substance."
    assert form.question.startswith("Write an essay on why water is unusual.")
    assert [(c.low, c.high, c.paired) for c in (water, ice)] == [(0, 10, False)] * 2
    # the text the reviewer read at the section's last review: Ice after its refinement, with its points and τ
    assert water.description.endswith("Section text:\nWater text.") and "- density" in water.description
    assert ice.description.endswith("Section text:\nIce text, revised: it floats because it is less dense.")
    assert "8 or more means it can stand as it is" in ice.description


def test_labels_saved_in_the_app_are_compared_with_the_judge_and_the_reviewer(runs: Path):
    human_judge = {True: 6, False: 4}  # by run (B or not): the rater agrees with the judge's order
    human_section = {("Water", False): 7, ("Ice", False): 8, ("Water", True): 9, ("Ice", True): 6}
    web = client(runs, rater="Ann")
    total = len(web.app.state.labelling.plan.items)
    kinds = []
    for position in range(1, total + 1):
        page = web.get(f"/label/{position}").text
        kinds.append(kind_of(page))
        if kinds[-1] == "pair":  # only the judge's question: the reviewer's are about one episode's sections
            assert len(re.findall(r"data-question ", page)) == 1 and "reviewer: section" not in page
            a = re.search(r'id="answer-1"><h3>Answer A</h3><pre class="output">(.*?)</pre>', page, re.S).group(1)
            values = {"c0": "A" if "B-Water" in a else "B"}
        else:
            is_b = "B-Water text." in page
            values = {"c0": str(human_judge[is_b])}
            for index, title in re.findall(
                r'id="q(\d+)">\s*<legend>Section \d+, &#34;\w+&#34;: [^<]*</legend>\s*'
                r'<pre class="criterion">[^\n]*? section \d+, &#34;(\w+)&#34;',
                page,
            ):
                values[f"c{index}"] = str(human_section[title, is_b])
            assert len(values) == 3, page
        assert post(web, position, "Ann", values).status_code == 303
    assert sorted(kinds) == ["pair"] * 2 + ["score"] * 4

    folders = sorted(p for p in runs.iterdir() if (p / "header.json").is_file())
    analysis = proseval.agreement(folders, labels=runs / "labels" / "s1.jsonl")
    assert analysis.labels.matched == 4 + 8 + 2 and analysis.labels.unmatched == 0 and analysis.labels.ambiguous == 0
    cards = {(card.role, card.judge): card for card in analysis.cards}
    assert sorted(cards) == [
        ("judge", "scripted/ravel-judge"),
        ("reviewer", "scripted/ravel-pol-a"),
        ("reviewer", "scripted/ravel-pol-b"),
    ]
    judge_card = cards["judge", "scripted/ravel-judge"]
    assert judge_card.n_ratings == 4 and judge_card.humans.n_items == 4
    expected = statistics.fmean([JUDGE_A - human_judge[False], JUDGE_B - human_judge[True]])
    assert judge_card.humans.vs_human_mean.mean_difference == pytest.approx(expected)
    assert judge_card.humans.vs_human_mean.spearman == pytest.approx(1.0)  # both order B's manuscripts first
    # the pairs: the rater prefers B's manuscript, as the judge's scores of the two imply
    assert (judge_card.humans.n_preferences, judge_card.humans.preference_agreement) == (2, 1.0)
    assert judge_card.humans.pairwise_consistency == 1.0  # the rater's scores order each topic's two the same way
    for run, is_b in (("a", False), ("b", True)):
        reviewer = cards["reviewer", f"scripted/ravel-pol-{run}"]
        assert reviewer.scale == "interval 0-10" and reviewer.n_ratings == 4 and reviewer.humans.n_items == 4
        given = {"Water": 8 if is_b else 9, "Ice": 10 if is_b else 9}  # the reviewer's last scores
        expected = statistics.fmean(given[t] - human_section[t, is_b] for t in ("Water", "Ice"))
        assert reviewer.humans.vs_human_mean.mean_difference == pytest.approx(expected)
        assert reviewer.humans.per_rater["Ann"].n == 4


def test_a_rescore_judges_the_manuscript_again_not_the_sections(runs: Path, scripts):
    source = sorted(p for p in runs.iterdir() if (p / "header.json").is_file())[0]
    again = proseval.score(source, roles={"judge": scripts("ravel-judge-2", lambda m: '{"score": 6}')})[0]
    assert any(r.role == "reviewer" for r in next(again.records()).ratings)  # recorded, from the stored episode
    analysis = proseval.agreement([source, again.path])
    reviewer = [card for card in analysis.cards if card.role == "reviewer"]
    policy = json.loads((source / "header.json").read_text(encoding="utf-8"))["roles"]["candidate"]["spec"]
    assert [(card.judge, card.runs, card.consistency) for card in reviewer] == [
        (policy, [source.name], None)
    ]  # not a repeat of the reviewer: its verdicts are the source's
    assert sorted(card.judge for card in analysis.cards if card.role == "judge") == [
        "scripted/ravel-judge",
        "scripted/ravel-judge-2",
    ]


def test_with_tool_text_policy_the_reviewed_text_is_the_one_the_policy_passed(tmp_path, data_dir, scripts):
    def policy(turn, state):
        decision = json.loads(efficient(state))
        if decision["action"] == "review":
            decision["params"]["content"] += " (as passed)"
        return json.dumps(decision)

    run = proseval.run(
        "ravel",
        model=scripts("ravel-copier", model(policy)),
        roles={"judge": scripts("ravel-judge", judge)},
        params={"data_dir": str(data_dir), "language": "en", "tool_text": "policy"},
        limit=1,
        out=tmp_path,
        cache=False,
    )
    form = tasks()["ravel"].labelling(next(run.records()).model_dump(mode="json"))
    assert [c.description.rsplit("Section text:\n", 1)[1] for c in form.criteria[1:]] == [
        "Water text. (as passed)",
        "Ice text, revised: it floats because it is less dense. (as passed)",
    ]

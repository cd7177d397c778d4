"""Meeseeks' and LongWeave's label forms through the labelling app: a yes/no question per judged
requirement or target field, saved as 1/0 under the criterion the task's ratings name, and matched
with the judges' verdicts by `proseval agreement`. Also the yes/no buttons of any 0-1 criterion and
the named points of other scales.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from proseval.core.views import LabelCriterion
from proseval.registry import get_task, tasks
from proseval.runtime.runlog import RunFolder
from proseval.view.labelsession import Point, scale_points
from view.judged_fixtures import MEESEEKS_JUDGED, judged_runs
from view.test_labelling import client, csrf_of, labels_of, plan_of, post


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return judged_runs(tmp_path_factory.mktemp("judged") / "runs")


@pytest.fixture
def runs(built: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "runs"))


def questions_on(page: str) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Each question of an item page: its legend and its buttons (value, data-key, text shown)."""
    found = []
    for legend, body in re.findall(r"<legend>(.*?)</legend>(.*?)</fieldset>", page, re.S):
        buttons = re.findall(
            r'<input type="radio" name="c\d+" value="(-?\d+)"(?: checked)?(?: data-key="(\w)")?[^>]*>'
            r"<span>([^<]*)",
            body,
        )
        found.append((html.unescape(legend), [(v, k, t.strip()) for v, k, t in buttons]))
    return found


def form_names_by_item(root: Path) -> dict[tuple[str, str], list[str]]:
    """(run id, sample id) -> the criteria of the form its record is asked with, by name (the page
    shows each under its title)."""
    found = {}
    for header_file in root.glob("*/header.json"):
        folder = RunFolder(header_file.parent)
        header = folder.read_header()
        for line in (folder.path / "samples.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            found[header.run_id, record["id"]] = [c.name for c in tasks()[header.task].labelling(record).criteria]
    return found


def judge_ratings_by_item(root: Path) -> dict[tuple[str, str], tuple[str, dict[str, float | None]]]:
    """(run id, sample id) -> (task, the judge's verdicts by criterion), read with the task's ratings."""
    found = {}
    for header_file in root.glob("*/header.json"):
        folder = RunFolder(header_file.parent)
        header = folder.read_header()
        ratings = get_task(header.task, header.task_params).ratings
        for record in folder.iter_records():
            found[header.run_id, record.id] = (header.task, {r.criterion: r.value for r in ratings(record.scores)})
    return found


def test_labels_saved_in_the_app_are_matched_with_the_judges_verdicts_by_agreement(runs: Path, tmp_path: Path):
    web = client(runs, "judged", "Ann", seed=4)
    plan = plan_of(runs, "judged")["items"]
    assert [item["kind"] for item in plan] == ["score"] * 5  # no pairs: absolute verdicts only
    judged, names = judge_ratings_by_item(runs), form_names_by_item(runs)
    sent: list[tuple[str, str, int, float | None, bool]] = []  # task, criterion, label, verdict, rated
    for position, item in enumerate(plan, start=1):
        task, verdicts = judged[item["runs"][0], item["id"]]
        asked = questions_on(web.get(f"/label/{position}", params={"rater": "Ann"}).text)
        assert asked and all(buttons == [("0", "n", "No"), ("1", "y", "Yes")] for _, buttons in asked)
        criteria = names[item["runs"][0], item["id"]]  # asked in the form's order, each under its title
        assert len(criteria) == len(asked) and not set(criteria) & {legend for legend, _ in asked}
        if task == "meeseeks":
            assert criteria == list(verdicts) == MEESEEKS_JUDGED
            assert [legend for legend, _ in asked] == [
                "Requirement 1: Is the answer a haiku?",
                "Requirement 2: Is it about autumn leaves?",
                "Requirement 4: Does the answer have a title?",
                "Requirement 6: Is the answer a haiku?",
            ]
        values = {}
        for index, name in enumerate(criteria):
            verdict = verdicts.get(name)
            label = 1 if verdict is None else int(verdict)
            if index % 4 == 3:
                label = 1 - label  # the rater disagrees now and then
            values[f"c{index}"] = str(label)
            sent.append((task, name, label, verdict, name in verdicts))
        assert post(web, position, "Ann", values).status_code == 303
    saved = labels_of(runs, "judged")
    assert [(label["criterion"], label["score"]) for label in saved] == [(name, label) for _, name, label, *_ in sent]

    output = tmp_path / "agreement.json"
    from proseval.cli import app

    run_folders = sorted(str(path.parent) for path in runs.glob("*/header.json"))
    result = CliRunner().invoke(
        app, ["agreement", *run_folders, "--labels", str(runs / "labels" / "judged.jsonl"), "--json", str(output)]
    )
    assert result.exit_code == 0, result.output
    analysis = json.loads(output.read_text(encoding="utf-8"))
    unrated = {name for task, name, _, _, rated in sent if not rated}
    assert analysis["labels"]["matched"] == sum(rated for *_, rated in sent) > 0
    assert analysis["labels"]["unmatched"] == len(unrated) > 0
    # only the dependent fields the judge's first verdict gated go unmatched (SR's question 3: not answered)
    assert "question 3: correct" in unrated and all(name.endswith((": correct", ": follows rules")) for name in unrated)
    cards = {card["task"]: card for card in analysis["cards"]}
    for task in ("meeseeks", "longweave"):
        compared = [(label, verdict) for t, _, label, verdict, rated in sent if t == task and verdict is not None]
        stats = cards[task]["humans"]["per_rater"]["Ann"]
        assert stats["n"] == len(compared) > 3
        assert stats["exact"] == pytest.approx(sum(label == verdict for label, verdict in compared) / len(compared))
        assert 0 < stats["exact"] < 1 and stats["weighted_kappa"] is not None


def test_a_yes_no_question_shows_yes_and_no_and_saves_1_and_0(runs: Path):
    web = client(runs, "yesno", "Bo", seed=4)
    plan = plan_of(runs, "yesno")["items"]
    position = next(n for n, item in enumerate(plan, start=1) if item["id"].startswith("meeseeks/"))
    page = web.get(f"/label/{position}", params={"rater": "Bo"}).text
    assert "<span>No <kbd>n</kbd></span>" in page and "<span>Yes <kbd>y</kbd></span>" in page
    keys = " ".join(re.sub(r"<[^>]+>", "", re.search(r'<aside class="keys".*?</aside>', page, re.DOTALL)[0]).split())
    assert keys == (
        "Keys n no / y yes answer the highlighted question · ← → move along the highlighted scale · "
        "Enter save and go on · Backspace back one question · c comment (Esc leaves it, Ctrl+Enter saves) "
        "· skip: the skip link · p previous"
    )
    assert re.search(r"data-next>skip →</a>", page)  # n answers here, so the link does not offer it
    assert "digits score" not in page  # no numbered scale on this form
    assert post(web, position, "Bo", {"c0": "2", "c1": "1", "c2": "0", "c3": "1"}).status_code == 422
    assert post(web, position, "Bo", {"c0": "1", "c1": "0", "c2": "0", "c3": "1"}).status_code == 303
    assert [(label["criterion"], label["score"]) for label in labels_of(runs, "yesno")] == list(
        zip(MEESEEKS_JUDGED, [1, 0, 0, 1])
    )
    again = web.get(f"/label/{position}", params={"rater": "Bo"}).text
    checked = re.findall(r'name="c(\d)" value="(\d)" checked data-key="\w"', again)
    assert checked == [("0", "1"), ("1", "0"), ("2", "0"), ("3", "1")]
    assert csrf_of(again)


def test_named_points_of_any_scale_and_their_keys():
    assert scale_points(LabelCriterion("pass", "", 0, 1)) == [Point(0, "No", "n"), Point(1, "Yes", "y")]
    assert scale_points(LabelCriterion("d", "", -1, 1, ("worse", "same", "better"))) == [
        Point(-1, "worse", "w"),
        Point(0, "same", "s"),
        Point(1, "better", "b"),
    ]
    # one letter for both: picked by their numbers instead
    assert [p.key for p in scale_points(LabelCriterion("d", "", 1, 2, ("Yes", "Yeah")))] == ["1", "2"]
    assert scale_points(LabelCriterion("q", "", 1, 10)) == [Point(n, str(n), str(n % 10)) for n in range(1, 11)]
    assert scale_points(LabelCriterion("wide", "", 0, 20)) is None  # a number field
    assert scale_points(LabelCriterion("wide", "", 0, 20, tuple(f"p{n}" for n in range(21))))[20].text == "p20"
    with pytest.raises(ValueError, match="2 point label"):
        LabelCriterion("d", "", -1, 1, ("worse", "better"))

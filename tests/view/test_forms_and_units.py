"""What a rater and a reader see: every question of every benchmark's form titled in words
(`LabelCriterion.title`: RAVEL's End2End question is not "judge", LongWeave's not "fact 3: covered"), every point of a scale reachable by a key or the arrows (10 on a 0-10 scale included),
Meeseeks' requirements in Chinese under English tasks said to be so, and every figure of the run
list, run and sample pages with the unit its task's metric definitions give it."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from proseval.commandline.units import NOT_STATED, metric_units, unit_of
from proseval.core.views import LabelCriterion
from proseval.registry import tasks
from proseval.view import create_app
from proseval.view.labelsession import TEN_KEY, number_key, question_title, scale_points
from support.scripted import registered_scripts
from view.test_labelling import LOCAL, client, plan_of
from view.test_labelling_judged import questions_on
from view.view_fixtures import ravel_run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ravel_pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two RAVEL runs of the same item: its manuscripts are scored and paired."""
    root = tmp_path_factory.mktemp("ravel-pair") / "runs"
    with registered_scripts() as scripts:
        ravel_run(root, scripts)
        ravel_run(root, scripts)
    return root


def item_page(root: Path, session: str, kind: str, task: str) -> str:
    web = client(root, session, "Kim", seed=5)
    position = next(
        n
        for n, item in enumerate(plan_of(root, session)["items"], start=1)
        if item["kind"] == kind and item["task"] == task
    )
    return web.get(f"/label/{position}").text


# the forms ---------------------------------------------------------------------------------------
def test_ravel_questions_are_titled_in_words_a_rater_understands(ravel_pair: Path):
    scored = questions_on(item_page(ravel_pair, "titles", "score", "ravel"))
    legends = [legend for legend, _ in scored]
    assert legends == [
        "How good is the final manuscript, on the rubric below (1-10)?",
        'Section 1, "Water": how well does it stand as written (0-10)?',
        'Section 2, "Ice": how well does it stand as written (0-10)?',
    ]
    [(pair_legend, buttons)] = questions_on(item_page(ravel_pair, "pairs", "pair", "ravel"))
    assert pair_legend == "Which manuscript is better?"  # one question asked of a pair: no criterion after it
    assert not any("judge" in legend or "reviewer:" in legend for legend in [*legends, pair_legend])


def test_c3ebench_asks_its_question_in_words_not_by_its_metric():
    [criterion] = tasks()["c3ebench"].labelling(C3E_ITEM).criteria
    assert criterion.name == "c3e"  # the judge's rating, so agreement pairs them
    assert question_title(criterion) == "How good is the candidate text, on the rubric below (1-10)?"
    assert question_title(LabelCriterion("quality")) == "quality"  # a criterion without a title: its name


def test_every_point_of_a_ravel_item_has_a_key_and_the_form_says_which_gives_10(ravel_pair: Path):
    page = item_page(ravel_pair, "keys", "score", "ravel")
    end2end, *sections = questions_on(page)
    assert [(value, key) for value, key, _ in end2end[1]] == [(str(n), str(n % 10)) for n in range(1, 11)]
    for _, buttons in sections:  # 0-10: 0 gives 0, t gives 10
        assert [(value, key) for value, key, _ in buttons] == [
            (str(n), str(n) if n < 10 else TEN_KEY) for n in range(11)
        ]
    assert 'value="10" data-key="t"><span>10 <kbd>t</kbd>' in page  # on the button
    legend = html.unescape(re.sub(r"<[^>]+>", "", re.search(r'<aside class="keys".*?</aside>', page, re.S).group()))
    assert "0 gives 10 on a scale without 0" in legend and "t gives 10 on a scale from 0" in legend
    assert "← → move along the highlighted scale" in legend


C3E_ITEM = {
    "input": "Fill the gap.",
    "target": {
        "task": "cloze",
        "language": "en",
        "instruction": "Fill the gap.",
        "input": {"context": "Before [GAP] after."},
        "reference": "REF",
    },
}
WB_RECORD = {
    "input": "Write a memo.",
    "target": {
        "checklist": [
            {
                "name": "Clarity of the argument",
                "criteria_description": "Is it clear?",
                "1-2": "muddled",
                "9-10": "clear",
            }
        ]
    },
}
LW_TARGETS = {
    "biog": {"target_sentences": ["Ada was born in 1815."]},
    "sr": {"qa_pairs": [{"question": "Who sold most?", "answer": "Acme"}]},
    "nw": {
        "statements": [
            {
                "id": 1,
                "statement": "Rates rose.",
                "category": "numbers",
                "reason": "spelled",
                "correct": "Rates rose 5%.",
            }
        ]
    },
    "cf": {},
}


def form_records() -> dict[str, list[dict]]:
    """A record of each task whose form a rater may be shown (several for a task with several forms)."""
    return {
        "demo": [{"input": "Write a poem about rain."}],
        "writingbench": [WB_RECORD],
        "writingbench-curate": [WB_RECORD],
        "meeseeks": [meeseeks_record("en", ["Is the answer a poem?", "是否给出了作品的名字"])],
        "longweave": [
            {"id": f"lw-{task}", "input": "Write.", "metadata": {"task": task}, "target": target}
            for task, target in LW_TARGETS.items()
        ],
        "c3ebench": [C3E_ITEM],
        "ravel": [C3E_ITEM],
        "revision-distance": [
            {"input": "A note.", "target": {"instruction": "A note.", "draft": "Hi.", "rejected": "hi"}},
            {"input": "A note.", "target": {"instruction": "A note.", "draft": "Hi."}},
        ],
    }


def test_every_benchmark_form_titles_each_question_in_words():
    records_of = form_records()
    labelled = sorted(name for name, entry in tasks().items() if entry.labelling is not None)
    assert labelled == sorted(records_of)  # a new benchmark's form is checked here too
    for task, records in records_of.items():
        for record in records:
            criteria = tasks()[task].labelling(record).criteria
            assert criteria, (task, record)
            for criterion in criteria:
                assert criterion.title and " " in criterion.title.strip(), (task, criterion.name, criterion.title)
                assert question_title(criterion) == criterion.title
    titles = {
        task: [c.title for record in records for c in tasks()[task].labelling(record).criteria]
        for task, records in records_of.items()
    }
    assert titles["longweave"] == [
        "Fact 1: does the biography state it?",
        "Question 1: does the report answer it?",
        "Question 1: is the report's answer right?",
        "Statement 1: does the article convey it?",
        "Statement 1: does the article follow the AP rules there?",
        "Is the answer a version of the whole given program?",
    ]
    assert titles["meeseeks"] == ["Requirement 1: Is the answer a poem?", "Requirement 2: 是否给出了作品的名字"]
    assert titles["demo"] == ["How well does the answer fulfil the request (1-10)?"]


def test_the_default_form_is_titled_in_words_too():
    from proseval.view.labelsession import DEFAULT_CRITERION

    assert (
        DEFAULT_CRITERION.name == "overall"
        and question_title(DEFAULT_CRITERION) == "How good is the answer as a whole (1-10)?"
    )


@pytest.mark.parametrize(
    ("low", "high", "keys"),
    [
        (0, 10, [*"0123456789", TEN_KEY]),
        (1, 10, [*"123456789", "0"]),
        (1, 5, [*"12345"]),
        (-2, 2, ["", "", "0", "1", "2"]),  # no key for -2 and -1: the arrow keys reach them
    ],
)
def test_scale_points_give_every_point_a_key_where_one_fits(low: int, high: int, keys: list[str]):
    assert [point.key for point in scale_points(LabelCriterion("c", "", low, high))] == keys
    assert number_key(10, 1) == "0" and number_key(10, 0) == TEN_KEY and number_key(11, 0) == ""


def test_named_points_whose_letters_clash_are_picked_by_their_numbers():
    points = scale_points(LabelCriterion("d", "", 1, 2, ("Yes", "Yeah")))
    assert [(p.key, p.shown_key, p.named) for p in points] == [("1", "1", True), ("2", "2", True)]


# Meeseeks: requirements in Chinese under tasks in other languages --------------------------------
def meeseeks_record(language: str, questions: list[str]) -> dict:
    verdicts = [{"position": n, "question": q, "result": 1} for n, q in enumerate(questions)]
    return {
        "input": "Write a poem about rain.",
        "metadata": {"language": language},
        "scores": {"meeseeks": {"value": 1.0, "metadata": {"judge_verdicts": {"verdicts": verdicts}}}},
    }


def test_a_meeseeks_requirement_in_chinese_under_an_english_task_says_so_and_is_shown_as_given():
    questions = ["是否给出了作品的名字", "Is the answer a poem?"]
    chinese, english = tasks()["meeseeks"].labelling(meeseeks_record("en", questions)).criteria
    assert (chinese.name, english.name) == tuple(questions)  # the data's own words, untranslated
    assert (
        "It is in Chinese, as the benchmark's data give most requirements of its English items" in chinese.description
    )
    assert "Chinese" not in english.description
    [same] = tasks()["meeseeks"].labelling(meeseeks_record("zh", questions[:1])).criteria
    assert "Chinese" not in same.description  # a Chinese task: nothing to say
    [japanese] = tasks()["meeseeks"].labelling(meeseeks_record("ja", ["名前は5つですか"])).criteria
    assert "Chinese" not in japanese.description  # kanji with kana: Japanese


def test_the_counts_docs_meeseeks_gives_are_those_of_the_official_data(shared_dir: Path):
    from proseval.benchmarks.meeseeks.data import load_items
    from proseval.benchmarks.meeseeks.labelling import in_chinese

    data = shared_dir / "data" / "meeseeks"
    if not data.is_dir():
        pytest.skip(f"no Meeseeks data at {data}")
    counted: dict[str, list[int]] = {}
    for item in load_items(data):
        flags = [in_chinese(sub.question) for sub in item.sub_questions]
        total = counted.setdefault(item.language, [0, 0, 0, 0])
        total[0] += sum(flags)
        total[1] += len(flags)
        total[2] += any(flags)
        total[3] += 1
    eight = [sum(counted[lang][k] for lang in ("en", "de", "fr", "es", "pt", "ru", "ar", "id")) for k in range(4)]
    docs = (REPO / "docs" / "meeseeks.md").read_text(encoding="utf-8")

    def row(figures: list[int]) -> str:
        chinese, subs, items_with, items = (f"{n:,}" for n in figures)
        return f"| {chinese} | {subs} | {items_with} of {items} |"

    assert f"| English (`en`) {row(counted['en'])}" in docs
    assert f"(en, de, fr, es, pt, ru, ar, id) {row(eight)}" in docs
    assert eight[:2] == [28954, 30075] and counted["en"][:2] == [3472, 3582]


# units -------------------------------------------------------------------------------------------
def test_metric_units_come_from_the_tasks_definitions():
    ravel = metric_units("ravel", ["reviews_per_section", "steps", "judge", "made_up"])
    assert ravel["reviews_per_section"].mark == "%" and "review actions / n" in ravel["reviews_per_section"].said
    assert ravel["steps"].mark == "" and ravel["steps"].said.startswith("|T|: policy decisions")
    assert ravel["made_up"] == unit_of("made_up", (), "ravel") and not ravel["made_up"].stated
    rd = metric_units("revision-distance", ["rouge.rougeL", "rouge", "pair_tie", "revision_categories.add"])
    assert rd["rouge.rougeL"].said.startswith("ROUGE-1/2/L F1") and rd["rouge"].said == rd["rouge.rougeL"].said
    assert rd["pair_tie"].said.startswith("pairs: the chosen text needs fewer")
    assert rd["revision_categories.add"].said.startswith("edits per category")
    assert metric_units("demo", ["made_up"])["made_up"].said == NOT_STATED.format(task="demo")
    assert metric_units("demo", ["quality"])["quality"].said.startswith("the judge's rating of the answer, score 1-10")


def cells(page: str, table: str) -> list[list[str]]:
    body = re.search(rf'<table class="grid[^"]*" id="{table}">(.*?)</table>', page, re.S).group(1)
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
        if "<td" in row
    ]


def test_every_figure_of_a_ravel_run_has_its_unit(built_runs: dict[str, Path]):
    ravel, demo = built_runs["ravel"], built_runs["demo"]
    web = TestClient(create_app(ravel.parent), base_url=LOCAL)
    page = web.get(f"/runs/{ravel.name}").text
    metrics = {row[0]: row for row in cells(page, "metrics")}
    assert metrics["reviews_per_section"][1] == "150 %" and metrics["reviews_per_section"][2] == "– – –"
    assert metrics["reviews_per_section"][6] == "% — rho (eq. 9 as printed): review actions / n, in %"
    assert metrics["steps"][6].startswith("|T|: policy decisions consumed")
    assert all(row[6] for row in metrics.values())  # every metric: its unit, or that none is stated
    samples = re.search(r'<table class="grid samples".*?</table>', page, re.S).group()
    assert ">refines_per_section (%)</th>" in samples and '<td class="n">50 %</td>' in samples
    sample = web.get(f"/runs/{ravel.name}/samples/1").text
    row = next(row for row in cells(sample, "scores") if row[0].startswith("reviews_per_section"))
    assert row[1] == "150 %" and row[0].endswith("% — rho (eq. 9 as printed): review actions / n, in %")
    run_list = web.get("/").text
    demo_metrics = {row[0]: row for row in cells(web.get(f"/runs/{demo.name}").text, "metrics")}
    assert demo_metrics["quality (1-10)"][6].startswith("the judge's rating of the answer, score 1-10")
    assert metrics["judge (1-10)"][1] == "7"  # a scale beside the metric's name, visible on a phone too
    headlines = [cell for row in cells(run_list, "runs") for cell in row[8:9]]
    assert "judge 7 (1-10)" in headlines and not any("unit not stated" in cell for cell in headlines)
    assert any(cell.startswith("quality ") and cell.endswith(" (1-10)") for cell in headlines)  # demo's scale too


def test_the_ravel_review_scores_of_the_trajectory_say_their_scale(built_runs: dict[str, Path]):
    record = json.loads((built_runs["ravel"] / "samples.jsonl").read_text(encoding="utf-8").splitlines()[0])
    [steps] = tasks()["ravel"].views(record)
    labels = [
        item[0]
        for step in steps.data["steps"]
        for block in step["blocks"]
        if block.kind == "kv"
        for item in block.data["items"]
    ]
    assert "review score (0-10)" in labels and "review score" not in labels

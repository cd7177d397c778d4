"""The viewer's labelling mode through the ASGI app: the plan, blind pages, saving, validation, the
cross-site guards, the token, the benchmarks' forms and the agreement page.

The run folders are written by hand (`labelling_runs`): three demo runs by three candidates that
answer the same prompts (their answers start with a word of their own, so a test can tell them
apart without the page naming them) and a re-score of the first with a second judge.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from proseval.view import create_app
from proseval.view.labelling import LabellingError, LabelOptions
from proseval.view.labelplan import PlanItem, RunSource, plan_items
from view.view_fixtures import HOSTILE, header, record

LOCAL = "http://127.0.0.1"
MODELS = {"alpha": "Lorem", "beta": "Ipsum", "gamma": "Dolor"}  # candidate -> the first word of its answers
JUDGE, SECOND_JUDGE = "scripted/zeta-judge", "scripted/omega-judge"
SAMPLES = 24


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def demo_record(n: int, word: str, judge_score: float, *, status: str = "ok") -> dict:
    extra = " " + HOSTILE if n == 3 else ""
    return record(
        n,
        id=f"demo/p{n:02d}",
        input=f"Prompt {n}: write about topic {n}.",
        metadata={"genre": "g"},
        status=status,
        state={
            "messages": [],
            "output": f"{word} answer {n}.{extra}",
            "finish_reason": "stop",
            "turns": [],
            "metadata": {},
        },
        scores={
            "quality": {"value": judge_score, "explanation": f"JUDGE-REASON-{n}", "parse_status": "ok", "metadata": {}}
        },
    )


def write_demo_run(folder: Path, model: str, judge: str, records: list[dict], rescored_from: str | None = None) -> Path:
    folder.mkdir(parents=True)
    head = header(folder.name, "demo")
    head["roles"] = {"candidate": {"spec": f"scripted/{model}-writer"}, "judge": {"spec": judge}}
    if rescored_from:
        head["rescored_from"] = rescored_from
    (folder / "header.json").write_text(json.dumps(head), encoding="utf-8")
    _jsonl(folder / "samples.jsonl", records)
    return folder


def labelling_runs(root: Path, samples: int = SAMPLES) -> Path:
    """Three demo runs (one per candidate) answering the same prompts, and a re-score of the first."""
    root.mkdir(parents=True, exist_ok=True)
    for k, (model, word) in enumerate(MODELS.items()):
        records = [demo_record(n, word, float(1 + (n * (k + 2)) % 10)) for n in range(samples)]
        if model == "gamma":  # a failed sample and its retry: the finished record counts
            records.insert(0, demo_record(0, word, 5.0, status="error"))
        write_demo_run(root / f"run-{model}-writer", model, JUDGE, records)
    rescored = [demo_record(n, MODELS["alpha"], float(1 + (n * 3) % 10)) for n in range(samples)]
    write_demo_run(
        root / "rescore-alpha-omega", "alpha", SECOND_JUDGE, rescored, rescored_from=str(root / "run-alpha-writer")
    )
    return root


def secrets_of_the_runs(root: Path) -> list[str]:
    """What a blind page must never contain: model specs, run ids and folder names, judge reasons."""
    names = [p.name for p in root.iterdir() if (p / "header.json").is_file()]
    return [
        *names,
        *(f"{m}-writer" for m in MODELS),
        *MODELS,
        JUDGE,
        SECOND_JUDGE,
        "zeta",
        "omega",
        "JUDGE-REASON",
        "scripted/",
    ]


def client(root: Path, session: str = "s1", rater: str | None = None, **options) -> TestClient:
    """A browser on a new viewer of the session; with `rater`, one that joined it under that name."""
    app_options = {k: options.pop(k) for k in ("host", "token") if k in options}
    web = TestClient(create_app(root, labelling=LabelOptions(session, **options), **app_options), base_url=LOCAL)
    return as_rater(web, rater) if rater else web


def as_rater(web: TestClient, rater: str) -> TestClient:
    """Another browser on the same viewer, joined under `rater` (a key of its own in its cookie)."""
    browser = TestClient(web.app, base_url=LOCAL)
    joined = browser.get("/label", params={"rater": rater})
    assert joined.status_code == 200 and f"Welcome, {rater}" in joined.text, joined.text
    return browser


def restarted(root: Path, browser: TestClient, session: str = "s1", **options) -> TestClient:
    """`browser` (its cookies: the rater it joined as) on a new viewer of the session."""
    return TestClient(client(root, session, **options).app, base_url=LOCAL, cookies=browser.cookies)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', html).group(1)


def plan_of(root: Path, session: str = "s1") -> dict:
    return json.loads((root / "labels" / f"{session}.plan.json").read_text(encoding="utf-8"))


def records_of(root: Path, session: str = "s1") -> list[dict]:
    """The lines of the labels file: one item record per save."""
    path = root / "labels" / f"{session}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def labels_of(root: Path, session: str = "s1") -> list[dict]:
    """The labels of the file, in the order they were saved."""
    return [label for record in records_of(root, session) for label in record["labels"]]


def kind_of(html: str) -> str:
    return re.search(r'id="label-form" data-kind="(\w+)"', html).group(1)


def answer_for(html: str) -> dict[str, str]:
    """A valid answer to every question of an item page: 7 for a score, A for a choice."""
    kinds = re.findall(r'data-question data-kind="(\w+)"', html)
    return {f"c{i}": ("7" if kind == "score" else "A") for i, kind in enumerate(kinds)}


def post(
    web: TestClient,
    position: int,
    rater: str,
    values: dict[str, str],
    *,
    csrf: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: str,
):
    if csrf is None:
        csrf = csrf_of(web.get(f"/label/{position}", params={"rater": rater}).text)
    data = {"rater": rater, "csrf": csrf, **values, **extra}
    return web.post(f"/label/{position}", data=data, headers=headers or {}, follow_redirects=False)


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return labelling_runs(tmp_path / "runs")


# the plan --------------------------------------------------------------------------------------
def test_the_plan_holds_each_answer_and_each_pair_once_and_leaves_re_scores_out(runs: Path):
    client(runs, seed=11)
    plan = plan_of(runs)
    assert plan["seed"] == 11 and plan["session"] == "s1" and plan["items_kind"] == "all"
    items = [PlanItem.from_json(item) for item in plan["items"]]
    assert sum(i.kind == "score" for i in items) == 3 * SAMPLES
    assert sum(i.kind == "pair" for i in items) == 3 * SAMPLES  # 3 pairs of runs per sample
    planned = sorted({run for item in items for run in item.runs})
    assert planned == ["run-alpha-writer", "run-beta-writer", "run-gamma-writer"]
    assert len(plan["runs"]) == 4  # the re-score was seen, and is not counted as a run added later
    assert len({(i.kind, i.sample_id, i.runs) for i in items}) == len(items)
    assert [i.sort_key() for i in items] != sorted(i.sort_key() for i in items)  # shuffled


def test_the_plan_is_the_same_for_the_same_seed_and_kept_across_restarts(runs: Path, tmp_path: Path):
    client(runs, seed=5)
    first = plan_of(runs)["items"]
    client(runs)  # a restart without --seed continues the session
    assert plan_of(runs)["items"] == first
    with pytest.raises(LabellingError, match="planned with seed 5"):
        client(runs, seed=6)
    (runs / "labels" / "s1.plan.json").unlink()
    client(runs, seed=5)  # planned afresh from the same runs and seed: the same order and sides
    assert plan_of(runs)["items"] == first
    client(runs, session="other", seed=6)
    assert plan_of(runs, "other")["items"] != first


def test_a_shuffled_session_gives_each_rater_an_order_of_their_own_kept_across_restarts(runs: Path):
    web = client(runs, seed=7, items="scores", order="shuffled")
    assert plan_of(runs)["order"] == "shuffled" and plan_of(runs, "s1")["seed"] == 7
    plan = web.app.state.labelling.plan
    ann, bo = plan.order_of("Ann"), plan.order_of("Bo")
    assert sorted(ann) == sorted(bo) == list(range(1, len(plan.items) + 1)) and ann != bo and ann != sorted(ann)
    assert client(runs).app.state.labelling.plan.order_of("Ann") == ann  # the same after a restart
    browser = as_rater(web, "Ann")
    assert browser.get("/label", follow_redirects=False).headers["location"] == f"/label/{ann[0]}"
    assert post(browser, ann[0], "Ann", {"c0": "4"}).headers["location"] == f"/label/{ann[1]}"
    assert f'href="/label/{ann[0]}" data-prev' in browser.get(f"/label/{ann[1]}").text
    with pytest.raises(LabellingError, match="planned with order 'shuffled'"):
        client(runs, order="plan")
    client(runs, session="fixed", seed=7)
    assert plan_of(runs, "fixed")["order"] == "plan"


def test_plan_items_draws_sides_of_pairs_evenly():
    sources = [RunSource(run, "t", [(f"s{n}", 0) for n in range(200)]) for run in ("r1", "r2")]
    items = plan_items(sources, seed=3, kinds="pairs")
    assert len(items) == 200 and {i.kind for i in items} == {"pair"}
    flipped = sum(i.flipped for i in items)
    assert 70 < flipped < 130
    assert plan_items(sources, seed=3, kinds="pairs") == items
    assert {i.kind for i in plan_items(sources, seed=3, kinds="scores")} == {"score"}


def test_a_session_name_or_rater_that_is_not_safe_is_refused(runs: Path):
    for bad in ("../up", ".hidden", "a b", "x" * 65, ""):
        with pytest.raises(LabellingError, match="session name"):
            LabelOptions(bad)
    with pytest.raises(LabellingError, match="rater name"):
        LabelOptions("ok", raters=("tab\there",))
    with pytest.raises(LabellingError, match="JSON Lines"):
        LabelOptions("ok", labels_file=Path("labels.csv"))


def test_nothing_to_label_is_refused(tmp_path: Path):
    empty = tmp_path / "runs"
    write_demo_run(empty / "only-failed", "alpha", JUDGE, [demo_record(1, "x", 1.0, status="error")])
    with pytest.raises(LabellingError, match="nothing to label"):
        client(empty)


# blind pages -----------------------------------------------------------------------------------
def test_item_pages_name_no_model_run_or_judge_and_escape_the_answers(runs: Path):
    web = client(runs, seed=1, rater="Ann")
    hidden = secrets_of_the_runs(runs)
    plan = plan_of(runs)["items"]
    for position in range(1, len(plan) + 1, 3):
        page = web.get(f"/label/{position}", params={"rater": "Ann"})
        assert page.status_code == 200, page.text
        leaked = [secret for secret in hidden if secret.lower() in page.text.lower()]
        assert leaked == [], f"item {position} shows {leaked}"
        assert "<script>alert" not in page.text  # answers are text, never markup
        assert kind_of(page.text) == plan[position - 1]["kind"]
    stranger = TestClient(web.app, base_url=LOCAL)  # not joined: the start page
    start = stranger.get("/label")
    assert start.status_code == 200 and not [s for s in hidden if s.lower() in start.text.lower()]
    assert "came after the plan" not in start.text
    write_demo_run(runs / "late-run", "delta", JUDGE, [demo_record(1, "Late", 3.0)])
    assert "1 run folder(s) came after the plan" in stranger.get("/label").text


def test_pairs_show_the_two_answers_on_the_sides_the_plan_drew(runs: Path):
    web = client(runs, seed=2, items="pairs", rater="Ann")
    plan = plan_of(runs)["items"]
    assert {item["kind"] for item in plan} == {"pair"}
    first_run_on_a = 0
    for position, item in enumerate(plan, start=1):
        page = web.get(f"/label/{position}", params={"rater": "Ann"}).text
        shown = re.findall(r'<h3>Answer ([AB])</h3><pre class="output">(\w+) answer', page)
        words = {run: MODELS[run.split("-")[1]] for run in item["runs"]}
        a_run = item["runs"][1] if item["flipped"] else item["runs"][0]
        b_run = item["runs"][0] if item["flipped"] else item["runs"][1]
        assert shown == [("A", words[a_run]), ("B", words[b_run])]
        first_run_on_a += a_run == item["runs"][0]
    assert 0.3 < first_run_on_a / len(plan) < 0.7  # both orders, roughly balanced


# saving and continuing -------------------------------------------------------------------------
def test_labels_are_appended_and_a_rater_continues_at_the_first_item_not_labelled(runs: Path):
    web = client(runs, seed=4, rater="Ann")
    plan = [PlanItem.from_json(item) for item in plan_of(runs)["items"]]
    start = web.get("/label", follow_redirects=False)
    assert start.status_code == 303 and start.headers["location"] == "/label/1"
    for position in range(1, 6):
        page = web.get(f"/label/{position}", params={"rater": "Ann"}).text
        assert f"{position - 1} / {len(plan)} labelled by Ann" in page
        saved = post(web, position, "Ann", answer_for(page), comment="fine" if position == 2 else "")
        assert saved.status_code == 303, saved.text
        assert saved.headers["location"] == f"/label/{position + 1}"
    again = web.get("/label", follow_redirects=False)
    assert again.headers["location"] == "/label/6"
    labels = labels_of(runs)
    assert len(labels) == 5
    for label, item in zip(labels, plan[:5]):
        assert label["sample_id"] == item.sample_id and label["rater"] == "Ann" and label["session"] == "s1"
        assert label["criterion"] == "quality"
        if item.kind == "score":
            assert label["run"] == item.runs[0] and label["score"] == 7
        else:
            assert (label["a"], label["b"]) == item.sides and label["preference"] == "A"
    assert labels[1]["comment"] == "fine" and "comment" not in labels[0]
    # another rater starts at the beginning; the first sees their answer checked when they go back
    assert as_rater(web, "Bo").get("/label", follow_redirects=False).headers["location"] == "/label/1"
    back = web.get("/label/1", params={"rater": "Ann"}).text
    assert 'id="labelled"' in back and re.search(r'value="(7|A)" checked', back)
    assert "5 / " in web.get("/label/6", params={"rater": "Ann"}).text


def test_a_rater_who_labelled_everything_is_told_so(tmp_path: Path):
    root = tmp_path / "runs"
    write_demo_run(root / "solo", "alpha", JUDGE, [demo_record(n, "Lorem", 5.0) for n in range(2)])
    web = client(root, seed=1, rater="Cy")
    for position in (1, 2):
        assert post(web, position, "Cy", {"c0": "3"}).status_code == 303
    done = web.get("/label")
    assert done.status_code == 200 and "2 / 2 labelled by Cy" in done.text and "All done" in done.text


# validation ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"c0": "11"}, "11 is off the scale 1 to 10"),
        ({"c0": "0"}, "0 is off the scale 1 to 10"),
        ({"c0": "7.5"}, "a whole number from 1 to 10"),
        ({"c0": "seven"}, "a whole number from 1 to 10"),
        ({"c0": "\uff17"}, "a whole number from 1 to 10"),  # full-width 7: int() would read it as 7
        ({"c0": "\u0667"}, "a whole number from 1 to 10"),  # Arabic-Indic 7
        ({}, "no answer given"),
    ],
)
def test_a_score_off_the_scale_or_missing_is_refused_on_the_page(runs: Path, values, message):
    web = client(runs, seed=1, items="scores", rater="Ann")
    refused = post(web, 1, "Ann", values, comment="kept")
    assert refused.status_code == 422
    assert message in refused.text and 'id="errors"' in refused.text and ">kept</textarea>" in refused.text
    assert labels_of(runs) == []


def test_a_choice_that_is_not_a_b_or_tie_is_refused(runs: Path):
    web = client(runs, seed=1, items="pairs", rater="Ann")
    refused = post(web, 1, "Ann", {"c0": "C"})
    assert refused.status_code == 422 and "answer A, B or tie" in refused.text
    assert post(web, 1, "Ann", {"c0": "tie"}).status_code == 303
    assert labels_of(runs)[0]["preference"] == "tie"


def test_a_bad_rater_position_or_comment_is_refused(runs: Path):
    web = client(runs, seed=1, items="scores")
    assert web.get("/label", params={"rater": "  "}).status_code == 422
    assert "rater name" in web.get("/label", params={"rater": "x" * 101}).text
    web = as_rater(web, "Ann")
    for rater in ("", "line\nbreak", "x" * 101):  # not the name of the rater whose key the browser holds
        response = post(web, 1, rater, {"c0": "5"}, csrf=web.app.state.labelling.csrf(rater))
        assert response.status_code == 403 and "their own labels only" in response.text
    assert web.get("/label/999", params={"rater": "Ann"}).status_code == 404
    assert post(web, 999, "Ann", {"c0": "5"}, csrf=web.app.state.labelling.csrf("Ann")).status_code == 404
    assert web.get("/label/0", params={"rater": "Ann"}).status_code == 404
    assert post(web, 1, "Ann", {"c0": "5"}, comment="x" * 5001).status_code == 422
    assert labels_of(runs) == []


# writing is guarded ----------------------------------------------------------------------------
def test_a_form_without_its_check_value_or_from_another_origin_is_refused(runs: Path):
    web = client(runs, seed=1, items="scores", rater="Ann")
    good = csrf_of(web.get("/label/1", params={"rater": "Ann"}).text)
    cases = [
        ({"csrf": ""}, {}, "check value"),
        ({"csrf": web.app.state.labelling.csrf("Bo")}, {}, "check value"),  # another rater's form
        ({"csrf": good}, {"Origin": "http://evil.example"}, "another origin"),
        ({"csrf": good}, {"Origin": "null"}, "another origin"),
        ({"csrf": good}, {"Sec-Fetch-Site": "cross-site"}, "another site"),
        ({"csrf": good}, {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1"}, "another site"),
    ]
    for form, headers, message in cases:
        refused = web.post(
            "/label/1", data={"rater": "Ann", "c0": "5", **form}, headers=headers, follow_redirects=False
        )
        assert refused.status_code == 403, (form, headers)
        assert message in refused.text and "Refused" in refused.text
    assert labels_of(runs) == []
    ok = web.post(
        "/label/1",
        data={"rater": "Ann", "c0": "5", "csrf": good},
        headers={"Origin": "http://127.0.0.1", "Sec-Fetch-Site": "same-origin"},
        follow_redirects=False,
    )
    assert ok.status_code == 303 and len(labels_of(runs)) == 1
    assert web.post("/label/1", content=b'{"c0": 5}', headers={"Content-Type": "application/json"}).status_code == 415


def test_the_check_value_is_new_after_a_restart(runs: Path):
    first = client(runs, seed=1, rater="Ann")
    old = csrf_of(first.get("/label/1").text)
    refused = post(restarted(runs, first), 1, "Ann", {"c0": "5"}, csrf=old)
    assert refused.status_code == 403 and "Reload the page" in refused.text


def test_a_viewer_on_another_host_needs_its_token_to_label(runs: Path):
    web = client(runs, seed=1, items="scores", host="0.0.0.0", token="secret-token-1")
    assert web.get("/label", params={"rater": "Ann"}).status_code == 401
    assert web.post("/label/1", data={"rater": "Ann", "c0": "5", "csrf": "x"}).status_code == 401
    joined = web.get("/label", params={"rater": "Ann", "token": "secret-token-1"})
    assert joined.status_code == 200 and "token=secret-token-1" in joined.text  # the rater's link carries it
    entered = web.get("/label/1")
    assert entered.status_code == 200 and "labelled by Ann" in entered.text
    assert post(web, 1, "Ann", {"c0": "5"}, csrf=csrf_of(entered.text)).status_code == 303
    assert len(labels_of(runs)) == 1


# forms of the benchmarks -----------------------------------------------------------------------
def rd_pair_record(n: int) -> dict:
    return record(
        n,
        id=f"pair{n}",
        input="Write a note.",
        scores={},
        state={"messages": [], "output": f"CHOSEN text {n}", "finish_reason": "stop", "turns": [], "metadata": {}},
        target={
            "draft": f"CHOSEN text {n}",
            "rejected": f"REJECTED text {n}",
            "reference": None,
            "instruction": f"Instruction {n}.",
        },
    )


def test_a_revision_distance_pair_is_two_texts_on_drawn_sides_scored_for_the_chosen_one(tmp_path: Path):
    root = tmp_path / "runs"
    for name in ("rd-one", "rd-two"):
        folder = root / name
        folder.mkdir(parents=True)
        head = header(name, "revision-distance")
        head["roles"] = {"reviser": {"spec": "scripted/reviser-x"}}
        (folder / "header.json").write_text(json.dumps(head), encoding="utf-8")
        _jsonl(folder / "samples.jsonl", [rd_pair_record(n) for n in range(12)])
    web = client(root, seed=9, rater="Ann")
    plan = [PlanItem.from_json(item) for item in plan_of(root)["items"]]
    assert {i.kind for i in plan} == {"compare"} and len(plan) == 24  # never paired across the runs
    flipped = None
    for position, item in enumerate(plan, start=1):
        page = web.get(f"/label/{position}", params={"rater": "Ann"}).text
        assert "Which text needs fewer edits?" in page and "chosen vs" not in page  # the criterion is not named
        shown = re.findall(r'<h3>Text ([AB])</h3><pre class="output">(CHOSEN|REJECTED)', page)
        assert shown == ([("A", "REJECTED"), ("B", "CHOSEN")] if item.flipped else [("A", "CHOSEN"), ("B", "REJECTED")])
        if position <= 3:
            choice = {1: "A", 2: "B", 3: "tie"}[position]
            assert post(web, position, "Ann", {"c0": choice}).status_code == 303
        flipped = item.flipped if position == 1 else flipped
    labels = labels_of(root)
    assert [label["criterion"] for label in labels] == ["chosen vs rejected"] * 3
    expected = []
    for position, choice in ((1, "A"), (2, "B"), (3, "tie")):
        item = plan[position - 1]
        chosen_side = "B" if item.flipped else "A"
        expected.append(0 if choice == "tie" else (1 if choice == chosen_side else -1))
    assert [label["score"] for label in labels] == expected
    assert [label["run"] for label in labels] == [plan[p].runs[0] for p in range(3)]
    assert all("preference" not in label for label in labels)


def test_writingbench_c3ebench_and_revision_distance_forms():
    from proseval.registry import tasks

    bands = {"1-2": "bad", "3-4": "weak", "5-6": "fair", "7-8": "good", "9-10": "great"}
    checklist = [{"name": f"Criterion {k}", "criteria_description": f"about {k}", **bands} for k in range(5)]
    form = tasks()["writingbench"].labelling({"input": "Write a memo.", "target": {"checklist": checklist}})
    assert [c.name for c in form.criteria] == [f"Criterion {k}" for k in range(5)]
    assert form.question == "Write a memo." and "9-10: great" in form.criteria[0].description
    assert (form.criteria[0].low, form.criteria[0].high) == (1, 10)
    judged = {"scores": {"writingbench": {"value": 5, "metadata": {"criteria": {"Only": {"score": 5}}}}}}
    assert [c.name for c in tasks()["writingbench"].labelling({"input": "q", **judged}).criteria] == ["Only"]

    item = {
        "input": "Fill the gap.",
        "target": {
            "task": "cloze",
            "language": "en",
            "instruction": "Fill the gap.",
            "input": {"context": "Before [GAP] after."},
            "reference": "REF",
        },
    }
    form = tasks()["c3ebench"].labelling(item)
    assert [(c.name, c.low, c.high) for c in form.criteria] == [("c3e", 1, 10)]
    assert form.reference == "REF" and "[Context]\nBefore [GAP] after." in form.question
    assert "worth exactly 6" in form.criteria[0].description and "Cohesion" in form.criteria[0].description

    pair = tasks()["revision-distance"].labelling(rd_pair_record(1))
    assert pair.texts == ("CHOSEN text 1", "REJECTED text 1") and pair.criteria[0].name == "chosen vs rejected"
    assert (pair.criteria[0].low, pair.criteria[0].high) == (-1, 1)
    drafts = tasks()["revision-distance"].labelling({"target": {"draft": "d", "instruction": "i"}})
    assert drafts.texts is None and drafts.pairwise == ""
    demo = tasks()["demo"].labelling({"input": "Write."})
    assert [(c.name, c.low, c.high) for c in demo.criteria] == [("quality", 1, 10)]


def test_a_task_without_a_hook_gets_a_default_form(tmp_path: Path):
    root = tmp_path / "runs"
    folder = root / "synthetic-run"
    folder.mkdir(parents=True)
    (folder / "header.json").write_text(json.dumps(header("synthetic-run")), encoding="utf-8")
    _jsonl(folder / "samples.jsonl", [record(n) for n in range(3)])
    web = client(root, seed=1, rater="Ann")
    page = web.get("/label/1", params={"rater": "Ann"}).text
    assert "<legend>How good is the answer as a whole (1-10)?</legend>" in page and "Prompt " in page
    assert post(web, 1, "Ann", {"c0": "10"}).status_code == 303
    assert labels_of(root)[0]["criterion"] == "overall"


# the agreement page and the raters' viewer -------------------------------------------------------
def test_the_agreement_page_shows_the_judges_against_the_labels_so_far(runs: Path):
    web = client(runs, seed=1, items="scores")
    before = web.get("/label/agreement")
    assert before.status_code == 200 and "No labels yet" in before.text and "Evaluator cards" in before.text
    plan = [PlanItem.from_json(item) for item in plan_of(runs)["items"]]
    ann, bo = as_rater(web, "Ann"), as_rater(web, "Bo")
    for position in range(1, 13):
        score = str(1 + (position * 7) % 10)
        assert post(ann, position, "Ann", {"c0": score}).status_code == 303
        assert post(bo, position, "Bo", {"c0": score}).status_code == 303
    page = web.get("/label/agreement").text
    assert JUDGE in page and SECOND_JUDGE in page
    assert "24 label(s) from 2 rater(s); 24 matched" in page
    assert "against each human rater" in page and "Agreement among the 2 human raters, as context" in page
    cards = page.split('id="t-cards"', 1)[1].split("</table>", 1)[0]
    assert re.search(r"ρ (-?\d\.\d\d( \[[^\]]*\])?|—) \(n \d+\)", cards), cards
    assert web.get("/label/agreement", params={"refresh": "0"}).text.count('http-equiv="refresh"') == 0
    assert 'http-equiv="refresh" content="15"' in page
    assert all(item.kind == "score" for item in plan)


def test_a_raters_viewer_serves_only_the_labelling_pages(runs: Path):
    web = client(runs, seed=1, only=True)
    assert web.get("/", follow_redirects=False).headers["location"] == "/label"
    assert web.get("/runs/run-alpha-writer").status_code == 404
    assert web.get("/label/agreement").status_code == 404
    assert as_rater(web, "Ann").get("/label/1").status_code == 200
    assert web.get("/static/label.js").status_code == 200
    full = client(runs)
    assert full.get("/").status_code == 200 and full.get("/label/agreement").status_code == 200


def test_the_cli_checks_the_labelling_options_and_prints_the_labelling_address(runs: Path, monkeypatch):
    import uvicorn
    from typer.testing import CliRunner

    from proseval.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    result = CliRunner().invoke(
        app, ["view", str(runs), "--label", "pilot", "--rater", "Ann Lee", "--rater", "Bo", "--seed", "3"]
    )
    assert result.exit_code == 0, result.output
    assert "at http://127.0.0.1:8765/label\n" in result.output
    keys = dict(re.findall(r"  (Ann Lee|Bo): http://127\.0\.0\.1:8765/label\?key=([\w-]+)\n", result.output))
    assert len(keys) == 2 and keys["Ann Lee"] != keys["Bo"]
    kept = (runs / "labels" / "pilot.raters.json").read_text(encoding="utf-8")
    assert "Ann Lee" in kept and not any(key in kept for key in keys.values())  # hashes only
    again = CliRunner().invoke(app, ["view", str(runs), "--label", "pilot", "--rater", "Bo", "--rater", "Cy"])
    assert "Bo: has the link an earlier start printed" in again.output and "  Cy: http" in again.output
    assert keys["Bo"] not in again.output
    assert plan_of(runs, "pilot")["seed"] == 3
    token = CliRunner().invoke(
        app, ["view", str(runs), "--label", "pilot", "--host", "0.0.0.0", "--token", "secret-token-2"]
    )
    query = parse_qs(urlsplit(token.output.split(" at ", 1)[1].split()[0]).query)
    assert query == {"token": ["secret-token-2"]}
    for args, message in (
        (["--rater", "Ann"], "go with --label"),
        (["--label", "../x"], "session name"),
        (["--label", "pilot", "--seed", "4"], "planned with seed 3"),
        (["--label", "p2", "--labels", "x.csv"], "JSON Lines"),
        (["--label", "p3", "--rater", "Ann", "--rater", "ANN"], "'Ann' and 'ANN' look alike"),
    ):
        failed = CliRunner().invoke(app, ["view", str(runs), *args])
        assert failed.exit_code != 0 and message in failed.output, failed.output
    assert not (runs / "labels" / "p3.plan.json").exists()  # refused before the session is opened


def test_a_new_benchmark_brings_its_form_through_its_hook_alone(tmp_path: Path):
    from proseval import kit, registry

    def form(record: dict) -> kit.views.LabelForm:
        return kit.views.LabelForm(
            question=f"Asked: {record['input']}",
            criteria=[
                kit.views.LabelCriterion("tone", "Is the tone right?", 0, 4),
                kit.views.LabelCriterion("facts", "", 1, 3),
            ],
        )

    registry.task("unit-labelled", summary="a task with a labelling form", labelling=form)(lambda params: None)
    try:
        root = tmp_path / "runs"
        folder = root / "plugin-run"
        folder.mkdir(parents=True)
        (folder / "header.json").write_text(json.dumps(header("plugin-run", "unit-labelled")), encoding="utf-8")
        _jsonl(folder / "samples.jsonl", [record(n) for n in range(2)])
        web = client(root, seed=1, rater="Ann")
        page = web.get("/label/1", params={"rater": "Ann"}).text
        assert "Asked: Prompt" in page and "<legend>tone</legend>" in page and "<legend>facts</legend>" in page
        assert page.count('name="c0" value=') == 5 and page.count('name="c1" value=') == 3
        refused = post(web, 1, "Ann", {"c0": "4", "c1": "4"})
        assert refused.status_code == 422 and "facts: 4 is off the scale 1 to 3" in refused.text
        assert post(web, 1, "Ann", {"c0": "0", "c1": "3"}).status_code == 303
        assert [(x["criterion"], x["score"]) for x in labels_of(root)] == [("tone", 0), ("facts", 3)]
    finally:
        registry._TASKS.pop("unit-labelled")

"""The labelling mode in headless Chromium (Debian's build, driven by Playwright) against a real
uvicorn server: labelling by keyboard and continuing, blind pairs, a cross-origin form refused, two
raters at once. Screenshots go to a temporary folder (and to $PROSEVAL_VIEW_SHOTS when set).
"""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import httpx
import pytest

from proseval.reliability.labels import Label
from proseval.view import create_app
from proseval.view.labelling import LabelOptions
from view.chromium import ARGS, CHROMIUM, serving_app
from view.test_labelling import MODELS, labelling_runs, plan_of, rd_pair_record, secrets_of_the_runs

pytestmark = pytest.mark.slow


def serving(root: Path, options: LabelOptions) -> AbstractContextManager[str]:
    """The viewer in labelling mode, served (`serving_app`)."""
    return serving_app(create_app(root, labelling=options))


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} not found (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield launched
        launched.close()


@contextmanager
def tab(browser, *, errors_allowed: bool = False) -> Iterator[object]:
    """A page in a context of its own (its own cookies), failing on a console error (a blocked script
    or style) or a dialog (a script from a run's text)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    dialogs: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        yield page
    finally:
        context.close()
    assert dialogs == [], "a script from a run's text ran"
    assert errors_allowed or errors == [], f"console errors: {errors}"


def labels_in(path: Path) -> list[dict]:
    """The labels of the file's item records, each line required to be whole JSON and each label valid."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    labels = [label for line in lines for label in json.loads(line)["labels"]]
    for label in labels:
        Label.model_validate(label)
    return labels


def position_of(page) -> int:
    return int(re.search(r"/label/(\d+)$", page.url).group(1))


def join(page, url: str, rater: str) -> None:
    """Join the session on its start page under `rater`, then open the first item."""
    page.goto(f"{url}/label")
    page.fill("input[name=rater]", rater)
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert rater in page.locator("h1").inner_text() and "key=" in page.locator("#rater-link").input_value()
    with page.expect_navigation():
        page.click("#start-labelling")


def label_by_keyboard(page, key_for_score: str, key_for_choice: str) -> tuple[str, str]:
    """Answer the item on the page with one key and save it with Enter; returns (kind, key pressed)."""
    kind = page.locator("#label-form").get_attribute("data-kind")
    key = key_for_score if kind == "score" else key_for_choice
    page.keyboard.press(key)
    return kind, key


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return labelling_runs(tmp_path / "runs")


def test_a_rater_labels_five_items_by_keyboard_reloads_and_continues_at_the_sixth(browser, runs, shots):
    options = LabelOptions("keys", seed=21)
    with serving(runs, options) as url, tab(browser) as page:
        join(page, url, "Kim")
        assert position_of(page) == 1
        total = len(plan_of(runs, "keys")["items"])
        pressed = []
        shot = {"score": "label-score.png", "pair": "label-pair.png"}
        for n in range(1, 6):
            assert page.locator("#progress").inner_text() == f"{n - 1} / {total} labelled by Kim"
            kind, key = label_by_keyboard(page, str(n + 2), "b" if n % 2 else "a")
            assert page.locator("fieldset.q input:checked").count() == 1
            if kind in shot:
                page.screenshot(path=str(shots / shot.pop(kind)), full_page=True)
            pressed.append((kind, key))
            with page.expect_navigation():
                page.keyboard.press("Enter")
            assert position_of(page) == n + 1
        page.reload()
        assert position_of(page) == 6 and page.locator("#progress").inner_text() == f"5 / {total} labelled by Kim"
        page.goto(f"{url}/label")  # continuing later: the first item not labelled
        assert position_of(page) == 6
        page.keyboard.press("p")  # back to the fifth: labelled, the key pressed shown checked
        page.wait_for_url(re.compile(r"/label/5$"))
        assert page.locator("#labelled").is_visible()
        if shot:  # the first five items were all of one kind: find the other for its screenshot
            for position in range(6, total + 1):
                page.goto(f"{url}/label/{position}")
                kind = page.locator("#label-form").get_attribute("data-kind")
                if kind in shot:
                    label_by_keyboard(page, "8", "a")
                    page.screenshot(path=str(shots / shot.pop(kind)), full_page=True)
                if not shot:
                    break

    labels = labels_in(runs / "labels" / "keys.jsonl")
    plan = plan_of(runs, "keys")["items"]
    assert len(labels) == 5
    for label, item, (kind, key) in zip(labels, plan[:5], pressed):
        assert label["sample_id"] == item["id"] and label["rater"] == "Kim" and label["session"] == "keys"
        assert item["kind"] == kind
        if kind == "score":
            assert label["run"] == item["runs"][0] and label["score"] == int(key)
        else:
            shown = (item["runs"][1], item["runs"][0]) if item["flipped"] else tuple(item["runs"])
            assert (label["a"], label["b"]) == shown and label["preference"] == key.upper()


def test_pairs_hide_the_models_and_draw_the_sides(browser, runs):
    """In the drawn page too (every page's HTML and sides: test_labelling.py): three pairs of each order."""
    hidden = [s.lower() for s in secrets_of_the_runs(runs)]
    with serving(runs, LabelOptions("pairs", seed=8, items="pairs")) as url, tab(browser) as page:
        plan = plan_of(runs, "pairs")["items"]
        flipped = [position for position, item in enumerate(plan, start=1) if item["flipped"]]
        kept = [position for position, item in enumerate(plan, start=1) if not item["flipped"]]
        assert len(flipped) >= 3 and len(kept) >= 3
        join(page, url, "Kim")
        for position in sorted(flipped[:3] + kept[:3]):
            item = plan[position - 1]
            page.goto(f"{url}/label/{position}")
            html = page.content().lower()
            assert [s for s in hidden if s in html] == [], f"item {position} names a model or run"
            a_word = page.locator("#answer-1 pre").inner_text().split()[0]
            b_word = page.locator("#answer-2 pre").inner_text().split()[0]
            words = {run: MODELS[run.split("-")[1]] for run in item["runs"]}
            a_run, b_run = reversed(item["runs"]) if item["flipped"] else item["runs"]
            assert (a_word, b_word) == (words[a_run], words[b_run]), position


def test_a_form_sent_from_another_origin_is_refused(browser, runs):
    options = LabelOptions("guard", seed=3, items="scores")
    with serving(runs, options) as url:
        with httpx.Client(base_url=url) as eve:
            assert eve.get("/label", params={"rater": "Eve"}).status_code == 200
            form_page = eve.get("/label/1").text
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', form_page).group(1)
        # the attacker knows even the form's check value: the browser's Origin and Sec-Fetch-Site still give it away
        attack = (
            f'<!doctype html><form method="post" action="{url}/label/1">'
            f'<input name="rater" value="Eve"><input name="csrf" value="{csrf}"><input name="c0" value="9">'
            '<button id="go">win a prize</button></form>'
        ).encode()

        class Attacker(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the handler's name
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(attack)

            def log_message(self, *args):
                pass

        other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
        threading.Thread(target=other.serve_forever, daemon=True).start()
        try:
            with tab(browser, errors_allowed=True) as page:
                page.goto(f"http://localhost:{other.server_address[1]}/")
                with page.expect_navigation():
                    page.click("#go")
                assert "Refused" in page.locator("#problem").inner_text()
                assert page.url.startswith(f"{url}/label/1")
        finally:
            other.shutdown()
    assert labels_in(runs / "labels" / "guard.jsonl") == []


def test_two_raters_at_once_leave_a_whole_file(browser, runs, shots):
    options = LabelOptions("crowd", seed=5)
    per_thread = 20

    def post_many(url: str, rater: str, failures: list[str]) -> None:
        with httpx.Client(base_url=url) as web:
            web.get("/label", params={"rater": rater})  # joined: the rater's key in a cookie
            for position in range(1, per_thread + 1):
                page = web.get(f"/label/{position}", params={"rater": rater}).text
                csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
                kinds = re.findall(r'data-question data-kind="(\w+)"', page)
                values = {f"c{i}": ("6" if kind == "score" else "tie") for i, kind in enumerate(kinds)}
                saved = web.post(
                    f"/label/{position}",
                    data={"rater": rater, "csrf": csrf, **values},
                    headers={"Origin": url, "Sec-Fetch-Site": "same-origin"},
                )
                if saved.status_code != 303:
                    failures.append(f"{rater} {position}: {saved.status_code}")

    with serving(runs, options) as url, tab(browser) as first, tab(browser) as second:
        failures: list[str] = []
        threads = [threading.Thread(target=post_many, args=(url, name, failures)) for name in ("T1", "T2")]
        join(first, url, "Ann")
        join(second, url, "Bo")
        for thread in threads:
            thread.start()
        for _ in range(6):  # the two browsers take turns while the threads post
            for page, keys in ((first, ("4", "a")), (second, ("9", "b"))):
                label_by_keyboard(page, *keys)
                with page.expect_navigation():
                    page.keyboard.press("Enter")
        for thread in threads:
            thread.join(120)
        assert failures == []
        assert first.locator("#progress").inner_text().startswith("6 / ")
        first.goto(f"{url}/label/agreement?refresh=0")
        assert "Evaluator cards" in first.locator("h2#cards").inner_text()
        assert "scripted/zeta-judge" in first.locator("#t-cards").inner_text()
        first.screenshot(path=str(shots / "label-agreement.png"), full_page=True)

    labels = labels_in(runs / "labels" / "crowd.jsonl")  # every line whole JSON and a valid label
    counts = {rater: sum(label["rater"] == rater for label in labels) for rater in ("Ann", "Bo", "T1", "T2")}
    assert counts == {"Ann": 6, "Bo": 6, "T1": per_thread, "T2": per_thread}
    assert len(labels) == 12 + 2 * per_thread


def test_a_revision_distance_pair_is_chosen_by_keyboard(browser, tmp_path, shots):
    root = tmp_path / "runs"
    folder = root / "rd-pairs"
    folder.mkdir(parents=True)
    from view.view_fixtures import header

    head = header("rd-pairs", "revision-distance")
    head["roles"] = {"reviser": {"spec": "scripted/reviser-x"}}
    (folder / "header.json").write_text(json.dumps(head), encoding="utf-8")
    (folder / "samples.jsonl").write_text(
        "".join(json.dumps(rd_pair_record(n)) + "\n" for n in range(4)), encoding="utf-8"
    )
    with serving(root, LabelOptions("rd", seed=2)) as url, tab(browser) as page:
        join(page, url, "Kim")
        assert page.locator("#label-form").get_attribute("data-kind") == "compare"
        assert "Which text needs fewer edits?" in page.locator("fieldset.q legend").inner_text()
        a_text = page.locator("#answer-1 pre").inner_text()
        page.keyboard.press("a")
        page.screenshot(path=str(shots / "label-compare.png"), full_page=True)
        with page.expect_navigation():
            page.keyboard.press("Enter")
    [label] = labels_in(root / "labels" / "rd.jsonl")
    assert label["criterion"] == "chosen vs rejected" and label["score"] == (1 if a_text.startswith("CHOSEN") else -1)


def test_yes_no_forms_of_meeseeks_and_longweave_are_answered_with_y_and_n(browser, tmp_path, shots):
    """The Meeseeks item and LongWeave's SR item (both fields of each question) answered by keyboard."""
    from concurrent.futures import ThreadPoolExecutor

    from view.judged_fixtures import MEESEEKS_JUDGED, judged_runs

    with ThreadPoolExecutor(1) as pool:  # the runs' event loop, away from Playwright's in this thread
        root = pool.submit(judged_runs, tmp_path / "runs").result()
    shown = {"meeseeks/": "label-meeseeks.png", "longweave/sr@": "label-longweave.png"}
    pressed: dict[str, list[str]] = {}
    with serving(root, LabelOptions("yn", seed=4)) as url, tab(browser) as page:
        join(page, url, "Kim")
        for position, item in enumerate(plan_of(root, "yn")["items"], start=1):
            shot = next((name for prefix, name in shown.items() if item["id"].startswith(prefix)), None)
            if shot is None:
                continue
            page.goto(f"{url}/label/{position}")
            count = page.locator("fieldset.q").count()
            keys = ["y" if k % 3 else "n" for k in range(count)]
            for key in keys:  # each answer moves on to the next question
                page.keyboard.press(key)
            checked = page.locator("fieldset.q input:checked + span").all_inner_texts()
            assert [text.split()[0] for text in checked] == ["Yes" if key == "y" else "No" for key in keys]
            page.screenshot(path=str(shots / shot))
            with page.expect_navigation():
                page.keyboard.press("Enter")
            pressed[item["id"]] = keys
    assert len(pressed) == 2
    saved: dict[str, list[tuple[str, int]]] = {}
    for label in labels_in(root / "labels" / "yn.jsonl"):
        saved.setdefault(label["sample_id"], []).append((label["criterion"], label["score"]))
    assert saved.keys() == pressed.keys()
    for sample, keys in pressed.items():
        assert [score for _, score in saved[sample]] == [1 if key == "y" else 0 for key in keys]
        if sample.startswith("meeseeks/"):
            assert [name for name, _ in saved[sample]] == MEESEEKS_JUDGED
        else:
            assert [name for name, _ in saved[sample]][:2] == ["question 1: answered", "question 1: correct"]


# what of a criterion's question is cut off: its description taller than its box, or any box in
# it (a scroll box, a clipped one) taller than it shows, as "fieldset-id tag.class"
CLIPPED = """() => [...document.querySelectorAll('fieldset.q')].flatMap(q => [q, ...q.querySelectorAll('*')])
    .filter(e => (e.matches('pre.criterion') || getComputedStyle(e).overflowY !== 'visible')
                 && e.scrollHeight > e.clientHeight + 1)
    .map(e => `${e.closest('fieldset.q').id} ${e.localName}.${e.className}`)"""


def test_each_criterion_shows_its_whole_scale(browser, tmp_path, shots):
    from view.test_labelling import _jsonl
    from view.view_fixtures import header, record

    # bands as long as WritingBench's own (a sentence or two each)
    bands = {
        band: f"Band {band}: " + "the response meets this criterion to this degree, for these reasons. " * 3
        for band in ("1-2", "3-4", "5-6", "7-8", "9-10")
    }
    checklist = [
        {"name": f"Criterion {k}", "criteria_description": "What this criterion asks for. " * 4, **bands}
        for k in range(5)
    ]
    folder = tmp_path / "runs" / "wb-run"
    folder.mkdir(parents=True)
    (folder / "header.json").write_text(json.dumps(header("wb-run", "writingbench")), encoding="utf-8")
    _jsonl(folder / "samples.jsonl", [record(n, target={"checklist": checklist}) for n in range(2)])
    with serving(tmp_path / "runs", LabelOptions("bands", seed=1)) as url, tab(browser) as page:
        join(page, url, "Kim")
        shown = page.locator("fieldset.q pre.criterion")
        assert shown.count() == 5
        for text in shown.all_inner_texts():
            assert all(f"{band}: Band {band}:" in text for band in bands), text  # every band, the top ones too
        for width in (1280, 390):  # a wide screen, then a phone's: no band scrolled out of sight in either
            page.set_viewport_size({"width": width, "height": 900})
            assert page.evaluate(CLIPPED) == [], width
        page.screenshot(path=str(shots / "label-checklist.png"), full_page=True)
        # the check sees a description in a scroll box too short for it (as a 12em box would be)
        page.evaluate(
            "() => document.querySelectorAll('pre.criterion')"
            ".forEach(e => Object.assign(e.style, {maxHeight: '12em', overflow: 'auto'}))"
        )
        assert page.evaluate(CLIPPED) == [f"q{k} pre.criterion" for k in range(5)]


def test_every_point_of_a_ravel_form_is_reached_by_keyboard_10_included(browser, tmp_path, shots):
    """The End2End question (1-10: `0` gives 10), a section's (0-10: `t` gives 10) and the arrows."""
    from concurrent.futures import ThreadPoolExecutor

    from support.scripted import registered_scripts
    from view.view_fixtures import ravel_run

    def build(root: Path) -> Path:
        with registered_scripts() as scripts:
            ravel_run(root, scripts)
        return root

    with ThreadPoolExecutor(1) as pool:  # the run's event loop, away from Playwright's in this thread
        root = pool.submit(build, tmp_path / "runs").result()
    with serving(root, LabelOptions("ten", seed=1)) as url, tab(browser) as page:
        join(page, url, "Kim")
        legends = page.locator("fieldset.q legend").all_inner_texts()
        assert legends[0].startswith("How good is the final manuscript") and legends[1].startswith("Section 1,")
        page.keyboard.press("0")  # 10 on the 1-10 scale; the next question is highlighted
        page.keyboard.press("t")  # 10 on the 0-10 scale
        for key in ("ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"):  # 0, 1, 2, back to 1
            page.keyboard.press(key)
        checked = [page.locator(f"#q{k} input:checked").get_attribute("value") for k in range(3)]
        assert checked == ["10", "10", "1"]
        page.screenshot(path=str(shots / "label-ravel-keys.png"), full_page=True)
        with page.expect_navigation():
            page.keyboard.press("Enter")
    saved = {label["criterion"]: label["score"] for label in labels_in(root / "labels" / "ten.jsonl")}
    assert saved == {"judge": 10, "reviewer: section 1": 10, "reviewer: section 2": 1}


def test_a_pair_stacks_its_answers_on_a_phone(browser, runs, shots):
    with serving(runs, LabelOptions("phone", seed=8, items="pairs")) as url, tab(browser) as page:
        join(page, url, "Kim")
        boxes = {}
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 844})
            boxes[width] = [page.locator(f"#answer-{n}").bounding_box() for n in (1, 2)]
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(shots / f"label-pair-{width}.png"), full_page=True)
    (a, b) = boxes[1280]
    assert a["y"] == b["y"] and a["x"] + a["width"] <= b["x"]  # side by side on a wide screen
    (a, b) = boxes[390]
    assert a["y"] + a["height"] <= b["y"] and a["width"] > 300 and b["width"] > 300  # one above the other

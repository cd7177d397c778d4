"""The viewer in headless Chromium (Debian's build, driven by Playwright) against a real uvicorn server.

Screenshots go to a folder under pytest's temporary path (and to $PROSEVAL_VIEW_SHOTS when set).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from view.chromium import ARGS, CHROMIUM, serving_app
from view.view_fixtures import HOSTILE

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(built_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The viewer serving a copy of the built runs (`serving_app`)."""
    from proseval.view import create_app

    root = tmp_path_factory.mktemp("served")
    for path in built_runs.values():
        shutil.copytree(path, root / path.name)
    with serving_app(create_app(root)) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} not found (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=ARGS,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        context.close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    tab = browser.new_page()
    dialogs: list[str] = []
    tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    errors: list[str] = []
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield tab
    tab.close()
    assert dialogs == [], "a script from a run's text ran"
    assert errors == [], f"console errors (a blocked script or style?): {errors}"


def first_record(path: Path) -> dict:
    return json.loads((path / "samples.jsonl").read_text(encoding="utf-8").splitlines()[0])


def test_the_run_list_renders(server, page, built_runs, shots):
    page.goto(server + "/")
    rows = page.locator("#runs tbody tr")
    assert rows.count() == len(built_runs)
    names = rows.locator("td:first-child a").all_inner_texts()
    assert sorted(names) == sorted(p.name for p in built_runs.values())
    assert page.locator("#runs .badge.complete").count() == len(built_runs)
    page.screenshot(path=str(shots / "runs.png"), full_page=True)
    page.locator(f"text={built_runs['demo'].name}").click()
    assert page.locator("#samples tbody tr").count() == 4
    assert page.locator("#metrics").is_visible()
    page.screenshot(path=str(shots / "run-demo.png"), full_page=True)


def test_a_sample_page_shows_every_turn_and_its_text_as_text(server, page, built_runs, shots):
    record = first_record(built_runs["demo"])
    page.goto(f"{server}/runs/{built_runs['demo'].name}/samples/1")
    messages = page.locator("#messages li.message pre")
    assert messages.all_inner_texts() == [m["content"] for m in record["state"]["messages"]]
    assert HOSTILE in messages.nth(1).inner_text()  # shown literally, never run (no dialog: see `page`)
    page.screenshot(path=str(shots / "sample-demo.png"), full_page=True)

    rounds = built_runs["meeseeks"]
    page.goto(f"{server}/runs/{rounds.name}/samples/1")
    turns = first_record(rounds)["state"]["turns"]
    answers = page.locator("#rounds .round > pre")
    assert answers.all_inner_texts() == [t["answer"] for t in turns]
    boxes = [page.locator("#rounds .round").nth(i).bounding_box() for i in range(len(turns))]
    assert boxes[0]["y"] == boxes[1]["y"] and boxes[0]["x"] < boxes[1]["x"]  # side by side
    page.screenshot(path=str(shots / "sample-meeseeks.png"), full_page=True)


def test_a_score_explanation_expands_on_click(server, page, built_runs, shots):
    record = first_record(built_runs["demo"])
    page.goto(f"{server}/runs/{built_runs['demo'].name}/samples/1")
    explanation = page.locator("#scores details.explanation").first
    body = explanation.locator("pre")
    assert not body.is_visible()
    explanation.locator("summary").click()
    assert body.is_visible()
    assert body.inner_text() == record["scores"]["length"]["explanation"]
    page.screenshot(path=str(shots / "sample-explanation.png"), full_page=True)


def test_a_ravel_trajectory_steps_forward_and_back_on_click(server, page, built_runs, shots):
    page.goto(f"{server}/runs/{built_runs['ravel'].name}/samples/1")
    steps = page.locator("#trajectory [data-step]")
    assert steps.count() == 8
    visible = lambda: [i for i in range(steps.count()) if steps.nth(i).is_visible()]  # noqa: E731  # a one-line helper
    assert visible() == [0]
    assert page.locator("[data-position]").inner_text() == "step 1 of 8"
    assert page.locator("[data-prev]").is_disabled()
    page.screenshot(path=str(shots / "ravel-step1.png"), full_page=True)
    page.locator("[data-next]").click()
    assert visible() == [1]
    assert page.locator("[data-position]").inner_text() == "step 2 of 8"
    assert "Water text." in steps.nth(1).locator("pre.manuscript").inner_text()
    for _ in range(4):
        page.locator("[data-next]").click()
    assert visible() == [5] and "refine section 1" in steps.nth(5).locator("h3").inner_text()
    assert steps.nth(5).locator("ins").first.inner_text() == ", revised: it floats because it is less dense"
    page.screenshot(path=str(shots / "ravel-step6.png"), full_page=True)
    page.locator("[data-prev]").click()
    assert visible() == [4]
    page.reload()  # the step is kept in the address
    assert visible() == [4]


def test_revision_edits_are_marked(server, page, built_runs, shots):
    page.goto(f"{server}/runs/{built_runs['revision'].name}/samples/1")
    assert page.locator("pre.edited mark").all_inner_texts() == ["The cat sat on the mat", "big"]
    page.screenshot(path=str(shots / "sample-edits.png"), full_page=True)


def test_the_sample_table_filters_from_the_form(server, page, built_runs, shots):
    page.goto(f"{server}/runs/{built_runs['demo'].name}")
    page.select_option("select[name='s.genre']", "fiction")
    page.locator("#filters button[type=submit]").click()
    page.wait_for_url("**s.genre=fiction**")
    assert page.locator("#samples tbody tr td:nth-child(2)").all_inner_texts() == ["demo/story-lighthouse"]
    assert page.locator("#count").inner_text().startswith("1 sample match")
    page.goto(f"{server}/runs/{built_runs['ravel'].name}")
    assert page.locator("figure.chart img").first.evaluate("img => img.naturalWidth") > 0  # the run's chart loads
    page.screenshot(path=str(shots / "run-ravel.png"), full_page=True)


# what of a page is wider than the screen: its own width, and each table (or other box) that is not
# inside a box that scrolls it, as "tag#id.class right-edge"
OVERFLOW = """(width) => [document.documentElement.scrollWidth,
    [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > width + 1
        && !e.parentElement.closest('.wide, .rounds, pre, details:not([open])'))
      .map(e => `${e.localName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)]"""


def test_the_run_list_run_and_sample_pages_fit_a_phone(server, page, built_runs, shots):
    page.set_viewport_size({"width": 390, "height": 844})
    paths = ["/"] + [f"/runs/{path.name}{end}" for path in built_runs.values() for end in ("", "/samples/1")]
    for path in paths:
        page.goto(server + path)
        width, overflowing = page.evaluate(OVERFLOW, 390)
        assert (width, overflowing) == (390, []), path
        for table in page.locator("table.grid").all():  # each table scrolls inside a box within the screen
            box = table.evaluate("t => (t.closest('.rounds') || t.closest('.wide')).getBoundingClientRect().right")
            assert box <= 390, path
    page.goto(server + "/")
    page.screenshot(path=str(shots / "runs-390.png"), full_page=True)
    page.goto(f"{server}/runs/{built_runs['ravel'].name}")
    page.screenshot(path=str(shots / "run-ravel-390.png"), full_page=True)
    page.goto(f"{server}/runs/{built_runs['ravel'].name}/samples/1")
    page.screenshot(path=str(shots / "sample-ravel-390.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

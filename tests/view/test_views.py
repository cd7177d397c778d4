"""A sample's own views come from its benchmark's `views` hook: the viewer draws the blocks it is
given, survives a broken hook, and imports no benchmark."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from proseval import registry
from proseval.kit.views import ViewBlock
from proseval.view import create_app
from view.view_fixtures import HOSTILE, header, record, write_run

VIEW = Path(__file__).resolve().parents[2] / "src" / "proseval" / "view"


@pytest.fixture
def hook_task():
    """Register `unit-views` with the hook a test sets: ``hook_task(lambda record: [...])``."""

    def register(hook) -> str:
        registry._TASKS.pop("unit-views", None)
        registry.task("unit-views", summary="a task whose views a test draws", views=hook)(lambda params: None)
        return "unit-views"

    yield register
    registry._TASKS.pop("unit-views", None)


def page(root: Path, name: str = "r") -> str:
    response = TestClient(create_app(root), base_url="http://127.0.0.1").get(f"/runs/{name}/samples/1")
    assert response.status_code == 200
    return response.text


def test_no_module_of_the_viewer_imports_a_benchmark():
    for path in sorted(VIEW.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")] + [
                    f"{node.module or ''}.{a.name}" for a in node.names
                ]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                assert "benchmarks" not in name.split("."), f"{path.name} imports {name}"


def test_a_hook_that_raises_leaves_a_note_not_an_error(tmp_path, hook_task):
    def broken(record):
        raise RuntimeError(f"cannot draw {HOSTILE}")

    write_run(
        tmp_path / "r",
        [record(1, state={"messages": [], "output": "Answer 1.", "turns": [{"n": 1}], "metadata": {}})],
        task=hook_task(broken),
    )
    html = page(tmp_path)
    problems = html.split('id="view-problems"', 1)[1].split("</ul>", 1)[0]
    assert "the sample view of task unit-views failed: RuntimeError: cannot draw &lt;script&gt;" in problems
    assert "<h2>Scores</h2>" in html and "Answer 1." in html  # the rest of the page is drawn
    assert '<ol class="turns" id="turns">' in html  # no view drew the turns: listed as they are


def test_what_a_hook_returns_is_checked_block_by_block(tmp_path, hook_task):
    made = [
        ViewBlock("text", "Fine", {"text": "kept"}),
        ViewBlock("table", "Broken", {"rows": "not rows"}),
        "not a block",
        ViewBlock("chart", "Unknown kind", {"x": 1}),
        ViewBlock("steps", "Nested", [{"title": "s", "blocks": [ViewBlock("rounds", "r", [])]}]),
    ]
    write_run(tmp_path / "r", [record(1)], task=hook_task(lambda r: made))
    html = page(tmp_path)
    problems = html.split('id="view-problems"', 1)[1].split("</ul>", 1)[0]
    assert "block 2 of task unit-views" in problems and "a table needs columns" in problems
    assert "block 3 of task unit-views" in problems and "str is not a ViewBlock" in problems
    assert "block 5 of task unit-views" in problems and "cannot be inside a step" in problems
    assert '<h2>Fine</h2>\n<pre class="text">kept</pre>' in html
    unknown = html.split("<summary>Unknown kind</summary>", 1)[1].split("</details>", 1)[0]
    assert "which this viewer does not know" in unknown and "&#34;x&#34;: 1" in unknown
    write_run(tmp_path / "r", [record(1)], task=hook_task(lambda r: "not a list"))
    assert "it returned str, not a list of ViewBlock" in page(tmp_path)


def test_every_kind_is_drawn_with_its_text_escaped(tmp_path, hook_task):
    segments = [("equal", "a "), ("delete", HOSTILE), ("insert", "new"), ("mark", "hit"), ("plain", " z")]
    made = [
        ViewBlock("text", "A text", {"text": f"t {HOSTILE}", "note": f"n {HOSTILE}", "class": "output"}),
        ViewBlock("text", "Folded", {"text": {"k": HOSTILE}, "folded": True, "open": True}),
        ViewBlock("diff", "A diff", segments),
        ViewBlock("marked", "Marked", {"segments": [("plain", "x "), ("mark", "y")], "class": 'bad"class ok'}),
        ViewBlock("kv", "Facts", {"items": [("label", 0.123456), ("error", HOSTILE, "problem")]}),
        ViewBlock(
            "table",
            "A table",
            {
                "columns": ["a", "b"],
                "row_class": ["failed"],
                "rows": [
                    [HOSTILE, {"text": 3, "small": "ok"}],
                    [{"text": "q", "quote": True}, {"text": "why", "fold": "method"}],
                ],
            },
        ),
        ViewBlock(
            "steps",
            "Steps",
            {
                "steps": [
                    {
                        "title": "Step 1",
                        "status": "success",
                        "blocks": [{"kind": "text", "title": "Inner", "data": {"text": "", "empty": "(nothing)"}}],
                    },
                    {"title": "Step 2", "status": "failed", "blocks": []},
                ]
            },
        ),
        ViewBlock(
            "rounds",
            "Rounds",
            {
                "rounds": [
                    {
                        "title": "Round 1",
                        "badge": "1 failed",
                        "status": "failed",
                        "blocks": [ViewBlock("text", "Answer", "one")],
                    }
                ]
            },
        ),
    ]
    write_run(
        tmp_path / "r",
        [record(1, state={"messages": [], "output": "o", "turns": [{"n": 1}], "metadata": {}})],
        task=hook_task(lambda r: made),
    )
    html = page(tmp_path)
    assert "<script>alert" not in html and "<img src=x" not in html
    assert '<h2>A text</h2>\n<p class="note">n &lt;script&gt;' in html
    assert '<pre class="text output">t &lt;script&gt;' in html
    assert '<details class="folded" open><summary>Folded</summary>' in html
    assert '<pre class="diff">a <del>&lt;script&gt;' in html and "<ins>new</ins><mark>hit</mark> z</pre>" in html
    assert '<pre class="text ok">x <mark>y</mark></pre>' in html  # a word that is no class name is left out
    assert "<dt>label</dt><dd>0.1235</dd>" in html and '<dd class="problem">&lt;script&gt;' in html
    assert '<tr class="failed"><td>&lt;script&gt;' in html and '<td class="n">3 <small>ok</small></td>' in html
    assert '<td><q>q</q></td><td><details><summary>method</summary><pre class="text">why</pre>' in html
    steps = html.split('id="trajectory"', 1)[1].split('<section class="step')[1:]
    assert len(steps) == 2 and 'success" data-step id="step-1"' in steps[0] and "(nothing)" in steps[0]
    assert '<h3>Step 2 <span class="badge failed">failed</span></h3>' in steps[1]
    assert '<h3>Round 1 <span class="badge failed">1 failed</span></h3>' in html.split('id="rounds"', 1)[1]
    assert 'id="turns"' not in html  # steps and rounds draw the turns


def test_a_run_rescored_by_a_scorer_plugin_shows_the_plugin_views(tmp_path):
    edits = [
        {"action_name": "replace", "revision_level": "word", "original_snippet": "Answer", "revised_snippet": "Reply"}
    ]
    rescored = record(
        1,
        scores={
            "revision_distance": {"value": 1.0, "parse_status": "ok", "explanation": "", "metadata": {"edits": edits}}
        },
    )
    folder = write_run(tmp_path / "r", [rescored], task="demo")
    (folder / "header.json").write_text(
        json.dumps({**header("r", "demo"), "scorer_plugin": {"name": "revision-distance", "options": {}}}),
        encoding="utf-8",
    )
    html = page(tmp_path)
    assert "<h2>Edits (revision_distance): 1</h2>" in html
    assert '<pre class="text edited"><mark>Answer</mark> 1.</pre>' in html

"""The template benchmark in examples/haiku_bench uses every contract a benchmark needs, from the kit alone."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import proseval
from proseval import registry
from proseval.kit.testing import register_script, unregister_script

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "haiku_bench"
HAIKU = "Soft rain on the roof\nthe garden drinks in silence\nnight falls on the pond"


@pytest.fixture
def haiku_module():
    sys.path.insert(0, str(TEMPLATE))
    import proseval_haiku  # registers the task and its command group, as the entry point would

    register_script("haiku-candidate", lambda messages: "" if "snow" in messages[-1]["content"] else HAIKU)
    register_script("haiku-judge", lambda messages: '{"score": 8, "reason": "vivid"}')
    yield proseval_haiku
    unregister_script("haiku-candidate")
    unregister_script("haiku-judge")
    registry._TASKS.pop("haiku", None)
    registry._COMMAND_GROUPS.pop("haiku", None)
    sys.path.remove(str(TEMPLATE))
    for name in [m for m in sys.modules if m.startswith("proseval_haiku")]:
        del sys.modules[name]


def test_the_template_declares_itself_with_one_entry_point_line():
    project = tomllib.loads((TEMPLATE / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["proseval.benchmarks"] == {"haiku": "proseval_haiku"}


def test_the_template_imports_proseval_only_through_the_kit_and_the_top_level():
    imported = set()
    for path in (TEMPLATE / "proseval_haiku").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    of_proseval = {name for name in imported if name.split(".")[0] == "proseval"}
    assert {"proseval", "proseval.kit"} <= of_proseval
    assert all(name in ("proseval", "proseval.kit") or name.startswith("proseval.kit.") for name in of_proseval)


def test_the_template_runs_with_params_roles_judge_aggregate_and_plot(tmp_path, haiku_module):
    assert "haiku" in registry.tasks() and "haiku" in registry.command_groups()
    run = proseval.run(
        "haiku",
        model="scripted/haiku-candidate",
        roles={"judge": "scripted/haiku-judge"},
        params={"themes": "rain,snow"},
        out=tmp_path,
    )
    metrics = run.results.metrics
    assert metrics["form"].mean == 0.5  # the rain haiku is 5-7-5, the empty snow answer is not
    assert metrics["quality"].mean == pytest.approx((8 + 1) / 2)  # an empty answer: the declared lowest score
    assert run.results.counts.model_failures == {"empty": 1}
    assert run.results.extra["haiku"]["quality_by_theme"] == {"rain": 8.0, "snow": 1.0}
    assert (run.path / "haiku_by_theme.png").read_bytes()[:4] == b"\x89PNG"
    assert set(run.results.slices["theme"]) == {"rain", "snow"}


def test_the_template_declares_what_its_judge_rated(tmp_path, haiku_module):
    from proseval.kit import Rating, Scale

    run = proseval.run(
        "haiku",
        model="scripted/haiku-candidate",
        roles={"judge": "scripted/haiku-judge"},
        params={"themes": "rain,snow"},
        out=tmp_path,
    )
    task = registry.get_task("haiku", run.header.task_params)
    rated = {record.metadata["theme"]: task.ratings(record.scores) for record in run.records()}
    # the judged rain haiku is rated; the empty snow answer's rule-set 1 and the form check are not
    assert rated == {"rain": [Rating("quality", 8.0, Scale(1, 10, "ordinal"), "judge")], "snow": []}


def test_the_template_command_group(tmp_path, haiku_module):
    poem = tmp_path / "poem.txt"
    poem.write_text(HAIKU)
    app = registry.command_groups()["haiku"]()
    result = CliRunner().invoke(app, ["syllables", str(poem)])
    assert result.exit_code == 0 and "[5, 7, 5]" in result.output


def test_the_template_judge_prompt_is_replaceable_by_a_file(tmp_path, haiku_module):
    mine = tmp_path / "judge.txt"
    mine.write_text('THEME {theme}\n{haiku}\nJSON: {"score": 1-10}', encoding="utf-8")
    seen = []
    register_script("haiku-judge-seen", lambda messages: seen.append(messages[-1]["content"]) or '{"score": 6}')
    try:
        run = proseval.run(
            "haiku",
            model="scripted/haiku-candidate",
            roles={"judge": "scripted/haiku-judge-seen"},
            params={"themes": "rain"},
            out=tmp_path / "runs",
            prompts={"judge": mine},
        )
    finally:
        unregister_script("haiku-judge-seen")
    assert seen and seen[0].startswith("THEME rain\n") and run.results.metrics["quality"].mean == 6.0
    assert run.header.prompts["judge"].source == str(mine)


def test_the_template_draws_its_own_sample_view_in_the_viewer(tmp_path, haiku_module):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from proseval.view import create_app

    run = proseval.run(
        "haiku",
        model="scripted/haiku-candidate",
        roles={"judge": "scripted/haiku-judge"},
        params={"themes": "rain"},
        out=tmp_path / "runs",
    )
    html = (
        TestClient(create_app(tmp_path / "runs"), base_url="http://127.0.0.1")
        .get(f"/runs/{run.path.name}/samples/1")
        .text
    )
    # its "table" block: the syllables of each line against 5-7-5 (all exact here)
    table = html.split("<h2>Syllables per line</h2>", 1)[1].split('<table class="grid syllables">', 1)[1]
    assert [row for row in table.split("</table>", 1)[0].splitlines() if row.startswith("<tr class")] == [
        '<tr class="passed"><td>Soft rain on the roof</td><td class="n">5</td><td class="n">5</td></tr>',
        '<tr class="passed"><td>the garden drinks in silence</td><td class="n">7</td><td class="n">7</td></tr>',
        '<tr class="passed"><td>night falls on the pond</td><td class="n">5</td><td class="n">5</td></tr>',
    ]
    # its "marked" block: the theme marked in the haiku
    assert '<pre class="text theme">Soft <mark>rain</mark> on the roof\n' in html.split("The theme in the haiku", 1)[1]
    assert 'id="view-problems"' not in html  # no hook failed


def test_the_template_asks_raters_its_own_question_in_the_labelling_mode(tmp_path, haiku_module):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from proseval.view import create_app
    from proseval.view.labelling import LabelOptions

    proseval.run(
        "haiku",
        model="scripted/haiku-candidate",
        roles={"judge": "scripted/haiku-judge"},
        params={"themes": "rain"},
        out=tmp_path / "runs",
    )
    web = TestClient(create_app(tmp_path / "runs", labelling=LabelOptions("s", seed=1)), base_url="http://127.0.0.1")
    assert web.get("/label", params={"rater": "Ann"}).status_code == 200  # joined as Ann
    page = web.get("/label/1").text
    assert "A haiku on the theme: rain" in page and "<legend>quality</legend>" in page
    assert page.count('name="c0" value=') == 10  # its 1-10 scale

"""`proseval report`: every table present, every number equal to results.json, texts escaped, nothing remote."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from proseval.cli import app
from proseval.registry import tasks
from proseval.report.compare import compare_runs
from proseval.report.runs import open_runs
from proseval.report.samples import anchor
from proseval.report.sections import slug
from proseval.runtime.aggregate import flatten_scores
from proseval.runtime.runlog import RunFolder
from report.page import NUMBER, Page, ParsedTable
from report.report_fixtures import HOSTILE

pytestmark = pytest.mark.slow

cli = CliRunner()
DASH = "—"


def order(runs: dict[str, list[Path]]) -> list[Path]:
    return [*runs["demo"], *runs["writingbench"], *runs["c3ebench"]]


def write(paths: list[Path], out: Path, *args: str) -> str:
    result = cli.invoke(app, ["report", *map(str, paths), "-o", str(out), *args])
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory) -> tuple[str, Page]:
    text = write(
        order(runs),
        tmp_path_factory.mktemp("page") / "report.html",
        "--baseline",
        str(runs["demo"][1]),
        "--rank-by",
        "quality",
    )
    return text, Page(text)


def results_of(paths: list[Path]) -> list[dict[str, Any]]:
    return [json.loads((p / "results.json").read_text(encoding="utf-8")) for p in paths]


def at(tree: Any, path: list[Any]) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def shown_as(value: float | int, token: str) -> str:
    decimals = len(token.split(".")[1]) if "." in token else 0
    return f"{value:.{decimals}f}"


def test_every_expected_table_is_present(runs, report):
    _, page = report
    paths = order(runs)
    for task in ("demo", "writingbench", "c3ebench"):
        assert f"leaderboard-{task}" in page.tables
    for index, data in enumerate(results_of(paths)):
        task = data["task"]
        for key, groups in data["slices"].items():
            for metric in {m for group in groups.values() for m in group}:
                assert f"slice-{slug(task)}-{slug(key)}-{slug(metric)}" in page.tables
        assert f"samples-table-{index}" in page.tables
        rendered = tasks()[task].render
        expected = len(rendered(open_runs([paths[index]])[0].results)) if rendered else 0
        assert len([t for t in page.tables if t.startswith(f"bench-{index}-")]) == expected
    assert expected > 0  # the C3EBench runs have tables of their own
    # runs of one task are compared with the baseline (demo: the second run), others with the first
    assert {"cmp-1-0", "cmp-2-3", "cmp-4-5"} <= set(page.tables)
    assert "cmp-0-1" not in page.tables
    # --rank-by also names the metric the samples that changed most follow: quality, 2 points lower in demo-a
    assert {row.cells[3].text for row in page.tables["cmp-1-0-changed"].body} == {"-2.000"}


def test_the_leaderboard_has_a_row_per_run_with_cis_unscored_and_failed(runs, report):
    text, page = report
    board = page.tables["leaderboard-demo"]
    assert board.header[:4] == ["tier", "model", "run", "other roles"]
    assert {"quality (1-10)", "length (0-1)", "95% CI", "unscored", "failed", "finished / total"} <= set(board.header)
    assert [row.cells[2].text for row in board.body] == ["demo-b", "demo-a"]  # by the headline metric
    failed = board.header.index("failed")
    assert [row.cells[failed].text for row in board.body] == ["1", "1"]  # the kettle prompt failed in both
    assert [row.cells[0].text for row in board.body] == ["not ranked", "not ranked"]  # so neither is ranked
    assert "Not ranked: " in text and " samples failed: " in text


def test_every_number_shown_equals_results_json(runs, report):
    _, page = report
    data = results_of(order(runs))
    checked = 0
    for table in page.tables.values():
        for row in table.body:
            for cell in row.cells:
                if cell.src is None:  # a cell without a source shows no number
                    assert cell.attrs.get("class") != "num" or not NUMBER.search(cell.text), (table.id, cell.text)
                    continue
                checked += check_cell(data, cell, table.id)
    assert checked > 100


def value_at(data: list[dict[str, Any]], path: list[Any]) -> Any:
    """The value at a results.json path, or the sum of the values at a list of paths (a sum's terms)."""
    if path and isinstance(path[0], list):
        return sum(value_at(data, term) for term in path)
    return at(data[path[0]], path[1:])


def check_cell(data: list[dict[str, Any]], cell, where: str) -> int:
    """The numbers in the cell's text are, in order, the values at its results.json paths, or the sums
    of the values at its lists of paths (a dash for None)."""
    values = [value_at(data, path) for path in cell.src]
    tokens = NUMBER.findall(cell.text)
    present = [v for v in values if v is not None]
    assert len(tokens) == len(present), (where, cell.text, values)
    assert (DASH in cell.text) == (len(present) < len(values)), (where, cell.text)
    for token, value in zip(tokens, present):
        assert shown_as(value, token) == token, (where, cell.text, values)
    return len(tokens)


def numbers_in(tree: Any) -> list[float]:
    if isinstance(tree, dict):
        return [n for v in tree.values() for n in numbers_in(v)]
    if isinstance(tree, list):
        return [n for v in tree for n in numbers_in(v)]
    return [float(tree)] if isinstance(tree, (int, float)) and not isinstance(tree, bool) else []


def test_the_benchmarks_own_tables_show_numbers_from_results_json(runs, report):
    _, page = report
    results = results_of(order(runs))
    own = [table for table in page.tables.values() if table.id.startswith("bench-")]
    shown = [
        (int(t.id.split("-")[1]), t.id, cell.text, token)
        for t in own
        for row in t.body
        for cell in row.cells
        for token in NUMBER.findall(cell.text)
    ]
    # every table of a benchmark's own shows numbers, and there are such tables (C3EBench's)
    assert len({where for _, where, _, _ in shown}) == len(own) > 0
    for index, where, text, token in shown:
        assert any(shown_as(v, token) == token for v in numbers_in(results[index])), (where, text)


def diff_texts(d) -> list[str]:
    def num(v, digits=3):
        return DASH if v is None else f"{v:.{digits}f}"

    ci = DASH if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
    return [
        d.metric,
        str(d.paired),
        num(d.mean_a),
        num(d.mean_b),
        DASH if d.diff is None else f"{d.diff:+.3f}",
        ci,
        num(d.p_value, 4),
        str(d.only_a),
        str(d.only_b),
    ]


def test_the_paired_comparison_is_the_one_compare_computes(runs, report):
    _, page = report
    a, b = (RunFolder(p) for p in runs["writingbench"])
    expected = compare_runs(
        a.unique_scored()[0],
        b.unique_scored()[0],
        slice_keys=sorted(a.read_results().slices),
        seed=a.read_header().seed or 0,
    )
    table = page.tables["cmp-2-3"]
    assert [[c.text for c in row.cells] for row in table.body] == [diff_texts(d) for d in expected.metrics]
    by_lang = page.tables["cmp-2-3-lang"]
    assert [[c.text for c in row.cells] for row in by_lang.body] == [
        [label, *diff_texts(d)] for label, diffs in expected.slices["lang"].items() for d in diffs
    ]
    changed = page.tables["cmp-2-3-changed"]
    assert [row.cells[0].text for row in changed.body] == [s.id for s in expected.changed]
    assert [row.cells[3].text for row in changed.body] == [f"{s.change:+.3f}" for s in expected.changed]


def sample_table(page: Page, index: int) -> ParsedTable:
    return page.tables[f"samples-table-{index}"]


def test_the_samples_show_each_score_and_status_with_working_anchors(runs, report):
    _, page = report
    for index, path in enumerate(order(runs)):
        folder = RunFolder(path)
        records = {(r.id, r.epoch): r for r in folder.iter_records()}
        table = sample_table(page, index)
        header = table.header
        assert len(table.body) == len(records)
        for row in table.body:
            record = records[(json.loads(row.attrs["data-sample"]), int(row.attrs["data-epoch"]))]
            status = row.cells[header.index("status")].text
            assert status.startswith("ok" if record.status == "ok" else "failed")
            flat = flatten_scores(record)
            for cell in row.cells:
                if "data-metric" not in cell.attrs:
                    continue
                metric = json.loads(cell.attrs["data-metric"])
                if metric not in flat:
                    assert cell.text == ""
                elif flat[metric] is None:
                    assert cell.text == f"unscored ({record.scores[metric.split('.')[0]].parse_status})"
                else:
                    assert cell.text == f"{flat[metric]:.3f}"
    internal = [h[1:] for h in page.hrefs if h.startswith("#")]
    assert internal and set(internal) <= page.ids
    # the samples that changed most link to both runs' rows
    a, b = open_runs(order(runs))[2:4]
    changed = page.tables["cmp-2-3-changed"].body[0].cells[0].text
    assert f"#{anchor(a, changed)}" in page.hrefs and f"#{anchor(b, changed)}" in page.hrefs


def test_unscored_and_failed_samples_are_marked(report):
    _, page = report
    rows = sample_table(page, 0).body  # demo-a: the fiction prompt is unscored, the kettle prompt failed
    statuses = {json.loads(r.attrs["data-sample"]): r for r in rows}
    assert statuses["demo/product-kettle"].cells[2].text == "failed"
    assert any(c.text.startswith("unscored (") for c in statuses["demo/story-lighthouse"].cells)
    assert "judge, turn judge:no JSON at all" in statuses["demo/story-lighthouse"].cells[-1].text  # the raw reply
    # trouble first: the failed and unscored samples lead the list
    assert {json.loads(r.attrs["data-sample"]) for r in rows[:2]} == {"demo/product-kettle", "demo/story-lighthouse"}


def test_untrusted_text_is_escaped(report):
    text, page = report
    assert "<script" not in text.lower()
    assert "<b>bold</b>" not in text
    assert "&lt;script&gt;alert(" in text
    assert "script" not in page.tags
    # the text reaches the page as text: the judge's reason and the candidate's answer
    assert any(HOSTILE in cell.text for t in page.tables.values() for row in t.body for cell in row.cells)


def test_the_page_refers_to_nothing_outside_itself(report):
    text, page = report
    assert not re.search(r"https?://", text)
    assert not {"script", "link", "iframe", "object", "embed"} & set(page.tags)
    assert page.images and all(src.startswith("data:image/png;base64,") for src in page.images)
    assert all(h.startswith("#") for h in page.hrefs)
    policy = next(m["content"] for m in page.meta if m.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in policy


def test_charts_come_from_the_benchmarks_or_a_generic_slice_chart(report):
    text, _ = report
    assert 'alt="writingbench domain1"' in text  # WritingBench's own chart, per run
    assert 'alt="c3ebench task language"' in text  # C3EBench's own chart
    assert 'alt="quality by genre"' in text  # demo has no chart of its own: bars per slice across runs


def test_missing_charts_are_drawn_again_by_the_benchmark(runs, tmp_path):
    copy = shutil.copytree(runs["writingbench"][0], tmp_path / "wb-copy")
    for png in copy.glob("*.png"):
        png.unlink()
    text = write([copy], tmp_path / "one.html")
    assert 'alt="writingbench domain1"' in text
    # a single run: one slice table per key, a column per metric, its numbers from results.json
    table = Page(text).tables["slice-writingbench-domain1"]
    assert table.header == ["domain1", "writingbench (1-10)", "n / unscored"]
    data = results_of([copy])
    # the numbers: each domain's mean and counts, and the interval of the domain with two queries
    # (Education, with one, shows "3.500 —": no interval)
    assert sum(check_cell(data, cell, table.id) for row in table.body for cell in row.cells if cell.src) == 8


def test_the_sample_list_is_capped_with_a_note_and_keeps_the_changed_samples(runs, tmp_path):
    page = Page(write(runs["demo"], tmp_path / "capped.html", "--max-samples", "1", "--top", "2"))
    changed = [row.cells[0].text for row in page.tables["cmp-0-1-changed"].body]
    for index in (0, 1):
        shown = {json.loads(r.attrs["data-sample"]) for r in sample_table(page, index).body}
        assert set(changed) <= shown and len(shown) <= 1 + len(changed)
    text = write(runs["demo"], tmp_path / "all.html", "--max-samples", "1", "--all-samples")
    assert len(sample_table(Page(text), 0).body) == 8
    assert "--all-samples" in (tmp_path / "capped.html").read_text(encoding="utf-8")


def test_an_unfinished_run_is_refused_with_its_folder_named(runs, tmp_path):
    copy = shutil.copytree(runs["demo"][0], tmp_path / "unfinished")
    (copy / "results.json").unlink()
    result = cli.invoke(app, ["report", str(copy), "-o", str(tmp_path / "x.html")])
    assert result.exit_code == 2 and "unfinished" in result.output and not (tmp_path / "x.html").exists()


def test_runs_with_epochs_show_each_epoch(tmp_path, scripts):
    import proseval

    scripts("rep-epoch-judge", lambda m: '{"score": %d, "reason": "x"}' % (3 + len(m[-1]["content"]) % 5))
    run = proseval.run(
        "demo",
        model="scripted/echo",
        roles={"judge": "scripted/rep-epoch-judge"},
        epochs=2,
        run_dir=tmp_path / "epochs",
    )
    page = Page(write([run.path], tmp_path / "epochs.html"))
    table = page.tables["epochs-demo"]
    assert [row.cells[1].text for row in table.body] == ["0", "1"]
    data = results_of([run.path])
    assert sum(check_cell(data, cell, table.id) for row in table.body for cell in row.cells if cell.src) == 12


def test_the_usage_and_cost_table_sums_every_run_and_their_total_from_results_json(tmp_path, runs, report):
    import proseval
    from proseval.core.prices import Prices

    _, page = report  # no run recorded a spend: no cost column
    assert page.tables["usage"].header == ["run", "model", "requests", "tokens in", "tokens out"]
    assert [row.cells[0].text for row in page.tables["usage"].body][-1] == "total"

    prices = Prices.model_validate(
        {
            "currency": "EUR",
            "models": {"scripted/echo": {"input": 3, "output": 7}, "scripted/empty": {"input": 2, "output": 5}},
        }
    )
    priced = proseval.run(
        "demo",
        model="scripted/echo",
        roles={"judge": "scripted/empty"},
        limit=3,
        run_dir=tmp_path / "priced",
        prices=prices,
    )
    unpriced = proseval.run(
        "demo", model="scripted/echo", roles={"judge": "scripted/empty"}, limit=2, run_dir=tmp_path / "unpriced"
    )
    table = Page(write([priced.path, unpriced.path], tmp_path / "usage.html")).tables["usage"]
    assert table.header == ["run", "model", "requests", "tokens in", "tokens out", "cost (EUR)"]
    rows = {row.cells[0].text: row.cells for row in table.body}
    assert list(rows) == ["priced", "unpriced", "total"]
    assert rows["unpriced"][5].text == DASH and rows["unpriced"][5].src is None
    assert rows["total"][2].text == str(5 + 5)  # a candidate and a judge request per sample
    data = results_of([priced.path, unpriced.path])
    # every number: requests and tokens over the roles, the cost over the priced ones, the total over the runs
    assert sum(check_cell(data, cell, table.id) for row in table.body for cell in row.cells if cell.src) == 3 * 3 + 2
    cost = rows["priced"][5]
    assert len(cost.src[0]) == 2 and float(cost.text) > 0 and rows["total"][5].text == cost.text

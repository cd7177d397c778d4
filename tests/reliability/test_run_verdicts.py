"""A run's verdicts are self-contained in its folder: `proseval agreement` and `proseval report` read
a WritingBench run with its data gone; a run made before verdicts were recorded is read through its
task, given the data with --data-dir. And each judging of the same answers counts once: repeat
folders that replay the response cache are set aside, with a warning naming them."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import proseval
from proseval.cli import app
from support.core import refusal_line
from support.planted import QUALITY, judge, writer
from writingbench.wb_fixtures import TINY_QUERIES, names, tiny_files, write_files

runner = CliRunner()
CRITERIA = 5  # per query of the tiny data set, named q<index>_c<n>


def wb_reply(score: int) -> str:
    return json.dumps({"score": score, "reason": "planted"})


@pytest.fixture
def wb_runs(tmp_path, scripts, monkeypatch):
    """The tiny WritingBench data (4 queries) found through $PROSEVAL_WRITINGBENCH_DIR, as most users
    have it: one candidate judged by a fair judge, then re-scored by a length-loving one."""
    data = write_files(tmp_path / "data" / "benchmark_query", tiny_files())
    monkeypatch.setenv("PROSEVAL_WRITINGBENCH_DIR", str(data))
    fair = scripts("wbv-fair", judge("fair", reply=wb_reply))
    lengthy = scripts("wbv-lengthy", judge("lengthy", slope=1.0, reply=wb_reply))
    source = proseval.run(
        "writingbench",
        model=scripts("wbv-writer", writer(80, seed=1)),
        roles={"judge": fair},
        params={"verify": False},
        out=tmp_path / "runs",
    ).path
    rescore = proseval.score(source, roles={"judge": lengthy})[0].path
    return data, source, rescore


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]


def planted(record: dict) -> int:
    """The quality the writer planted in the answer (what the fair judge gives every criterion)."""
    return int(QUALITY.search(record["state"]["output"]).group(1))


def test_a_run_records_what_its_judges_rated(wb_runs):
    _, source, rescore = wb_runs
    header = json.loads((source / "header.json").read_text())
    assert header["task_params"]["data_dir"] is None  # the data came from the environment
    assert header["ratings"] == {"recorded": True, "slice_keys": ["domain1", "lang"], "swapped": False}
    found = records(source)
    assert len(found) == len(TINY_QUERIES)
    for record in found:
        index = record["metadata"]["index"]
        quality = planted(record)
        assert [r["criterion"] for r in record["ratings"]] == names(index)
        assert all(r["value"] == quality and r["role"] == "judge" for r in record["ratings"])  # the fair judge
        assert all(r["scale"] == {"low": 1.0, "high": 10.0, "kind": "ordinal"} for r in record["ratings"])
    assert all(len(r["ratings"]) == CRITERIA for r in records(rescore))


def test_agreement_and_report_need_no_data(wb_runs, tmp_path, monkeypatch):
    data, source, rescore = wb_runs
    monkeypatch.delenv("PROSEVAL_WRITINGBENCH_DIR")
    shutil.rmtree(data)
    out = tmp_path / "analysis"
    result = runner.invoke(app, ["agreement", str(source), str(rescore), "-o", str(out)])
    assert result.exit_code == 0, result.output
    cards = json.loads((out / "results.json").read_text())["cards"]
    assert sorted(c["judge"] for c in cards) == ["scripted/wbv-fair", "scripted/wbv-lengthy"]
    assert all(c["n_ratings"] == len(TINY_QUERIES) * CRITERIA and c["n_unscored"] == 0 for c in cards)
    qualities = [planted(r) for r in records(source)]
    fair = next(c for c in cards if c["judge"] == "scripted/wbv-fair")
    assert fair["mean"] == pytest.approx(sum(qualities) / len(qualities))
    report = tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(source), str(rescore), "-o", str(report)])
    assert result.exit_code == 0, result.output
    assert 'id="judges"' in report.read_text()


def strip_recorded_verdicts(run: Path) -> None:
    """Make `run` look as runs made before verdicts were recorded do."""
    header = json.loads((run / "header.json").read_text())
    del header["ratings"]
    (run / "header.json").write_text(json.dumps(header))
    found = records(run)
    for record in found:
        del record["ratings"]
    (run / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in found))


def test_an_older_run_is_read_through_its_task_given_the_data(wb_runs, tmp_path, monkeypatch):
    data, source, rescore = wb_runs
    recorded = proseval.agreement([source, rescore])
    for run in (source, rescore):
        strip_recorded_verdicts(run)
    moved = tmp_path / "moved"
    data.parent.rename(moved)
    monkeypatch.delenv("PROSEVAL_WRITINGBENCH_DIR")
    line = refusal_line(runner.invoke(app, ["agreement", str(source), str(rescore)]), 1)
    assert str(source) in line and "--data-dir PATH" in line and "no WritingBench data" in line
    assert "a bug in proseval" not in line
    result = runner.invoke(
        app,
        [
            "agreement",
            str(source),
            str(rescore),
            "--data-dir",
            str(moved / "benchmark_query"),
            "--json",
            str(tmp_path / "old.json"),
        ],
    )
    assert result.exit_code == 0, result.output
    rebuilt = json.loads((tmp_path / "old.json").read_text())
    assert [(c["judge"], c["n_ratings"], c["mean"]) for c in rebuilt["cards"]] == [
        (c.judge, c.n_ratings, c.mean) for c in recorded.cards
    ]
    assert rebuilt["pairs"][0]["overall"] == recorded.pairs[0].overall.model_dump()


# repeats ----------------------------------------------------------------------------------------
@pytest.fixture
def repeated(tmp_path, scripts):
    """A random judge (a fresh 1-10 on every call) on the demo, then `score --repeats 2` three times:
    as asked, again (replayed from the cache) and again with another request timeout (which the
    cache ignores: replayed too, under other settings)."""
    draws = random.Random(7)
    rnd = scripts("rnd", lambda messages: json.dumps({"score": draws.randint(1, 10), "reason": "dice"}))
    source = proseval.run("demo", model=scripts("rw", writer(60)), roles={"judge": rnd}, out=tmp_path).path
    first = [r.path for r in proseval.score(source, repeats=2)]
    again = [r.path for r in proseval.score(source, repeats=2)]
    other_timeout = [
        r.path for r in proseval.score(source, roles={"judge": rnd}, repeats=2, gen={"judge": {"timeout": 300}})
    ]
    return source, first, again, other_timeout


def test_replayed_repeats_count_once(repeated):
    source, first, again, other_timeout = repeated
    honest = proseval.agreement([source, *first]).cards[0].consistency
    assert honest.repeats == 3 and honest.n_items == 8
    analysis = proseval.agreement([source, *first, *again, *other_timeout])
    assert analysis.cards[0].consistency == honest
    assert analysis.cards[0].cost.items == 3 * 8  # the set-aside folders are not counted as ratings either
    aside = {Path(a.path).name: (a.reason, Path(a.kept).name) for a in analysis.set_aside}
    assert aside == {
        again[0].name: ("duplicate", first[0].name),
        again[1].name: ("duplicate", first[1].name),
        other_timeout[0].name: ("replay", first[0].name),
        other_timeout[1].name: ("replay", first[1].name),
    }
    assert {Path(r.path).name for r in analysis.runs} == {p.name for p in (source, *first)}
    # Given in the other order, the folders whose judge was asked are still the ones kept.
    backwards = proseval.agreement([*other_timeout, *again, *first, source])
    assert {Path(a.path).name: (a.reason, Path(a.kept).name) for a in backwards.set_aside} == aside


def test_a_new_repeat_still_counts(repeated):
    source, first, _, _ = repeated
    third = proseval.score(source, repeats=3)  # repeats 1 and 2 replayed, 3 judged anew
    consistency = proseval.agreement([source, *first, *(r.path for r in third)]).cards[0].consistency
    assert consistency.repeats == 4


def test_the_command_line_names_the_folders_set_aside(repeated, monkeypatch):
    monkeypatch.setenv("COLUMNS", "3000")
    source, first, again, other_timeout = repeated
    result = runner.invoke(app, ["agreement", str(source), *map(str, first + again + other_timeout)])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 4
    assert any(
        str(again[0]) in w and "same judge, settings and repeat number" in w and w.endswith(str(first[0]))
        for w in warnings
    )
    assert any(
        str(other_timeout[1]) in w and "replayed from the response cache" in w and w.endswith(str(first[1]))
        for w in warnings
    )

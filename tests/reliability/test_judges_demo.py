"""The judge-reliability analysis end to end on the demo: scripted judges with planted properties
(noise, a length preference, failures) re-judge stored answers, and the evaluator cards recover
what was planted; human labels, panels, repeats and the command line."""

from __future__ import annotations

import html
import json
import statistics

import pytest
from typer.testing import CliRunner

import proseval
from proseval.cli import app
from proseval.reliability.labels import Label, append_label
from support.planted import judge, planted_quality, writer

runner = CliRunner()


@pytest.fixture
def judged(tmp_path, scripts):
    """Two candidates (about 50 and 200 words) on the demo, 4 epochs, judged by a fair judge; then
    a noisy judge 3 times, a judge that adds 1 point per doubling of length, and one that fails
    every 5th reply."""
    short, long = scripts("short", writer(50, seed=1)), scripts("long", writer(200, seed=2))
    fair = scripts("j-fair", judge("fair"))
    noisy = scripts("j-noisy", judge("noisy", noise=2, seed=3))
    lengthy = scripts("j-lengthy", judge("lengthy", slope=1.0))
    flaky = scripts("j-flaky", judge("flaky", fail_every=5))
    sources = [proseval.run("demo", model=m, roles={"judge": fair}, out=tmp_path, epochs=4).path for m in (short, long)]
    paths = list(sources)
    for source in sources:
        paths += [r.path for r in proseval.score(source, roles={"judge": noisy}, repeats=3)]
        paths += [r.path for r in proseval.score(source, roles={"judge": lengthy})]
        paths += [r.path for r in proseval.score(source, roles={"judge": flaky})]
    return sources, paths


def card(analysis, judge_name):
    return next(c for c in analysis.cards if c.judge == f"scripted/{judge_name}")


def test_cards_recover_planted_properties(judged):
    sources, paths = judged
    analysis = proseval.agreement(paths)
    fair, noisy, lengthy, flaky = (card(analysis, n) for n in ("j-fair", "j-noisy", "j-lengthy", "j-flaky"))
    assert fair.n_ratings == noisy.n_ratings == 2 * 8 * 4  # 2 candidates x 8 prompts x 4 epochs
    # Consistency: only the noisy judge was repeated; its planted error is uniform on -2..2 (sd 1.41).
    assert fair.consistency is None and noisy.consistency is not None
    assert noisy.consistency.repeats == 3 and noisy.consistency.n_items == 64
    assert 0.9 < noisy.consistency.mean_sd < 1.6
    assert noisy.consistency.changed_share > 0.7
    # Length: the lengthy judge's planted slope is 1 point per doubling; the fair judge has none.
    assert lengthy.length.slope_per_doubling == pytest.approx(1.0, abs=0.15)
    assert abs(fair.length.slope_per_doubling) < 0.05
    beta = lengthy.length.slope_per_doubling_ci
    assert beta.low < 1.0 < beta.high and beta.resamples >= 100  # the interval covers the planted slope
    raw = {s: m["raw"] for s, m in lengthy.length.systems.items()}
    controlled = {s: m["length_controlled"] for s, m in lengthy.length.systems.items()}
    assert raw["scripted/long"] - raw["scripted/short"] > 1.5  # 4x longer: about 2 points more, raw
    assert abs(controlled["scripted/long"] - controlled["scripted/short"]) < 0.3  # the same quality
    # Failures: every 5th reply of the flaky judge is unparsable: unscored, never a value.
    assert flaky.n_unscored == pytest.approx(64 / 5, abs=1)
    assert flaky.unscored_rate == flaky.n_unscored / 64
    assert flaky.other_judges["scripted/j-fair"].n == 64 - flaky.n_unscored
    assert flaky.other_judges["scripted/j-fair"].exact == 1.0  # where it answered, it is the fair judge
    # Agreement: the fair and the flaky judge agree perfectly; the noisy one less.
    assert fair.other_judges["scripted/j-noisy"].spearman < fair.other_judges["scripted/j-flaky"].spearman
    noisy_rho = fair.other_judges["scripted/j-noisy"].intervals["spearman"]
    assert noisy_rho.low < fair.other_judges["scripted/j-noisy"].spearman < noisy_rho.high < 1.0


def test_a_better_candidate_that_writes_longer_is_not_length_bias(tmp_path, scripts):
    """The long candidate is 2 points better: a fair judge has no length bias, although within each
    sample the longer answer scores higher."""
    fair = scripts("fair-q", judge())
    paths = [
        proseval.run(
            "demo", model=scripts(name, writer(words, better=better)), roles={"judge": fair}, out=tmp_path, epochs=4
        ).path
        for name, words, better in (("s", 50, 0), ("l", 200, 2))
    ]
    bias = proseval.agreement(paths).cards[0].length
    assert bias.within_sample_slope > 0.8  # the quality gap, seen through length
    assert bias.slope_per_doubling == pytest.approx(0.0, abs=0.2)  # net of the candidates' own levels
    raw = {s: m["raw"] for s, m in bias.systems.items()}
    controlled = {s: m["length_controlled"] for s, m in bias.systems.items()}
    assert raw["scripted/l"] - raw["scripted/s"] == pytest.approx(2.0)
    assert controlled["scripted/l"] - controlled["scripted/s"] == pytest.approx(2.0, abs=0.4)


def test_panel_scores_skip_unscored_judges(judged):
    _, paths = judged
    analysis = proseval.agreement(paths)
    panel = analysis.panels[0]
    assert panel.judges == sorted(f"scripted/{n}" for n in ("j-fair", "j-flaky", "j-lengthy", "j-noisy"))
    assert panel.n_items == 64 and panel.n_unscored == 0
    flaky_failures = card(analysis, "j-flaky").n_unscored
    assert panel.n_partial == flaky_failures
    for item in analysis.panel_items:
        scored = [v for v in item.values.values() if v is not None]
        assert item.judges_scored == len(scored)
        assert item.score == pytest.approx(statistics.fmean(scored))
    assert panel.most_disagreed and all(
        len({v for v in i.values.values() if v is not None}) > 1 for i in panel.most_disagreed
    )


def test_human_labels_agreement_and_unknown_samples(judged, tmp_path):
    sources, paths = judged
    labels = tmp_path / "labels.jsonl"
    run_ids = [json.loads((s / "header.json").read_text())["run_id"] for s in sources]
    expected = {}
    for run_id, source in zip(run_ids, sources):
        for line in (source / "samples.jsonl").read_text().splitlines():
            record = json.loads(line)
            quality = planted_quality(record["input"])
            expected[(run_id, record["id"], record["epoch"])] = quality
            append_label(
                labels,
                Label(
                    sample_id=record["id"],
                    epoch=record["epoch"],
                    run=run_id,
                    criterion="quality",
                    score=quality,
                    rater="ana",
                ),
            )
            append_label(
                labels,
                Label(
                    sample_id=record["id"],
                    epoch=record["epoch"],
                    run=run_id,
                    criterion="quality",
                    score=quality + (1 if record["epoch"] % 2 else 0),
                    rater="ben",
                ),
            )
    append_label(labels, Label(sample_id="no-such-sample", run=run_ids[0], criterion="quality", score=3, rater="ana"))
    analysis = proseval.agreement(paths, labels=labels)
    assert analysis.labels.unmatched == 1 and analysis.labels.matched == 2 * 64
    fair = card(analysis, "j-fair")
    assert fair.humans.per_rater["ana"].exact == 1.0 and fair.humans.per_rater["ana"].spearman == 1.0
    assert fair.humans.per_rater["ben"].exact == 0.5  # ben adds 1 on odd epochs
    assert fair.humans.per_rater["ben"].within_one == 1.0
    assert fair.humans.vs_human_mean.mean_difference == pytest.approx(-0.25)
    assert analysis.rater_agreement.raters == ["ana", "ben"]
    noisy = card(analysis, "j-noisy")
    assert noisy.humans.per_rater["ana"].spearman < fair.humans.per_rater["ana"].spearman

    # every figure a reviewer asks about has its interval, which covers it
    def covered(value, interval):
        return interval is not None and interval.low <= value <= interval.high

    # the raters score both candidates' answers to a prompt alike: no pair to order, and the page says why
    assert noisy.humans.n_pairs == 0 and noisy.humans.pairwise_consistency is None
    raters = analysis.rater_agreement
    assert covered(raters.alpha, raters.alpha_ci) and raters.alpha_ci.low < raters.alpha_ci.high
    assert covered(raters.mean_pairwise_spearman, raters.mean_pairwise_spearman_ci)
    systems = [p.system for p in analysis.pairs if p.system is not None and p.system.kendall_tau_b is not None]
    assert systems and all(covered(s.kendall_tau_b, s.kendall_tau_b_ci) for s in systems)
    assert all(covered(g.alpha, g.alpha_ci) for g in analysis.groups if g.alpha is not None) and analysis.groups
    # the HTML page shows every table, cell and sentence the terminal prints
    from rich.console import Console

    from proseval.reliability.render import analysis_lines, analysis_tables, print_analysis
    from proseval.report.judges import write_analysis_page

    console = Console(record=True, width=400)
    print_analysis(analysis, console)
    terminal = " ".join(console.export_text().split())
    write_analysis_page(analysis, tmp_path / "agreement.html")
    page = html.unescape((tmp_path / "agreement.html").read_text(encoding="utf-8"))
    shown = [t for t in analysis_tables(analysis) if t.terminal]
    assert len(shown) >= 5 and any("against each human rater" in t.title for t in shown)
    for table in shown:
        assert table.title in terminal and table.title in page
        for cell in (c for row in table.rows for c in row):
            assert cell in page
    for line in analysis_lines(analysis):
        assert " ".join(line.split()) in terminal and line in page
    assert "pairwise consistency: — (no two answers to the same instruction scored differently" in terminal


def test_repeats_have_their_own_cache_entries_and_replay_them(tmp_path, scripts):
    calls = []

    def counting(messages):
        calls.append(1)
        return json.dumps({"score": 1 + len(calls) % 10, "reason": "changes every call"})

    source = proseval.run(
        "demo", model=scripts("w", writer(60)), roles={"judge": scripts("count", counting)}, out=tmp_path, limit=3
    ).path
    first = proseval.score(source, repeats=2)
    assert [json.loads((r.path / "header.json").read_text())["repeat"] for r in first] == [1, 2]
    assert len(calls) == 3 + 2 * 3  # repeats are not served the source run's cached answers
    values = [[rec.scores["quality"].value for rec in r.records()] for r in first]
    again = proseval.score(source, repeats=2)
    assert len(calls) == 9  # the same repeats again: replayed from the cache
    assert [[rec.scores["quality"].value for rec in r.records()] for r in again] == values


def test_command_line_panel_agreement_and_report(tmp_path, scripts, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    candidate, fair, lengthy = scripts("w2", writer(80)), scripts("fair2", judge()), scripts("long2", judge(slope=1))
    result = runner.invoke(
        app,
        [
            "run",
            "demo",
            "--model",
            candidate,
            "--role",
            f"judge={fair}",
            "--panel",
            f"judge={lengthy}",
            "--out",
            str(tmp_path),
            "--display",
            "none",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "Panel of 2 judges" in result.output
    panels = list(tmp_path.glob("*-panel"))
    assert len(panels) == 1 and (panels[0] / "panel.jsonl").is_file()
    runs = sorted(p for p in tmp_path.iterdir() if (p / "header.json").is_file())
    assert len(runs) == 2
    prices = tmp_path / "prices.yaml"
    prices.write_text("currency: EUR\nmodels:\n  scripted/fair2: {input: 1.0, output: 2.0}\n")
    out = tmp_path / "analysis"
    result = runner.invoke(
        app, ["agreement", *map(str, runs), "--prices", str(prices), "-o", str(out)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "results.json").read_text())
    fair_card = next(c for c in saved["cards"] if c["judge"] == fair)
    assert fair_card["cost"]["currency"] == "EUR" and fair_card["cost"]["price_per_1000"] is not None
    page = (out / "report.html").read_text()
    assert "Evaluator cards" in page and 'id="judges-panel-0"' in page
    report = tmp_path / "report.html"
    result = runner.invoke(app, ["report", *map(str, runs), "-o", str(report)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert 'id="judges"' in report.read_text()


def test_command_line_refuses_bad_inputs_before_any_request(tmp_path, scripts):
    result = runner.invoke(
        app,
        [
            "run",
            "demo",
            "--model",
            "scripted/echo",
            "--role",
            "judge=scripted/echo",
            "--panel",
            "judge=nonsense",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 2 and "--panel" in result.output
    assert not any(tmp_path.iterdir())
    source = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, out=tmp_path, limit=1).path
    bad = tmp_path / "labels.csv"
    bad.write_text("sample_id,criterion,rater,score\ndemo/poem-autumn,quality,ana,seven\n")
    result = runner.invoke(app, ["agreement", str(source), "--labels", str(bad)])
    assert result.exit_code == 1 and "labels.csv:2" in result.output
    result = runner.invoke(app, ["agreement", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "not a run folder" in result.output
    result = runner.invoke(app, ["score", str(source), "--swap-order"])
    assert result.exit_code == 2 and "no two texts" in result.output

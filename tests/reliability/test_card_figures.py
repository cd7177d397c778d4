"""The figures of the evaluator cards, on planted verdicts with known answers: the items each figure
rests on, "—" with its reason where a figure is undefined, the single-candidate length slope,
human labels checked against the judges' scales and matched only to what a judge rated, and the
raters' own agreement shown as context beside a leave-one-rater-out comparison."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import proseval
from proseval.cli import app
from proseval.core.ratings import Scale
from proseval.errors import DataError
from proseval.reliability.analysis import analyse_judgements
from proseval.reliability.collect import JudgedRun, Judgements, Verdict
from proseval.reliability.labels import read_labels
from proseval.reliability.render import DASH, card_cells, print_analysis
from proseval.reliability.stats import alpha, length
from proseval.runtime.records import RoleBinding, RunHeader
from support.core import refusal_line

SCALE = Scale(1, 10)
Values = dict[tuple[str, str], float | None]  # (sample id, criterion) -> verdict


def header(run_id: str, judge: str) -> RunHeader:
    return RunHeader(
        run_id=run_id,
        task="t",
        task_version="1",
        roles={"judge": RoleBinding(spec=judge)},
        config_hash="0",
        package_version="0",
        python="3",
        platform="test",
        started_at="2026-01-01T00:00:00+00:00",
    )


def judgements(
    judges: dict[str, Values],
    answers: str = "src",
    lengths: dict[str, int] | None = None,
    more: Judgements | None = None,
) -> Judgements:
    """Each judge a run (a re-score) of the answers of run `answers`, written by one candidate;
    `lengths` gives each sample's answer its words; `more` adds the runs of other answers."""
    found = more or Judgements(runs=[], verdicts=[])
    for judge, values in judges.items():
        index = len(found.runs)
        found.runs.append(
            JudgedRun(
                index,
                Path(f"/runs/{answers}-{judge}"),
                header(f"{answers}-{judge}", judge),
                answers,
                f"cand/{answers}",
                {"judge": judge},
                {},
                identity=f"{answers}/{judge}",
                replies=f"{answers}/{judge}",
                replayed=False,
            )
        )
        found.verdicts += [
            Verdict(index, (answers, sample, 0), criterion, "judge", value, SCALE)
            for (sample, criterion), value in values.items()
        ]
    found.lengths.update({(answers, sample, 0): words for sample, words in (lengths or {}).items()})
    return found


def printed(analysis) -> str:
    console = Console(record=True, width=400)
    print_analysis(analysis, console)
    return " ".join(console.export_text().split())  # tables wrap their titles


def quality(*values: float | None) -> Values:
    return {(f"s{i}", "quality"): v for i, v in enumerate(values, start=1)}


# counts and undefined figures ---------------------------------------------------------------------
def test_group_alpha_is_on_the_items_two_judges_scored():
    # s1 is scored by three judges and s2 by two; s3 and s4 by the first judge only (the others'
    # verdicts unscored): alpha rests on 2 items, not 4.
    found = judgements(
        {"a/one": quality(2, 4, 6, 8), "b/two": quality(3, 5, None, None), "c/three": quality(2, None, None, None)}
    )
    group = analyse_judgements(found).groups[0]
    assert group.n_items == 2
    assert group.alpha == pytest.approx(alpha.krippendorff_alpha([[2, 4], [3, 5], [2, None]], "ordinal"))
    ci = group.alpha_ci
    assert ci is not None and ci.low is not None and ci.low <= group.alpha <= ci.high  # resampling those 2 items
    assert f"= {group.alpha:.2f} [{ci.low:.2f}, {ci.high:.2f}] on 2 items scored by two or more" in printed(
        analyse_judgements(found)
    )


def test_alpha_on_one_item_is_undefined_not_zero():
    # With one pairable item alpha is 0 whatever the verdicts (observed = expected disagreement).
    found = judgements({"a/one": quality(2, 7), "b/two": quality(5, None), "c/three": quality(9, None)})
    analysis = analyse_judgements(found)
    group = analysis.groups[0]
    assert (group.n_items, group.alpha) == (1, None)
    assert group.note == "fewer than 2 items scored by two judges"
    assert analysis.pairs[0].overall.n == 1 and analysis.pairs[0].overall.alpha is None
    assert f"= {DASH} (fewer than 2 items scored by two judges) on 1 item scored by two or more" in printed(analysis)


def test_every_dash_on_a_card_says_why():
    found = judgements({"vendor/lone": quality(7), "vendor/mute": quality(None)}, lengths={"s1": 100})
    analysis = analyse_judgements(found)
    lone, mute = (next(c for c in analysis.cards if c.judge == j) for j in ("vendor/lone", "vendor/mute"))
    cells = dict(
        zip(
            (
                "task",
                "judge",
                "ratings",
                "unscored",
                "mean",
                "humans",
                "others",
                "repeats",
                "length",
                "position",
                "self",
                "cost",
            ),
            card_cells(lone),
        )
    )
    assert cells["humans"] == f"{DASH} (no labels given)"
    assert cells["others"] == f"{DASH} (ρ undefined: under 2 shared items or a constant judge)"
    assert cells["repeats"] == f"{DASH} (not repeated)"
    assert cells["length"] == f"{DASH} (no two verdicts to compare within a run)"
    assert cells["position"] == f"{DASH} (no --swap-order re-score)"
    assert cells["self"] == f"{DASH} (no candidate of its family)"
    assert cells["cost"] == f"{DASH} (no usage recorded: no results.json)"
    assert card_cells(mute)[4] == f"{DASH} (nothing scored)"
    for card in analysis.cards:
        assert DASH not in card_cells(card)  # no bare dash: each has its reason
        assert card.missing == {k: v for k, v in card.missing.items() if v}


# length bias with one candidate ---------------------------------------------------------------------
LENGTHS = {f"s{k + 1}": 50 * 2**k for k in range(6)}  # 50 .. 1600 words: log2 steps of 1


def test_length_slope_within_a_run_with_criterion_fixed_effects():
    """One candidate, one answer per sample. The planted judge gives 1 point per doubling of length
    on every criterion; "style" sits 3 points above "quality" and is rated on the three longest
    answers only; each "own-k" criterion is rated on one answer (as WritingBench's are written
    per query). With a level per criterion the slope is exactly 1; pooled, it is not."""
    values: Values = {}
    for k, sample in enumerate(LENGTHS):
        values[(sample, "quality")] = 2 + k
        values[(sample, f"own-{k}")] = 2 + k
        if k >= 3:
            values[(sample, "style")] = 5 + k
    bias = analyse_judgements(judgements({"v/lengthy": values}, lengths=LENGTHS)).cards[0].length
    assert bias.within_run_slope == pytest.approx(1.0)
    assert bias.n_within_run == 6 + 6 + 3
    assert bias.slope_per_doubling is None and bias.note.startswith("needs two or more answers per sample")
    items = list(values)
    pooled = length.length_slope([values[i] for i in items], [LENGTHS[s] for s, _ in items], ["run"] * len(items))
    assert pooled.slope > 1.2  # without a level per criterion the style items pass for length bias
    card = analyse_judgements(judgements({"v/lengthy": values}, lengths=LENGTHS)).cards[0]
    # Every resample of exact data has the same slope: the interval is the point.
    assert card_cells(card)[8] == "+1.00 [+1.00, +1.00]/2× within run"


def test_the_two_candidate_beta_is_shown_beside_it():
    # Two candidates answer the same 3 samples at different lengths; 1 point per doubling throughout.
    short = {"s1": 50, "s2": 100, "s3": 400}
    long = {"s1": 200, "s2": 800, "s3": 800}

    def scores(lengths: dict[str, int]) -> Values:
        return {(s, "quality"): 2 + math.log2(words / 50) for s, words in lengths.items()}

    found = judgements(
        {"v/j": scores(long)},
        answers="long",
        lengths=long,
        more=judgements({"v/j": scores(short)}, answers="short", lengths=short),
    )
    bias = analyse_judgements(found).cards[0].length
    assert bias.slope_per_doubling == pytest.approx(1.0) and bias.within_run_slope == pytest.approx(1.0)
    assert (
        card_cells(analyse_judgements(found).cards[0])[8]
        == "+1.00 [+1.00, +1.00]/2× within run; β +1.00 [+1.00, +1.00]/2×"
    )


# human labels --------------------------------------------------------------------------------------
def labels_file(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "labels.csv"
    path.write_text("sample_id,criterion,rater,score\n" + "".join(f"{row}\n" for row in rows), encoding="utf-8")
    return path


def test_scores_off_the_judges_scale_are_refused_with_their_lines(tmp_path):
    found = judgements({"v/j": quality(3, 5, 7)})
    path = labels_file(
        tmp_path,
        "s1,quality,ana,3",
        "s1,quality,ben,12",
        "s2,quality,ana,42",
        "s3,quality,ana,-3",
        "s3,quality,ben,7.5",
        "s2,quality,ben,10",
    )
    with pytest.raises(DataError) as caught:
        analyse_judgements(found, labels=read_labels(path))
    message = str(caught.value)
    assert ": 4 problems in the labels file" in message
    for line, shown in ((3, "12"), (4, "42"), (5, "-3"), (6, "7.5")):
        assert f"labels.csv:{line}: score: {shown} is not on the scale of 'quality' (ordinal 1-10)" in message
    assert "labels.csv:2:" not in message and "labels.csv:7:" not in message


def test_at_most_20_scale_problems_are_listed(tmp_path):
    path = labels_file(tmp_path, *(f"s1,quality,r{n},11" for n in range(23)))
    with pytest.raises(DataError) as caught:
        analyse_judgements(judgements({"v/j": quality(3)}), labels=read_labels(path))
    assert ": 23 problems" in str(caught.value) and "labels.csv:21:" in str(caught.value)
    assert "labels.csv:22:" not in str(caught.value) and "and 3 more" in str(caught.value)


def test_labels_that_match_nothing_rated_are_unmatched(tmp_path, monkeypatch):
    found = judgements({"v/j": quality(3, 5, 7)})
    path = labels_file(tmp_path, "s1,qualty,ana,3", "s2,qualty,ana,5", "s1,qualty,ben,4", "s9,quality,ben,6")
    analysis = analyse_judgements(found, labels=read_labels(path))
    summary = analysis.labels
    assert (summary.matched, summary.unmatched, summary.ambiguous) == (0, 4, 0)
    assert summary.unmatched_examples == ["*/s1#0 qualty", "*/s2#0 qualty", "*/s1#0 qualty", "*/s9#0 quality"]
    assert summary.unrated_criteria == ["qualty"]
    assert analysis.rater_agreement is None and analysis.cards[0].humans is None
    assert analysis.cards[0].missing["vs humans"] == "no label on its items"
    text = printed(analysis)
    assert "4 label(s) from 2 rater(s), 0 matched" in text
    assert "4 human label(s) unmatched" in text and "no judge rated the criteria 'qualty'" in text
    assert "Agreement among" not in text


def test_the_command_line_refuses_a_score_off_the_scale(tmp_path, scripts):
    source = proseval.run("demo", model="scripted/echo", roles={"judge": "scripted/echo"}, out=tmp_path, limit=1).path
    sample = next(iter(proseval.read_run(source).records())).id
    path = labels_file(tmp_path, f"{sample},quality,ana,12")
    line = refusal_line(CliRunner().invoke(app, ["agreement", str(source), "--labels", str(path)]), 1)
    assert "labels.csv: 1 problem in the labels file" in line
    # the problem itself follows on the next line, with its file and line
    result = CliRunner().invoke(app, ["agreement", str(source), "--labels", str(path)])
    assert "labels.csv:2: score: 12 is not on the scale of 'quality' (ordinal 1-10)" in result.output


# humans: context and leave-one-rater-out --------------------------------------------------------------
def test_raters_agreement_is_context_beside_leave_one_rater_out(tmp_path):
    """The judge gives the truth t = 3..8. Two raters err in opposite directions (t ± 1), so their mean
    is t: the judge agrees with the raters' mean perfectly (ρ 1), more than the raters agree with
    each other (ρ 0.486, by hand below) — inter-rater agreement is no ceiling."""
    truth = [3, 4, 5, 6, 7, 8]
    ana = [4, 3, 6, 5, 8, 7]  # ranks 2 1 4 3 6 5
    ben = [2, 5, 4, 7, 6, 9]  # ranks 1 3 2 5 4 6
    path = labels_file(
        tmp_path,
        *(
            f"s{i},quality,{rater},{v}"
            for rater, values in (("ana", ana), ("ben", ben))
            for i, v in enumerate(values, start=1)
        ),
    )
    analysis = analyse_judgements(judgements({"v/j": quality(*truth)}), labels=read_labels(path))
    humans = analysis.cards[0].humans
    assert humans.vs_human_mean.spearman == pytest.approx(1.0)
    rho_ana_ben = 1 - 6 * 18 / (6 * 35)  # squared rank differences 1+4+4+4+4+1
    assert analysis.rater_agreement.mean_pairwise_spearman == pytest.approx(rho_ana_ben)
    # Leaving ana out, the others' mean is ben: ana vs ben 0.486, the judge vs ben 1 - 6*4/210.
    assert humans.leave_one_out["ana"].n == 6
    assert humans.leave_one_out["ana"].rater.spearman == pytest.approx(rho_ana_ben)
    assert humans.leave_one_out["ana"].judge.spearman == pytest.approx(1 - 6 * 4 / 210)
    # Leaving ben out: ben vs ana 0.486, the judge vs ana 1 - 6*6/210.
    assert humans.leave_one_out["ben"].rater.spearman == pytest.approx(rho_ana_ben)
    assert humans.leave_one_out["ben"].judge.spearman == pytest.approx(1 - 6 * 6 / 210)
    text = printed(analysis)
    assert "as context (not a bound on a judge's agreement with them" in text
    assert "ceiling" not in text
    assert "against the mean of the other raters" in text

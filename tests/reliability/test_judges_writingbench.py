"""The judge-reliability analysis end to end on WritingBench (official queries, one judge call per
criterion): scripted judges with planted properties re-judge stored answers, and the evaluator
cards recover what was planted. Every expected value below is derived from the planted writers
and judges (tests/support/planted.py), not copied from a run."""

from __future__ import annotations

import itertools
import json
import math
import statistics

import pytest

import proseval
from proseval.core.closeness import count_words
from support.planted import FILLER, QUALITY, judge, writer

QUERIES = 30  # English queries of the official data, 5 criteria each
CRITERIA = 5
NOISE = 2  # the noisy judge adds a uniform integer error in -2..2, fresh on every call
SLOPE = 1.0  # the lengthy judge adds 1 point per doubling of the answer's length


def wb_reply(kind: str):
    """A reply as WritingBench's per-criterion parser expects it: one JSON object with an integer
    "score" and a "reason", here fenced after a line of prose (the parser takes the last object)."""
    return lambda score: f"My verdict:\n```json\n{json.dumps({'score': score, 'reason': f'{kind} judge'})}\n```"


@pytest.fixture
def judged(tmp_path, scripts, shared_dir):
    """Two candidates (about 50 and 200 words, each 2**±1 around that) answer 30 English
    WritingBench queries judged by a fair judge; then a noisy judge judges them 3 times and a
    length-loving judge once."""
    data = shared_dir / "data" / "writingbench"
    if not (data / "benchmark_query").is_dir():
        pytest.skip(f"official WritingBench data not found at {data}")
    params = {"data_dir": str(data), "lang": "en", "order": "interleaved"}
    short, long = scripts("wb-short", writer(50, seed=1)), scripts("wb-long", writer(200, seed=2))
    fair = scripts("wbj-fair", judge("fair", reply=wb_reply("fair")))
    noisy = scripts("wbj-noisy", judge("noisy", noise=NOISE, seed=3, reply=wb_reply("noisy")))
    lengthy = scripts("wbj-lengthy", judge("lengthy", slope=SLOPE, reply=wb_reply("lengthy")))
    sources = [
        proseval.run("writingbench", model=m, roles={"judge": fair}, params=params, limit=QUERIES, out=tmp_path).path
        for m in (short, long)
    ]
    paths = list(sources)
    for source in sources:
        paths += [r.path for r in proseval.score(source, roles={"judge": noisy}, repeats=3)]
        paths += [r.path for r in proseval.score(source, roles={"judge": lengthy})]
    return sources, paths


def card(analysis, name):
    return next(c for c in analysis.cards if c.judge == f"scripted/{name}")


def pair(analysis, a, b):
    names = sorted((f"scripted/{a}", f"scripted/{b}"))
    return next(p for p in analysis.pairs if [p.a, p.b] == names)


def planted_answers(source):
    """(sample id, planted quality, filler words the judges count, words the analysis counts) of
    every stored answer of a source run."""
    found = []
    for line in (source / "samples.jsonl").read_text().splitlines():
        record = json.loads(line)
        output = record["state"]["output"]
        found.append(
            (record["id"], int(QUALITY.search(output).group(1)), len(FILLER.findall(output)), count_words(output))
        )
    return found


def expected_mean_sd(noise: int, repeats: int) -> float:
    """E[sample sd (ddof=1)] of `repeats` independent draws, uniform on the integers -noise..noise."""
    values = range(-noise, noise + 1)
    return statistics.fmean(statistics.stdev(draws) for draws in itertools.product(values, repeat=repeats))


def test_cards_recover_planted_properties_on_writingbench(judged):
    sources, paths = judged
    short, long = (planted_answers(s) for s in sources)
    assert len(short) == len(long) == QUERIES
    assert [a[0] for a in short] == [a[0] for a in long]
    assert [a[1] for a in short] == [a[1] for a in long]  # the planted quality is the query's, not the writer's
    analysis = proseval.agreement(paths)
    assert {c.task for c in analysis.cards} == {"writingbench"}
    fair, noisy, lengthy = (card(analysis, n) for n in ("wbj-fair", "wbj-noisy", "wbj-lengthy"))

    # Every criterion of every answer is one rating: 30 queries x 5 criteria x 2 candidates.
    n_items = QUERIES * CRITERIA * 2
    for c in (fair, noisy, lengthy):
        assert c.n_ratings == n_items and c.n_unscored == 0 and c.scale == "ordinal 1-10"
        assert c.candidates == ["scripted/wb-long", "scripted/wb-short"]
    # One judge call per criterion; the noisy judge's three repeats are all paid for.
    assert fair.cost.requests == fair.cost.items == n_items
    assert noisy.cost.requests == noisy.cost.items == 3 * n_items

    # The fair judge gives every criterion the planted quality: its mean is the mean planted quality.
    qualities = [q for _, q, _, _ in short + long]
    assert fair.mean == pytest.approx(statistics.fmean(qualities))

    # Consistency: only the noisy judge was repeated. Its per-item sd over 3 repeats has expectation
    # E[s] (about 1.29 for -2..2, by enumeration of the 125 triples) and per-item sd about 0.6 over 300 items (standard
    # error about 0.04): a band of +-0.15. Its variance is unbiased: 2, with standard error about 0.09.
    assert fair.consistency is None and lengthy.consistency is None
    assert noisy.consistency.repeats == 3 and noisy.consistency.n_items == n_items
    planted_sd = expected_mean_sd(NOISE, 3)
    assert 1.2 < planted_sd < 1.3
    assert noisy.consistency.mean_sd == pytest.approx(planted_sd, abs=0.15)
    assert noisy.consistency.mean_variance == pytest.approx(NOISE * (NOISE + 1) / 3, abs=0.4)
    assert noisy.consistency.changed_share == pytest.approx(1 - 5 / 125, abs=0.05)  # all three equal: 5 of 125

    # Fair against noisy: equal when the error is 0 (1 in 5), within one point when it is -1..1 (3 in 5);
    # the noise is centred, so no mean difference (+-0.3: about 4 standard errors of a mean of 300 draws).
    versus = fair.other_judges["scripted/wbj-noisy"]
    assert versus.n == n_items
    assert versus.exact == pytest.approx(1 / 5, abs=0.08)  # standard errors about 0.025
    assert versus.within_one == pytest.approx(3 / 5, abs=0.1)
    assert versus.mean_difference == pytest.approx(0, abs=0.3)
    assert fair.other_judges["scripted/wbj-lengthy"].n == n_items

    # Length. The fair judge ignores length: the two answers to a query get the same score, so the
    # within-query slope is exactly 0 and both candidates' means are the mean planted quality.
    assert fair.length.slope_per_doubling == pytest.approx(0, abs=1e-9)
    assert fair.length.n == 2 * QUERIES
    for means in fair.length.systems.values():
        assert means["raw"] == means["length_controlled"] == pytest.approx(statistics.fmean(qualities))
    # The noisy judge has no length preference: its error (variance 2 per criterion, 0.4 on an
    # answer's mean of 5) gives the slope a standard error of about 0.08; tolerance 0.3.
    assert noisy.length.slope_per_doubling == pytest.approx(0, abs=0.3)
    # The lengthy judge scores quality + log2(filler words / 100), rounded. Its expected slope is 1
    # per doubling of the filler the judge counts; the analysis measures length with count_words,
    # which also counts the 3 words of the quality token, so the expected slope is the within-query
    # regression of the planted log-length on the measured one (a little over 1). Rounding to whole
    # points leaves an error of sd 0.29 per answer: about 0.04 on the slope; tolerance 0.12 (3 of those).
    planted_x = [math.log2(a[2]) - math.log2(b[2]) for a, b in zip(long, short)]
    measured_x = [math.log2(a[3]) - math.log2(b[3]) for a, b in zip(long, short)]
    expected_slope = SLOPE * sum(p * m for p, m in zip(planted_x, measured_x)) / sum(m * m for m in measured_x)
    assert 1.0 < expected_slope < 1.1
    assert lengthy.length.slope_per_doubling == pytest.approx(expected_slope, abs=0.12)

    # Raw means are what the judge gave; the longer candidate (4x the words) is about 2 points ahead.
    def planted_score(answer):
        return max(1, min(10, round(answer[1] + SLOPE * math.log2(answer[2] / 100))))

    systems = lengthy.length.systems
    assert systems["scripted/wb-short"]["raw"] == pytest.approx(statistics.fmean(map(planted_score, short)))
    assert systems["scripted/wb-long"]["raw"] == pytest.approx(statistics.fmean(map(planted_score, long)))
    raw_gap = systems["scripted/wb-long"]["raw"] - systems["scripted/wb-short"]["raw"]
    assert raw_gap == pytest.approx(SLOPE * statistics.fmean(planted_x), abs=0.3)  # about 2
    assert raw_gap > 1.5
    # Length-controlled, the two candidates are the same quality. The controlled gap is
    # (1 - beta) x the mean log-length gap (about 2) plus the mean rounding error; beta rests on the
    # spread of the length ratio across 30 queries (standard error about 0.1): tolerance 0.5.
    controlled = {name: means["length_controlled"] for name, means in systems.items()}
    controlled_gap = controlled["scripted/wb-long"] - controlled["scripted/wb-short"]
    assert abs(controlled_gap) < 0.5
    assert abs(controlled_gap) < raw_gap / 3

    # System level over the 2 candidates: the fair judge gives both the same mean (same queries, same
    # qualities), so its ranking is a tie and Kendall's tau with any judge is undefined (None), while
    # the comparison itself is there. The lengthy judge ranks the long candidate first; the noisy one
    # ranks them by its noise, so tau between those two is +1 or -1 (None only if its two means tie
    # exactly, about 1 chance in 60 for sums of 150 draws).
    fair_noisy = pair(analysis, "wbj-fair", "wbj-noisy").system
    assert fair_noisy is not None and fair_noisy.n_models == 2
    assert fair_noisy.kendall_tau_b is None
    assert len(set(fair_noisy.means_a.values())) == 1  # pairs are named in order: a is the fair judge
    lengthy_noisy = pair(analysis, "wbj-lengthy", "wbj-noisy").system
    noisy_tie = len(set(lengthy_noisy.means_b.values())) == 1
    assert lengthy_noisy.kendall_tau_b is None if noisy_tie else lengthy_noisy.kendall_tau_b in (-1.0, 1.0)
    assert lengthy_noisy.ranking_a == ["scripted/wb-long", "scripted/wb-short"]  # a is the lengthy judge

    # Three judges: a group alpha and a panel over the same 300 items.
    assert analysis.groups and analysis.groups[0].n_items == n_items
    assert analysis.panels[0].n_items == n_items and analysis.panels[0].n_unscored == 0

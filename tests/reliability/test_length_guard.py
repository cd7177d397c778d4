"""No length-bias slope from too few answers or from lengths too alike: the card says why instead.
A judge that scores a handful of answers a few words apart would otherwise get a slope of hundreds
of points per doubling, extrapolated from a length difference the data never had."""

from __future__ import annotations

import math

import pytest

from proseval.reliability.analysis import analyse_judgements
from proseval.reliability.biases import MIN_LENGTH_ANSWERS, MIN_LENGTH_SPREAD, length_guard
from proseval.reliability.render import DASH, card_cells
from proseval.reliability.stats import length
from reliability.test_card_figures import judgements


def test_three_answers_ten_words_apart_get_no_slope_but_the_reason():
    # RAVEL-like: three manuscripts of about 300 words, scores far apart
    lengths = {"s1": 300, "s2": 305, "s3": 310}
    values = {("s1", "quality"): 9.0, ("s2", "quality"): 5.0, ("s3", "quality"): 1.0}
    card = analyse_judgements(judgements({"v/j": values}, lengths=lengths)).cards[0]
    assert card.length.within_run_slope is None and card.length.within_run_slope_ci is None
    assert card.length.within_run_note == f"too few answers: 3, needs {MIN_LENGTH_ANSWERS}"
    assert card_cells(card)[8] == f"{DASH} (too few answers: 3, needs {MIN_LENGTH_ANSWERS})"


def test_many_answers_of_nearly_one_length_get_no_slope():
    lengths = {f"s{k}": 300 + 2 * k for k in range(40)}  # 300 .. 378 words
    values = {(s, "quality"): float(k % 10) for k, s in enumerate(lengths)}
    card = analyse_judgements(judgements({"v/j": values}, lengths=lengths)).cards[0]
    assert card.length.within_run_slope is None
    assert card.length.within_run_note.startswith("lengths too alike: they spread 0.")
    assert card_cells(card)[8].startswith(f"{DASH} (lengths too alike")


def test_enough_answers_spread_over_doublings_keep_their_slope():
    lengths = {f"s{k}": round(100 * 2 ** (k / 4)) for k in range(12)}  # 100 .. about 670 words
    values = {(s, "quality"): 1 + math.log2(words / 100) for s, words in lengths.items()}
    card = analyse_judgements(judgements({"v/j": values}, lengths=lengths)).cards[0]
    assert card.length.within_run_slope == pytest.approx(1.0, abs=0.01)
    assert card_cells(card)[8].startswith("+1.00")


def test_the_two_candidate_beta_follows_the_same_rule():
    # two candidates, three samples: six answers, but each pair a few words apart
    short = {"s1": 300, "s2": 500, "s3": 700}
    long = {s: words + 6 for s, words in short.items()}
    found = judgements(
        {"v/j": {(s, "quality"): 8.0 for s in long}},
        answers="long",
        lengths=long,
        more=judgements({"v/j": {(s, "quality"): 2.0 for s in short}}, answers="short", lengths=short),
    )
    bias = analyse_judgements(found).cards[0].length
    assert bias.slope_per_doubling is None and bias.slope_per_doubling_ci is None
    assert bias.note.startswith("lengths too alike")


def test_the_guard_measures_spread_within_groups_in_doublings():
    assert length_guard([100] * (MIN_LENGTH_ANSWERS - 1), ["g"] * (MIN_LENGTH_ANSWERS - 1)).startswith("too few")
    # each group's answers are one length: however far apart the groups, nothing to learn a slope from
    assert length_guard([100, 100, 100, 800, 800, 800], list("aaabbb")).startswith("lengths too alike")
    # half the answers twice as long as the other half: a spread of half a doubling
    assert length.length_spread([100, 200] * 3, ["g"] * 6) == pytest.approx(0.5)
    assert length_guard([100, 200] * 3, ["g"] * 6) == "" and MIN_LENGTH_SPREAD < 0.5

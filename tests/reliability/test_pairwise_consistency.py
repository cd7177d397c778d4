"""C3EBench's judge-human pairwise consistency pairs two answers to the same instruction only."""

import pytest

from proseval.reliability.humans import pairwise_consistency

# Three instructions, three answers each. People score instruction "hard" low and "easy" high;
# the judge orders every pair of answers to one instruction as people do, but uses its own level
# per instruction, so it misorders most pairs across instructions.
HUMAN = [1, 2, 3, 4, 5, 6, 7, 8, 9]
JUDGE = [7, 8, 9, 4, 5, 6, 1, 2, 3]
INSTRUCTIONS = [("hard", 0, "q")] * 3 + [("mid", 0, "q")] * 3 + [("easy", 0, "q")] * 3


def test_a_judge_ordering_every_same_instruction_pair_correctly_scores_one():
    assert pairwise_consistency(JUDGE, HUMAN, INSTRUCTIONS) == 1.0


def test_pairs_across_instructions_are_not_counted():
    # All nine answers as one instruction: the 27 cross-instruction pairs, all misordered, now
    # count beside the 9 right ones (the reading that paired answers to different instructions).
    assert pairwise_consistency(JUDGE, HUMAN, [("one", 0, "q")] * 9) == pytest.approx(9 / 36)


def test_epochs_and_criteria_are_different_instructions():
    keys = [("s", 0, "q"), ("s", 0, "q"), ("s", 1, "q"), ("s", 0, "r")]
    # Only the first two are answers to the same instruction; the judge reverses them.
    assert pairwise_consistency([2, 1, 9, 9], [1, 2, 0, 5], keys) == 0.0


def test_ties_missing_values_and_undefined():
    keys = [("s", 0, "q")] * 4
    # People: 1 < 2 < 3 (one missing); the judge ties the first two and orders (1,3), (2,3) rightly.
    assert pairwise_consistency([5, 5, 6, 1], [1, 2, 3, None], keys) == pytest.approx(2 / 3)
    assert pairwise_consistency([1, 2], [3, 3], keys[:2]) is None  # people tie: no pair to order
    assert pairwise_consistency([1], [1], keys[:1]) is None
    with pytest.raises(ValueError):
        pairwise_consistency([1, 2], [1, 2], keys[:1])


def test_its_interval_resamples_instructions_whole():
    from proseval.reliability.humans import pair_orders
    from proseval.reliability.stats.bootstrap import ratio_interval

    # three instructions: one ordered fully alike (3 pairs), one fully reversed (3), one half (1 of 1)
    judge = [1, 2, 3, 3, 2, 1, 5, 6]
    human = [1, 2, 3, 1, 2, 3, 1, 2]
    keys = ["a"] * 3 + ["b"] * 3 + ["c"] * 2
    same, total = pair_orders(judge, human, keys)
    assert sorted(zip(same.tolist(), total.tolist())) == [(0, 3), (1, 1), (3, 3)]
    assert pairwise_consistency(judge, human, keys) == pytest.approx(4 / 7)
    found = ratio_interval(same, total, seed=1)
    # an instruction's pairs are never split: every resample's share is a ratio of whole clusters
    possible = {s / t for s, t in [(a, b) for a in range(0, 10) for b in range(1, 10)]}
    assert found.low in possible and found.high in possible and found.low <= 4 / 7 <= found.high
    assert ratio_interval([1.0], [2.0]).low is None  # one instruction: no interval

"""C3EBench's judge-human pairwise consistency pairs two answers to the same instruction only."""

import pytest

from proseval.reliability.analysis import pairwise_consistency

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

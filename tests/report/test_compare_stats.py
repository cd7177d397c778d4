"""The paired statistics: sign flips by table look-up, draws in blocks, the metric the changed samples follow."""

from __future__ import annotations

import numpy as np

from proseval.runtime.paired import RESAMPLES, _sign_flipped_sums


def test_table_sums_equal_the_sums_with_each_sign_flipped():
    data = np.random.default_rng(2).normal(size=21)  # not a multiple of eight: the padding counts 0
    drawn = np.random.default_rng(9).integers(0, 256, size=(RESAMPLES, 3), dtype=np.uint8)
    signs = 1.0 - 2.0 * np.unpackbits(drawn, axis=1, count=21)
    assert np.allclose(_sign_flipped_sums(data, np.random.default_rng(9)), signs @ data)


def test_the_signs_are_fair_coins():
    data = np.ones(64)
    sums = _sign_flipped_sums(data, np.random.default_rng(0))
    assert abs(sums.mean()) < 0.3 and abs(sums.var() - 64) < 4  # mean 0, variance n for ±1 signs


def test_drawing_in_blocks_gives_the_draws_of_one_block():
    from proseval.runtime.paired import _chunks, paired_stats

    data = np.sort(np.random.default_rng(5).normal(size=450) + 0.1)
    assert _chunks(data.size) == 3  # bounded memory: three blocks of resamples
    rng = np.random.default_rng(7)
    means = data[rng.integers(0, data.size, size=(RESAMPLES, data.size))].mean(axis=1)
    drawn = rng.integers(0, 256, size=(RESAMPLES, 57), dtype=np.uint8)
    flipped = np.abs((1.0 - 2.0 * np.unpackbits(drawn, axis=1, count=data.size)) @ data) / data.size
    low, high = np.percentile(means, [2.5, 97.5])
    p_value = (1 + int(np.sum(flipped >= abs(data.mean()) - 1e-12))) / (RESAMPLES + 1)
    assert paired_stats(data, seed=7) == (float(low), float(high), p_value)


def test_the_changed_samples_are_those_of_the_clearest_change_unless_a_metric_is_named():
    from proseval.core import Score
    from proseval.report.compare import compare_runs
    from proseval.runtime.records import ScoredSample

    def run(shift: float) -> list[ScoredSample]:
        return [
            ScoredSample(
                id=f"s{i}",
                status="ok",
                scores={"a_flat": Score(value=float(i % 3)), "b_moved": Score(value=i % 4 + shift)},
            )
            for i in range(30)
        ]

    assert compare_runs(run(0.0), run(2.0)).metric == "b_moved"  # "a_flat" did not move: p = 1
    assert compare_runs(run(0.0), run(2.0), metric="a_flat").metric == "a_flat"


def test_one_pair_has_no_interval():
    import numpy as np

    from proseval.runtime.paired import paired_stats

    assert paired_stats(np.array([0.7])) == (None, None, 1.0)

import numpy as np

from ecoagent.statistics import bootstrap_interval, paired_difference_interval


def test_the_interval_holds_the_mean_and_narrows_with_more_items():
    rng = np.random.default_rng(1)
    small, large = rng.random(50), rng.random(5000)
    low_s, high_s = bootstrap_interval(small)
    low_l, high_l = bootstrap_interval(large)
    assert low_s < small.mean() < high_s and low_l < large.mean() < high_l
    assert high_l - low_l < (high_s - low_s) / 5


def test_the_same_seed_gives_the_same_interval_and_a_constant_has_none():
    values = np.arange(20.0)
    assert bootstrap_interval(values, seed=3) == bootstrap_interval(values, seed=3)
    assert bootstrap_interval(np.full(10, 0.5)) == (0.5, 0.5)
    assert all(np.isnan(bootstrap_interval([])))


def test_a_paired_difference_keeps_the_pairing():
    rng = np.random.default_rng(2)
    base = rng.random(200)
    better = base + 0.01 + rng.normal(0, 0.002, 200)  # a little better each time: unpaired intervals overlap
    low, high = paired_difference_interval(better, base)
    assert 0 < low < 0.01 < high
    assert bootstrap_interval(better)[0] < bootstrap_interval(base)[1]


def test_draws_whose_statistic_is_undefined_are_left_out():
    values = np.array([0.0] * 18 + [1.0, 1.0])

    def mean_of_draws_with_a_one(rows: np.ndarray) -> float:
        return float(rows.mean()) if rows.max() > 0 else float("nan")

    low, high = bootstrap_interval(values, mean_of_draws_with_a_one, resamples=500)
    assert 0 < low <= high and not np.isnan(high)
    assert all(np.isnan(bootstrap_interval(np.zeros(5), mean_of_draws_with_a_one)))

"""Discounted LinUCB and the global MAB against values derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rated.bandit import MAX_INVERSE, DiscountedLinUCB, DiscountedUCB1, fuse

X1 = np.array([1.0, 0.0])
X2 = np.array([0.6, 0.8])
QUERY = np.array([0.0, 1.0])


def test_gamma_one_full_matrix_is_standard_linucb():
    # Li et al. 2010, disjoint model, arm 0 observes (x1, y=1) then (x2, y=0):
    #   A = I + x1 x1^T + x2 x2^T = [[2.36, 0.48], [0.48, 1.64]],  det = 2.36*1.64 - 0.48^2 = 3.64
    #   A^-1 = [[1.64, -0.48], [-0.48, 2.36]] / 3.64,  b = 1*x1 + 0*x2 = (1, 0)
    #   theta = A^-1 b = (1.64, -0.48) / 3.64
    #   UCB(x=(0,1)) = theta.x + alpha sqrt(x^T A^-1 x) = -0.48/3.64 + 0.1 sqrt(2.36/3.64)
    bandit = DiscountedLinUCB(n_arms=2, dim=2, alpha=0.1, gamma=1.0, diagonal=False)
    bandit.update(0, X1, 1.0)
    bandit.update(0, X2, 0.0)
    np.testing.assert_allclose(bandit.inverse(0), np.array([[1.64, -0.48], [-0.48, 2.36]]) / 3.64, rtol=1e-12)
    np.testing.assert_allclose(bandit.theta(0), np.array([1.64, -0.48]) / 3.64, rtol=1e-12)
    expected = -0.48 / 3.64 + 0.1 * math.sqrt(2.36 / 3.64)
    # arm 1 is untouched: A = I, b = 0, so its UCB is alpha ||x|| = 0.1
    np.testing.assert_allclose(bandit.scores(np.array([0, 1]), QUERY), [expected, 0.1], rtol=1e-12)


def test_full_matrix_discounts_before_adding():
    # gamma = 0.5: A = 0.5 I + x1 x1^T = [[1.5, 0], [0, 0.5]],  b = x1 = (1, 0)
    # then      A = 0.5 A + x2 x2^T = [[0.75+0.36, 0.48], [0.48, 0.25+0.64]] = [[1.11, 0.48], [0.48, 0.89]]
    #           b = 0.5 b + 0 x2 = (0.5, 0);  det = 1.11*0.89 - 0.48^2 = 0.7575
    bandit = DiscountedLinUCB(n_arms=1, dim=2, alpha=0.1, gamma=0.5, diagonal=False)
    bandit.update(0, X1, 1.0)
    np.testing.assert_allclose(bandit.inverse(0), np.diag([1 / 1.5, 1 / 0.5]), rtol=1e-12)
    bandit.update(0, X2, 0.0)
    a_inv = np.array([[0.89, -0.48], [-0.48, 1.11]]) / 0.7575
    np.testing.assert_allclose(bandit.inverse(0), a_inv, rtol=1e-12)
    # theta = A^-1 (0.5, 0) = (0.445, -0.24) / 0.7575;  score(x=(0,1)) = -0.24/0.7575 + 0.1 sqrt(1.11/0.7575)
    expected = -0.24 / 0.7575 + 0.1 * math.sqrt(1.11 / 0.7575)
    np.testing.assert_allclose(bandit.scores(np.array([0]), QUERY), [expected], rtol=1e-12)


def test_diagonal_update_by_hand():
    # diagonal, gamma = 0.5: A = (0.5 + 1, 0.5 + 0) = (1.5, 0.5), b = (1, 0)
    # then A = (0.75 + 0.36, 0.25 + 0.64) = (1.11, 0.89), b = (0.5, 0) + 1 * (0.6, 0.8) = (1.1, 0.8)
    bandit = DiscountedLinUCB(n_arms=1, dim=2, alpha=0.1, gamma=0.5, diagonal=True)
    bandit.update(0, X1, 1.0)
    bandit.update(0, X2, 1.0)
    np.testing.assert_allclose(bandit.inverse(0), np.diag([1 / 1.11, 1 / 0.89]), rtol=1e-12)
    np.testing.assert_allclose(bandit.theta(0), [1.1 / 1.11, 0.8 / 0.89], rtol=1e-12)
    # score(x=(0,1)) = 0.8/0.89 + 0.1 sqrt(1/0.89);  score(x=(0.6,0.8)) adds both coordinates
    np.testing.assert_allclose(bandit.scores(np.array([0]), QUERY), [0.8 / 0.89 + 0.1 * math.sqrt(1 / 0.89)])
    mean = 0.6 * 1.1 / 1.11 + 0.8 * 0.8 / 0.89
    np.testing.assert_allclose(
        bandit.scores(np.array([0]), X2), [mean + 0.1 * math.sqrt(0.36 / 1.11 + 0.64 / 0.89)], rtol=1e-12
    )


@pytest.mark.parametrize("diagonal", [True, False])
def test_cold_start_scores_from_the_prior(diagonal):
    # untouched arm: A = I, b = r x0 with x0 = (1/2, 1/2, 1/2, 1/2) for d = 4
    # score = r x0.x + alpha ||x||;  x = (0.5, 0.5, 0.5, -0.5): x0.x = 0.5, ||x|| = 1
    prior = np.array([0.2, 0.8, 1.0])
    bandit = DiscountedLinUCB(n_arms=3, dim=4, alpha=0.1, gamma=0.95, diagonal=diagonal, prior=prior)
    x = np.array([0.5, 0.5, 0.5, -0.5])
    np.testing.assert_allclose(bandit.scores(np.array([2, 0, 1]), x), [0.6, 0.2, 0.5], rtol=1e-12)
    np.testing.assert_allclose(bandit.prior_scores(np.array([0, 1]), x), [0.2, 0.5], rtol=1e-12)
    bandit.update(1, x, 0.0)  # only arm 1 moves
    scores = bandit.scores(np.array([0, 1, 2]), x)
    np.testing.assert_allclose(scores[[0, 2]], [0.2, 0.6], rtol=1e-12)
    assert scores[1] != pytest.approx(0.5)


def test_full_and_diagonal_agree_on_axis_aligned_contexts():
    # with one-hot contexts x x^T is diagonal, so both variants keep the same A
    rng = np.random.default_rng(0)
    full = DiscountedLinUCB(4, 3, gamma=0.9, diagonal=False, prior=np.array([0.1, 0.5, 0.9, 0.3]))
    diag = DiscountedLinUCB(4, 3, gamma=0.9, diagonal=True, prior=np.array([0.1, 0.5, 0.9, 0.3]))
    for _ in range(50):
        arm, x, y = int(rng.integers(4)), np.eye(3)[rng.integers(3)], float(rng.integers(2))
        full.update(arm, x, y)
        diag.update(arm, x, y)
    query = np.eye(3)[1]
    np.testing.assert_allclose(full.scores(np.arange(4), query), diag.scores(np.arange(4), query), rtol=1e-9)


def test_global_mab_by_hand():
    # one pseudo-observation each: n = (1, 1), s = (0.5, 0.9), N = 2; ln N is floored at ln e = 1
    mab = DiscountedUCB1(2, alpha=0.1, gamma=0.5, prior=np.array([0.5, 0.9]))
    np.testing.assert_allclose(mab.scores(np.array([0, 1])), [0.5 + 0.1 * math.sqrt(2), 0.9 + 0.1 * math.sqrt(2)])
    # arm 0 fails: n0 = 0.5*1 + 1 = 1.5, s0 = 0.5*0.5 + 0 = 0.25, N = 1.5 + 1 = 2.5 (still floored)
    mab.update(0, 0.0)
    assert mab.total == pytest.approx(2.5)
    np.testing.assert_allclose(mab.scores(np.array([0])), [0.25 / 1.5 + 0.1 * math.sqrt(2 / 1.5)])
    # context is ignored
    np.testing.assert_allclose(mab.scores(np.array([1]), np.ones(3)), mab.scores(np.array([1])))


def test_fuse_weights():
    out = fuse(np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([0.5, 0.5]))
    np.testing.assert_allclose(out, [0.75 + 0.05, 0.15 + 0.05])
    np.testing.assert_allclose(fuse(np.ones(1), np.ones(1), np.ones(1), weights=(0.5, 0.3, 0.2)), [1.0])


def test_the_papers_full_update_grows_a_never_seen_direction_like_gamma_to_the_minus_n():
    # contexts along e0 only: A = gamma^n I + (sum_k gamma^k) e0 e0^T, so A^-1[1, 1] = gamma^-n exactly
    bandit = DiscountedLinUCB(1, 2, gamma=0.5, diagonal=False)
    for _ in range(30):
        bandit.update(0, X1, 1.0)
    assert bandit.inverse(0)[1, 1] == pytest.approx(2.0**30, rel=1e-9)
    assert bandit.largest_inverse == pytest.approx(2.0**30, rel=1e-9)


@pytest.mark.parametrize("diagonal", [True, False])
def test_long_runs_overflow_as_written_and_stay_finite_capped(diagonal):
    # gamma^n shrinks the prior in directions the arm never sees; 20k updates overflow A^-1 (0.95^-20000)
    def run(max_inverse):
        bandit = DiscountedLinUCB(2, 4, gamma=0.95, diagonal=diagonal, prior=np.array([0.5, 0.5]),
                                  max_inverse=max_inverse)  # fmt: skip
        with np.errstate(all="ignore"):
            for i in range(20_000):
                bandit.update(0, np.eye(4)[i % 2], float(i % 2))
            return bandit, bandit.scores(np.array([0, 1]), np.array([0.0, 0.0, 0.6, 0.8]))

    written, scores = run(None)
    assert written.largest_inverse == math.inf and not np.all(np.isfinite(scores))
    capped, scores = run(MAX_INVERSE)
    assert np.all(np.isfinite(scores)) and scores[0] > scores[1]  # unexplored direction: large bonus
    assert capped.largest_inverse <= MAX_INVERSE * 1.01


def test_per_arm_contexts_score_like_one_context_each():
    rng = np.random.default_rng(1)
    for diagonal in (True, False):
        bandit = DiscountedLinUCB(3, 4, gamma=0.9, diagonal=diagonal, prior=np.array([0.2, 0.5, 0.8]))
        for _ in range(20):
            bandit.update(int(rng.integers(3)), rng.standard_normal(4), float(rng.integers(2)))
        contexts = rng.standard_normal((3, 4))
        one_by_one = [bandit.scores(np.array([a]), contexts[a])[0] for a in range(3)]
        np.testing.assert_allclose(bandit.scores(np.arange(3), contexts), one_by_one, rtol=1e-12)


def test_intercept_variant_prior_and_undiscounted_ridge_by_hand() -> None:
    bandit = DiscountedLinUCB(2, 2, alpha=0.0, gamma=0.5, prior=np.array([0.8, 0.3]), intercept=True)
    x = np.array([0.6, 0.8])
    # untouched: theta0 = r sqrt(2) e_last, x' = [0.6, 0.8, 1] / sqrt(2) -> theta0 . x' = r for any x
    assert bandit.scores(np.array([0, 1]), x) == pytest.approx([0.8, 0.3])
    bandit.update(0, x, 0.0)
    xp = np.array([0.6, 0.8, 1.0]) / np.sqrt(2)
    # A <- 0.5 A + 0.5 I + x'^2 (the ridge stays 1), b <- 0.5 b + 0 x'
    a = 0.5 + 0.5 + xp**2
    b = 0.5 * np.array([0.0, 0.0, 0.8 * np.sqrt(2)])
    assert bandit.scores(np.array([0]), x)[0] == pytest.approx(float((b / a) @ xp))
    assert bandit.scores(np.array([0]), x)[0] < 0.8  # a failure lowers the arm's score

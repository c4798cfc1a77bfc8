"""Each policy's choice and memory, on hand-built candidates and failure traces."""

from __future__ import annotations

import numpy as np
import pytest

from rated.bandit import fuse
from rated.policies import (
    POLICIES,
    BlacklistPolicy,
    GlobalMABPolicy,
    PeriodicBatchPolicy,
    PriorPolicy,
    RatedPolicy,
    RetryPolicy,
    StaticPolicy,
    make_policy,
)
from rated.rewards import Outcome, authors_code_reward, paper_reward
from rated.simulator import FailureScenario, SimulationConfig, run_simulation
from tests.rated.test_simulator import tiny_inputs

CANDS = np.array([4, 7, 1])
SEM = np.array([0.80, 0.78, 0.50])
X = np.array([0.6, 0.8, 0.0, 0.0])
R_STATIC = np.array([0.5, 0.9, 0.5, 0.5, 0.2, 0.5, 0.5, 0.9])
FAILED = Outcome(executed=False, relevant=True, sem=0.8, r_static=0.5)
RAN = Outcome(executed=True, relevant=True, sem=0.8, r_static=0.5)


def test_static_takes_the_top_candidate():
    assert StaticPolicy().choose(0, 0, CANDS, SEM, X) == [4]


def test_prior_policy_uses_the_frozen_cold_start_score():
    # x0 = (1/2,)*4, x0.x = 0.7, ||x|| = 1: S_bandit = 0.7 r + 0.1
    # tool 4: 0.75*0.80 + 0.15*(0.7*0.2 + 0.1) + 0.10*0.2 = 0.656
    # tool 7: 0.75*0.78 + 0.15*(0.7*0.9 + 0.1) + 0.10*0.9 = 0.7845 -> tool 7
    policy = PriorPolicy(R_STATIC, dim=4)
    assert policy.choose(0, 0, CANDS, SEM, X) == [7]
    policy.feedback(0, 7, X, FAILED)  # ignored: the prior never moves
    assert policy.choose(1, 0, CANDS, SEM, X) == [7]


def test_rated_moves_away_from_a_failing_tool():
    policy = RatedPolicy(np.full(8, 0.5), dim=4)
    assert policy.choose(0, 0, CANDS, SEM, X) == [4]
    for t in range(1, 200):
        policy.feedback(t, 4, X, FAILED)
        if policy.choose(t, 0, CANDS, SEM, X) != [4]:
            break
    assert policy.choose(t, 0, CANDS, SEM, X) == [7]
    fused = fuse(SEM, policy.bandit.scores(CANDS, X), np.full(3, 0.5))
    assert int(np.argmax(fused)) == 1


def test_global_mab_ignores_the_query():
    policy = GlobalMABPolicy(np.full(8, 0.5))
    for _ in range(30):
        policy.feedback(0, 4, X, FAILED)
    # tool 4 failed without context, so it loses for any query vector
    assert policy.choose(0, 0, CANDS, SEM, X) == [7]
    assert policy.choose(0, 0, CANDS, SEM, -X) == [7]


def test_blacklist_is_permanent_and_falls_back_to_the_top():
    policy = BlacklistPolicy(8)
    policy.feedback(0, 4, X, FAILED)
    assert policy.choose(1, 0, CANDS, SEM, X) == [7]
    policy.feedback(2, 4, X, RAN)  # a later success does not lift the ban
    assert policy.choose(3, 0, CANDS, SEM, X) == [7]
    policy.feedback(4, 7, X, FAILED)
    policy.feedback(5, 1, X, FAILED)
    assert policy.choose(6, 0, CANDS, SEM, X) == [4]  # all banned: the semantic top


def test_blacklist_never_readmits_a_tool_that_comes_back():
    inputs = tiny_inputs()
    config = SimulationConfig(steps=3000, onset=1000, post=(1001, 3000), window=100)
    scenario = FailureScenario("flapping", np.array([0]), onset=1000, down=50, up=50)
    result = run_simulation(inputs, BlacklistPolicy(inputs.n_tools), scenario, 0, config)
    first_fault = int(np.flatnonzero(result.fault)[0])
    assert result.fault.sum() == 1  # one failure, then never again
    assert 0 not in result.executed[first_fault:].tolist()
    assert 0 in result.executed[:first_fault].tolist()


def test_retry_fault_selection_like_static_but_better_success():
    inputs = tiny_inputs()
    config = SimulationConfig(steps=3000, onset=1000, post=(1001, 3000), window=100)
    scenario = FailureScenario("persistent", np.array([0, 2]), onset=1000)
    static = run_simulation(inputs, StaticPolicy(), scenario, 0, config)
    retry = run_simulation(inputs, RetryPolicy(k=3), scenario, 0, config)
    # same stream, same first pick: identical fault selections
    np.testing.assert_array_equal(static.fault, retry.fault)
    # the twin of each failing tool is relevant, so the second try always succeeds
    assert retry.metrics["post_fail_sr"] == 1.0 > static.metrics["post_fail_sr"]
    assert retry.metrics["fsr"] == static.metrics["fsr"] > 0.3
    # with k = 1 retry is the static ranker
    np.testing.assert_array_equal(run_simulation(inputs, RetryPolicy(k=1), scenario, 0, config).success, static.success)


def test_retry_all_failing_executes_nothing():
    inputs = tiny_inputs()
    config = SimulationConfig(steps=1200, onset=1000, post=(1001, 1200), window=100)
    scenario = FailureScenario("persistent", np.arange(12), onset=1000)
    result = run_simulation(inputs, RetryPolicy(k=3), scenario, 0, config)
    assert not result.success[1000:].any() and result.fault[1000:].all()
    assert (result.executed[1000:] == -1).all()


def test_batch_policy_learns_only_at_sync_points():
    policy = PeriodicBatchPolicy(np.full(8, 0.5), period=10)
    for t in range(10):
        assert policy.choose(t, 0, CANDS, SEM, X) == [4]
        policy.feedback(t, 4, X, FAILED)
    assert policy.estimate[4] == 0.5  # buffered, not applied yet
    assert policy.choose(10, 0, CANDS, SEM, X) == [7]  # synced at step 10: tool 4's rate is 0
    assert policy.estimate[4] == 0.0


@pytest.mark.parametrize("name", POLICIES)
def test_factory_builds_every_policy(name):
    policy = make_policy(name, R_STATIC, dim=4)
    assert policy.name == name
    assert len(policy.choose(0, 0, CANDS, SEM, X)) >= 1


def test_factory_passes_options_and_rejects_unknown_names():
    assert make_policy("retry", R_STATIC, 4, k=2).choose(0, 0, CANDS, SEM, X) == [4, 7]
    assert not make_policy("rated", R_STATIC, 4, diagonal=False).bandit.diagonal
    with pytest.raises(ValueError, match="unknown policy"):
        make_policy("oracle", R_STATIC, 4)


# Two candidates, the failing one 0.02 ahead semantically, both with r_static 0.5, d = 2 and a query
# orthogonal to x0 = (1, 1)/sqrt(2): the paper's prior adds nothing, as for real embeddings.
PAIR = np.array([0, 1])
PAIR_SEM = np.array([0.80, 0.78])
Q = np.array([1.0, -1.0]) / np.sqrt(2.0)


def test_paper_reward_keeps_a_failing_top_tool_the_authors_reward_drops_it():
    # untouched arm: theta.x = 0.5 x0.x = 0, bonus 0.1 ||x|| = 0.1 -> alternative fused
    #   0.75 * 0.78 + 0.15 * 0.1 + 0.10 * 0.5 = 0.65
    alternative = 0.75 * 0.78 + 0.15 * 0.1 + 0.10 * 0.5
    failed = Outcome(executed=False, relevant=True, sem=0.8, r_static=0.5)
    # paper: y = 0. A = 0.95 + x^2 = (1.45, 1.45), b = 0.95 * 0.5 x0 (still along x0): theta.x = 0;
    # repeated, A -> 0.5 / 0.05 = 10 per coordinate, bonus -> 0.1 sqrt(0.5/10 + 0.5/10) = 0.0316, and the
    # failing tool's fused score -> 0.6 + 0.15 * 0.0316 + 0.05 = 0.6547 > 0.65: it is never left
    paper = RatedPolicy(np.full(2, 0.5), dim=2)
    for t in range(300):
        assert paper.choose(t, 0, PAIR, PAIR_SEM, Q) == [0]
        paper.feedback(t, 0, Q, failed)
    limit = 0.75 * 0.80 + 0.15 * 0.1 * np.sqrt(0.05 / 0.5) + 0.10 * 0.5
    fused = fuse(PAIR_SEM, paper.bandit.scores(PAIR, Q), np.full(2, 0.5))
    assert fused[0] == pytest.approx(limit, abs=1e-6) and fused[1] == pytest.approx(alternative)
    # authors' code: y = 0.1 * 0.8 * 0.5 + 0.9 * (-2) = -1.76; b = 0.475 x0 - 1.76 x, A = (1.45, 1.45):
    # theta.x = -1.76 * ||x||^2 / 1.45 = -1.21379, bonus 0.1 sqrt(1 / 1.45) = 0.08305
    authors = RatedPolicy(np.full(2, 0.5), dim=2, reward=authors_code_reward)
    authors.feedback(0, 0, Q, failed)
    mean, bonus = authors.bandit.parts(PAIR[:1], Q)
    assert mean[0] == pytest.approx(-1.76 / 1.45) and bonus[0] == pytest.approx(0.1 / np.sqrt(1.45))
    assert authors.choose(1, 0, PAIR, PAIR_SEM, Q) == [1]  # 0.6 + 0.15 * (-1.1307) + 0.05 = 0.4804 < 0.65


def test_tool_context_scores_each_candidate_on_its_own_embedding():
    tools = np.array([[1.0, 0.0], [0.0, 1.0]])
    policy = RatedPolicy(np.full(2, 0.5), dim=2, context="tool", tool_vectors=tools, reward=authors_code_reward)
    policy.feedback(0, 0, Q, Outcome(executed=False, relevant=True, sem=0.8, r_static=0.5))
    # the update used x = e0 (tool 0's vector), not the query: A = (0.95 + 1, 0.95), b = 0.95 * 0.5 x0 - 1.76 e0
    x0 = 0.5 / np.sqrt(2.0)
    np.testing.assert_allclose(policy.bandit.theta(0), [(0.95 * x0 - 1.76) / 1.95, 0.95 * x0 / 0.95])
    mean, _ = policy.bandit.parts(PAIR, tools)  # one context row per candidate
    assert mean[0] == pytest.approx((0.95 * x0 - 1.76) / 1.95) and mean[1] == pytest.approx(x0)
    with pytest.raises(ValueError, match="tool vectors"):
        RatedPolicy(np.full(2, 0.5), dim=2, context="tool")


def test_minmax_scaling_and_the_no_prior_variant():
    policy = RatedPolicy(np.array([0.2, 0.9]), dim=2, scaling="minmax")
    x = np.array([1.0, 1.0]) / np.sqrt(2.0)  # along x0: the prior shows, theta.x = r
    # raw S_bandit = r + 0.1 -> (0.3, 1.0), scaled to (0, 1)
    np.testing.assert_allclose(policy.bandit_scores(PAIR, x), [0.0, 1.0])
    no_prior = RatedPolicy(np.array([0.2, 0.9]), dim=2, prior=False)
    np.testing.assert_allclose(no_prior.bandit.scores(PAIR, x), [0.1, 0.1])  # b = 0: exploration only


def test_score_parts_sum_to_the_fused_score():
    policy = RatedPolicy(R_STATIC, dim=4)
    policy.feedback(0, 4, X, RAN)
    parts = policy.score_parts(CANDS, SEM, X)
    fused = fuse(SEM, policy.bandit.scores(CANDS, X), R_STATIC[CANDS])
    np.testing.assert_allclose(sum(parts.values()), fused)


# A tool that runs but is not a right one for the query: the paper's y cannot tell it from a right one.
WRONG = Outcome(executed=True, relevant=False, sem=0.8, r_static=0.5)


def test_global_mab_learns_what_its_reward_says_about_a_wrong_tool_that_runs():
    # one update of tool 4: count 0.95 * 1 + 1 = 1.95, N = 7 + 1.95 = 8.95, reward sum 0.95 * 0.5 + y
    #   paper y = 1:            mean 1.475 / 1.95 = 0.75641
    #   authors y = 0.1 * 0.8 * 0.5 + 0.9 * 0 = 0.04: mean 0.515 / 1.95 = 0.26410
    # bonus 0.1 sqrt(2 ln 8.95 / n): tool 4 (n = 1.95) 0.14993, tool 7 (untouched, n = 1, mean 0.5) 0.20937
    # fused tool 7: 0.75 * 0.78 + 0.15 * 0.70937 + 0.10 * 0.5 = 0.74141
    # fused tool 4: paper 0.65 + 0.15 * 0.90634 = 0.78595 (kept); authors 0.65 + 0.15 * 0.41403 = 0.71210 (dropped)
    for reward, mean, choice in ((paper_reward, 1.475 / 1.95, 4), (authors_code_reward, 0.515 / 1.95, 7)):
        policy = GlobalMABPolicy(np.full(8, 0.5), reward=reward)
        policy.feedback(0, 4, X, WRONG)
        bandit = policy.bandit
        assert bandit.counts[4] == pytest.approx(1.95) and bandit.total == pytest.approx(8.95)
        assert bandit.rewards[4] / bandit.counts[4] == pytest.approx(mean)
        np.testing.assert_allclose(
            bandit.scores(np.array([4, 7])),
            [mean + 0.1 * np.sqrt(2 * np.log(8.95) / 1.95), 0.5 + 0.1 * np.sqrt(2 * np.log(8.95))],
        )
        assert policy.choose(1, 0, CANDS, SEM, X) == [choice]


@pytest.mark.parametrize(
    ("reward", "lr", "tool4", "tool7"),
    [
        (paper_reward, 1.0, (1.0 + 1.0) / 2, 0.0),  # ran twice (once right, once wrong), failed once
        (authors_code_reward, 1.0, (0.94 + 0.04) / 2, -1.76),  # right 0.04 + 0.9, wrong 0.04, failed 0.04 - 1.8
        (authors_code_reward, 0.5, 0.5 + 0.5 * (0.49 - 0.5), 0.5 + 0.5 * (-1.76 - 0.5)),  # halfway from the prior
    ],
)
def test_batch_policy_moves_each_tool_to_its_batch_mean_reward(reward, lr, tool4, tool7):
    policy = PeriodicBatchPolicy(np.full(8, 0.5), period=3, lr=lr, reward=reward)
    for t, (arm, outcome) in enumerate(((4, RAN), (4, WRONG), (7, FAILED))):
        policy.choose(t, 0, CANDS, SEM, X)
        policy.feedback(t, arm, X, outcome)
    policy.choose(3, 0, CANDS, SEM, X)  # the sync point
    assert policy.estimate[4] == pytest.approx(tool4) and policy.estimate[7] == pytest.approx(tool7)
    assert policy.estimate[1] == 0.5  # never tried: still the prior


def test_blacklist_bans_on_availability_not_relevance():
    policy = BlacklistPolicy(8)
    policy.feedback(0, 4, X, WRONG)  # ran, wrong for the query: a health check sees a healthy tool
    assert policy.choose(1, 0, CANDS, SEM, X) == [4]
    policy.feedback(1, 4, X, Outcome(executed=False, relevant=False, sem=0.8, r_static=0.5))
    assert policy.choose(2, 0, CANDS, SEM, X) == [7]


def test_rated_counts_the_steps_an_overflowed_inverse_leaves_without_a_score():
    # diagonal A, contexts along e0 only: A[1] = gamma^n -> 0 (float64 underflows past 0.01^162), so
    # A^-1[1] = inf and theta[1] = 0 * inf = NaN, as written; capped, A^-1[1] stops at max_inverse
    def run(max_inverse):
        policy = RatedPolicy(np.full(2, 0.5), dim=2, gamma=0.01, max_inverse=max_inverse)
        with np.errstate(all="ignore"):
            for t in range(200):
                policy.feedback(t, 0, np.array([1.0, 0.0]), RAN)
            policy.choose(200, 0, PAIR, PAIR_SEM, np.array([0.6, 0.8]))
        return policy.diagnostics()

    assert run(None) == {"largest_inverse": np.inf, "nonfinite_steps": 1}
    capped = run(1e12)
    assert capped["nonfinite_steps"] == 0 and capped["largest_inverse"] == pytest.approx(1e12)

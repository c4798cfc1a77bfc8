"""The reward definitions of Table 2, derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ecoagent.config import ConfigError
from rated.rewards import Outcome, authors_code_reward, paper_reward, resolve_reward
from rated.simulator import Method
from tests.rated.test_simulator import tiny_inputs


def half(outcome: Outcome) -> float:
    """A user's own reward, imported by name in the tests below."""
    return 0.5


@pytest.mark.parametrize(
    ("executed", "relevant", "paper", "authors"),
    [
        # authors: 0.1 * S_sem * r_static + 0.9 * e with S_sem = 0.8, r_static = 0.5 -> 0.04 + 0.9 e
        (True, True, 1.0, 0.04 + 0.9 * 1.0),  # right and ran: e = +1 -> 0.94
        (True, False, 1.0, 0.04 + 0.9 * 0.0),  # ran but wrong: e = 0 -> 0.04 (the paper's y is still 1)
        (False, True, 0.0, 0.04 + 0.9 * -2.0),  # failed: e = -2 -> -1.76, relevant or not
        (False, False, 0.0, 0.04 + 0.9 * -2.0),
    ],
)
def test_each_reward_by_hand(executed, relevant, paper, authors):
    outcome = Outcome(executed=executed, relevant=relevant, sem=0.8, r_static=0.5)
    assert paper_reward(outcome) == paper
    assert authors_code_reward(outcome) == pytest.approx(authors)
    assert outcome.success == (executed and relevant)


def test_rewards_resolve_by_name_or_as_module_function():
    assert resolve_reward("paper") is paper_reward
    assert resolve_reward("authors_code") is authors_code_reward
    assert resolve_reward("tests.rated.test_rewards:half") is half
    with pytest.raises(ConfigError, match=r"rated\.simulation\.reward='typo'"):
        resolve_reward("typo")
    with pytest.raises(ConfigError, match="cannot import"):
        resolve_reward("tests.rated.test_rewards:missing")


def test_a_method_takes_its_reward_by_name():
    inputs = tiny_inputs()
    policy = Method("mine", "rated", inputs, {"reward": "tests.rated.test_rewards:half"}).build()
    assert policy.reward is half
    policy.feedback(0, 0, inputs.query_vectors[0], Outcome(False, True, 0.8, 0.5))
    # the update saw y = 0.5 although the tool failed: b = 0.95 * b0 + 0.5 x
    x0 = np.full(inputs.dim, 1 / np.sqrt(inputs.dim))
    a = 0.95 + inputs.query_vectors[0].astype(np.float64) ** 2
    expected = (0.95 * 0.5 * x0 + 0.5 * inputs.query_vectors[0]) / a
    np.testing.assert_allclose(policy.bandit.theta(0), expected, rtol=1e-6)

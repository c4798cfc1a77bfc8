"""The fused score taken apart at fault selections, on a case small enough to derive by hand."""

from __future__ import annotations

import numpy as np
import pytest

from rated.diagnosis import decompose_faults
from rated.paper import ALGORITHM1
from rated.simulator import SimulationConfig, SimulationInputs

# one query, orthogonal to x0 (the paper's prior adds nothing), two relevant candidates 0.02 apart;
# floor rounding and rho 0.5 fail the top one (tool 0) from step 100 on
INPUTS = SimulationInputs(
    query_vectors=np.array([[1.0, -1.0]]) / np.sqrt(2.0),
    candidates=np.array([[0, 1]]),
    sem=np.array([[0.80, 0.78]]),
    gold=[{0, 1}],
    r_static=np.array([0.5, 0.5]),
)
CONFIG = SimulationConfig(steps=300, onset=100, post=(101, 300), window=50, theta={0.5: 0.9}, skip_rounding="floor")


def test_algorithm1_as_written_never_leaves_the_failing_tool_and_the_gaps_say_why():
    result = decompose_faults(INPUTS, dict(ALGORITHM1), CONFIG, seeds=(0, 1), rho=0.5)
    assert result["fault_selections"] == 2 * 200 and result["without_available_alternative"] == 0
    gap = result["median_gap"]
    assert gap["semantic"] == pytest.approx(0.75 * (0.80 - 0.78))
    assert gap["prior"] == pytest.approx(0.0)
    # 100 healthy steps of y = 1 left theta.x > 0 on tool 0; y = 0 only decays it toward the untried tool's 0
    assert gap["bandit_mean"] > 0
    assert gap["exploration"] < 0  # the tried tool is less uncertain than the untried one
    assert result["median_total_gap"] > 0


def test_the_authors_reward_leaves_it_after_the_failures_outweigh_the_successes():
    # 100 healthy steps at +0.94 (0.1 * 0.8 * 0.5 + 0.9) leave theta.x ~ 2 * 0.94 (both coordinates tend to
    # the discounted mean). After k failures at -1.76 the discounted mean of each coordinate is about
    # (0.94 g^k - 1.76 (1 - g^k)) / 1 with g = 0.95: it turns negative once g^k < 1.76 / 2.70, i.e. k = 9;
    # the failing tool's fused score drops under the alternative's once S_bandit < 0: 9 faults per seed
    result = decompose_faults(INPUTS, {**ALGORITHM1, "reward": "authors_code"}, CONFIG, seeds=(0, 1), rho=0.5)
    k = int(np.ceil(np.log(1.76 / 2.70) / np.log(0.95)))
    assert k == 9 and result["fault_selections"] == 2 * k

"""Choosing RATED (Full)'s reward, context and gamma on validation, and Figure 4's grids."""

from __future__ import annotations

import pytest

from ecoagent.config import load_config
from rated.simulator import SimulationConfig
from rated.tuning import figure4, objective, selection_grid, tune
from tests.rated.test_simulator import tiny_inputs

SMALL = SimulationConfig(steps=600, onset=200, post=(201, 600), window=50, theta={0.125: 0.9, 0.25: 0.9})
TUNING = [
    "rated.simulation.failure_rates=[0.125,0.25]",
    "rated.tuning.contexts=[query]",
    "rated.tuning.gammas=[0.5,0.95]",
    "rated.tuning.seeds=[0,1]",
]


def test_a_fixed_setting_contributes_its_one_value():
    config = load_config("default", [*TUNING, "rated.gamma=0.9", "rated.simulation.reward=paper"])
    assert selection_grid(config) == [("paper", "query", 0.9)]
    auto = load_config("default", TUNING)
    assert len(selection_grid(auto)) == 2 * 1 * 2


def test_objective_is_the_mean_of_sr_minus_fsr():
    assert objective({"0.2": {"post_fail_sr": 0.8, "fsr": 0.1}, "0.3": {"post_fail_sr": 0.6, "fsr": 0.3}}) == (
        pytest.approx(0.5)
    )


def test_tune_picks_the_best_objective_and_lists_every_variant():
    config = load_config("default", TUNING)
    result = tune(tiny_inputs(), config, SMALL)
    selectable = [r for r in result["rows"] if r["selectable"]]
    assert len(selectable) == 4
    best = max(selectable, key=lambda r: r["objective"])
    assert result["chosen"] == {"reward": best["reward"], "context": best["context"], "gamma": best["gamma"]}
    names = [r["name"] for r in result["rows"] if not r["selectable"]]
    assert "Algorithm 1 as written, b = 0 (no catalog prior)" in names
    assert "intercept prior (ours), the chosen reward, x and gamma" in names
    assert all(set(r["results"]) == {"0.125", "0.25"} for r in result["rows"])


def test_figure4_grids_hold_the_chosen_point_and_skip_negative_w2():
    overrides = [*TUNING, "rated.tuning.figure4_rate=0.125", "rated.tuning.figure4_w1=[0.8,0.9]",
                 "rated.tuning.figure4_w3=[0.05,0.15]", "rated.tuning.figure4_gammas=[0.9]",
                 "rated.tuning.figure4_alphas=[0.1]"]  # fmt: skip
    config = load_config("default", overrides)
    fig = figure4(tiny_inputs(), config, SMALL, {"reward": "paper", "context": "query", "gamma": 0.5})
    # the configured w1 0.75 and w3 0.10, the chosen gamma 0.5 and alpha 0.1 join the grids
    assert fig["a"]["w1"] == [0.75, 0.8, 0.9] and fig["a"]["w3"] == [0.05, 0.1, 0.15]
    assert fig["b"]["gamma"] == [0.5, 0.9] and fig["b"]["alpha"] == [0.1]
    assert len(fig["a"]["fsr"]) == 3 and all(len(row) == 3 for row in fig["a"]["fsr"])
    assert fig["a"]["fsr"][2][2] is None  # w1 0.9 + w3 0.15 > 1: no w2 left
    assert all(0 <= v <= 1 for row in fig["b"]["post_fail_sr"] for v in row)
    assert fig["chosen"] == {"w1": 0.75, "w3": 0.1, "gamma": 0.5, "alpha": 0.1}

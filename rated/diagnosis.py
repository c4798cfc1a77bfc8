"""Why a RATED variant keeps selecting failed tools: its fused score taken apart at every fault selection.

``S_final = w1 S_sem + w2 theta.x + w2 alpha sqrt(x^T A^-1 x) + w3 r_static`` (eq. 6 and 9). At each
step of the metric window where the policy's first choice is down, :class:`FaultRecorder` writes down
each weighted term of the chosen (failing) tool minus the same term of the alternative the policy
ranked highest among the candidates that were up. A positive median says which term kept the failing
tool on top: the semantic score, the bandit's estimate, its exploration bonus or the catalog prior.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rated.policies import Policy, RatedPolicy
from rated.rewards import Outcome
from rated.simulator import (
    FailureScenario,
    Method,
    SimulationConfig,
    SimulationInputs,
    draw_stream,
    make_scenario,
    select_failing,
    simulate,
)

TERMS = ("semantic", "bandit_mean", "exploration", "prior")


class FaultRecorder(Policy):
    """Wraps a :class:`RatedPolicy`; records the weighted score gaps at its fault selections."""

    def __init__(self, policy: RatedPolicy, scenario: FailureScenario, n_tools: int, window: tuple[int, int]):
        self.policy, self.scenario, self.window = policy, scenario, window
        self.failing = np.zeros(n_tools, dtype=bool)
        self.failing[scenario.failing] = True
        self.gaps: dict[str, list[float]] = {term: [] for term in TERMS}
        self.faults = 0
        self.without_alternative = 0

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        arms = self.policy.choose(t, query_index, candidates, sem, x)
        start, end = self.window
        if start <= t <= end and self.scenario.is_down(t) and self.failing[arms[0]]:
            self.faults += 1
            parts = self.policy.score_parts(candidates, sem, x)
            fused = sum(parts.values())
            up = ~self.failing[candidates]
            if not up.any():
                self.without_alternative += 1
            else:
                chosen = int(np.flatnonzero(candidates == arms[0])[0])
                alternative = int(np.flatnonzero(up)[np.argmax(fused[up])])
                for term in TERMS:
                    self.gaps[term].append(float(parts[term][chosen] - parts[term][alternative]))
        return arms

    def feedback(self, t: int, arm: int, x: np.ndarray, outcome: Outcome) -> None:
        self.policy.feedback(t, arm, x, outcome)


def decompose_faults(
    inputs: SimulationInputs,
    options: dict,
    settings: SimulationConfig,
    seeds: Sequence[int],
    rho: float,
) -> dict:
    """Median weighted gap (failing minus best available alternative) per term, over every fault selection."""
    recorders = []
    for seed in seeds:
        stream = draw_stream(inputs.n_queries, settings.steps, seed, inputs.popularity)
        failing = select_failing(stream, inputs.gold, rho, settings.skip_top, settings.skip_rounding)
        scenario = make_scenario("persistent", failing, settings)
        policy = Method("diagnosis", "rated", inputs, options).build()
        recorder = FaultRecorder(policy, scenario, inputs.n_tools, (settings.post[0] - 1, settings.post[1] - 1))
        simulate(inputs, recorder, scenario, stream)
        recorders.append(recorder)
    gaps = {term: [g for r in recorders for g in r.gaps[term]] for term in TERMS}
    total = [sum(values) for values in zip(*(gaps[t] for t in TERMS), strict=True)]
    return {
        "rho": rho,
        "seeds": list(seeds),
        "fault_selections": sum(r.faults for r in recorders),
        "without_available_alternative": sum(r.without_alternative for r in recorders),
        "median_gap": {term: float(np.median(values)) if values else None for term, values in gaps.items()},
        "median_total_gap": float(np.median(total)) if total else None,
    }

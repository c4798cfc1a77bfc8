"""What is chosen on the validation stream, every variant tried, and Figure 4's sensitivity sweeps.

The paper tunes its fusion weights, gamma and alpha on the validation split (Section 4.5) and reports
test numbers with them fixed. Here the same split of work:

- :func:`tune`: RATED (Full)'s reward, bandit context and gamma are chosen among
  ``rated.tuning.{rewards, contexts, gammas}`` (a setting that is not ``auto`` fixes its value) by
  the mean over the failure rates of Post-Fail SR - FSR, persistent failures, on the validation
  stream. Post-Fail SR alone cannot tell a policy that stops calling a dead tool from one that keeps
  calling it when its alternatives are wrong anyway; FSR alone rewards a policy that stops calling
  anything useful. The same run carries the diagnostic variants (no prior, no exploration, min-max
  scaled bandit, our intercept prior), so the report lists every variant tried.
- :func:`figure4`: the paper's Figure 4 at ``rated.tuning.figure4_rate``: (a) w1 x w3 with the chosen
  bandit, w2 = 1 - w1 - w3; (b) gamma x alpha with the fusion weights fixed.
"""

from __future__ import annotations

from itertools import product

from ecoagent.config import Config
from rated.paper import ALGORITHM1
from rated.simulator import Method, SimulationConfig, SimulationInputs, run_experiment

OBJECTIVE = "mean over the failure rates of Post-Fail SR - FSR (persistent failures, validation stream)"


def bandit_options(config: Config, reward: str, context: str, gamma: float) -> dict:
    """RatedPolicy options for one (reward, context, gamma) with the configured alpha, fusion and A."""
    rated = config.rated
    return {
        "alpha": rated.alpha,
        "gamma": gamma,
        "weights": tuple(rated.fusion_weights),
        "diagonal": rated.diagonal,
        "reward": reward,
        "context": context,
    }


def label(reward: str, context: str, gamma: float) -> str:
    return f"reward {reward}, x = {context}, gamma {gamma:g}"


def selection_grid(config: Config) -> list[tuple[str, str, float]]:
    """Every (reward, context, gamma) to try; a setting that is not ``auto`` contributes its one value."""
    rated, tuning = config.rated, config.rated.tuning
    rewards = tuning.rewards if rated.simulation.reward == "auto" else [rated.simulation.reward]
    contexts = tuning.contexts if rated.context == "auto" else [rated.context]
    gammas = tuning.gammas if rated.gamma == "auto" else [float(rated.gamma)]
    return list(product(rewards, contexts, gammas))


def diagnostic_variants(chosen_options: dict | None = None) -> dict[str, dict]:
    """Variants that test a diagnosis rather than compete for the RATED (Full) row."""
    variants = {
        "Algorithm 1 as written, b = 0 (no catalog prior)": {**ALGORITHM1, "prior": False},
        "Algorithm 1 as written, alpha = 0 (no exploration)": {**ALGORITHM1, "alpha": 0.0},
        "Algorithm 1 as written, S_bandit min-max scaled within the K candidates": {**ALGORITHM1, "scaling": "minmax"},
        "authors' code reward, S_bandit min-max scaled within the K candidates": {
            **ALGORITHM1,
            "reward": "authors_code",
            "scaling": "minmax",
        },
        "intercept prior (ours), Algorithm 1 settings": {**ALGORITHM1, "intercept": True},
    }
    if chosen_options is not None and chosen_options.get("diagonal", True):
        variants["intercept prior (ours), the chosen reward, x and gamma"] = {**chosen_options, "intercept": True}
    return variants


def _summary_row(cell: dict) -> dict:
    return {
        rho: {
            "post_fail_sr": v["post_fail_sr"]["mean"],
            "fsr": v["fsr"]["mean"],
            "fsr_ci95": v["fsr"]["ci95"],
            "post_fail_sr_ci95": v["post_fail_sr"]["ci95"],
        }
        for rho, v in cell["persistent"].items()
    }


def objective(by_rho: dict) -> float:
    """Mean over the failure rates of Post-Fail SR - FSR."""
    values = [v["post_fail_sr"] - v["fsr"] for v in by_rho.values()]
    return sum(values) / len(values)


def tune(inputs: SimulationInputs, config: Config, sim_config: SimulationConfig) -> dict:
    """Choose RATED (Full)'s reward, context and gamma on ``inputs`` (the validation stream)."""
    tuning = config.rated.tuning
    grid = selection_grid(config)
    methods = [Method(label(*cell), "rated", inputs, bandit_options(config, *cell)) for cell in grid]
    rates = config.rated.simulation.failure_rates
    first = run_experiment(methods, tuning.seeds, ("persistent",), rates, sim_config, keep_traces=False,
                           phase="validation sweep: the selection grid (simulations)")  # fmt: skip
    rows = []
    for (reward, context, gamma), method in zip(grid, methods, strict=True):
        by_rho = _summary_row(first.summary["results"][method.name])
        rows.append(
            {
                "name": method.name,
                "reward": reward,
                "context": context,
                "gamma": gamma,
                "selectable": True,
                "objective": objective(by_rho),
                "results": by_rho,
            }
        )
    best = max(rows, key=lambda r: r["objective"])  # the first of equals: the grid's order
    chosen = {"reward": best["reward"], "context": best["context"], "gamma": best["gamma"]}
    chosen_options = bandit_options(config, **chosen)
    variants = diagnostic_variants(chosen_options)
    extra = [Method(name, "rated", inputs, options) for name, options in variants.items()]
    second = run_experiment(extra, tuning.seeds, ("persistent",), rates, sim_config, keep_traces=False,
                            phase="validation sweep: the diagnostic variants (simulations)")  # fmt: skip
    for method in extra:
        by_rho = _summary_row(second.summary["results"][method.name])
        rows.append(
            {
                "name": method.name,
                "selectable": False,
                "objective": objective(by_rho),
                "results": by_rho,
                "options": {k: v for k, v in variants[method.name].items() if k != "weights"},
            }
        )
    return {
        "objective": OBJECTIVE,
        "seeds": list(tuning.seeds),
        "rates": list(rates),
        "grid": {
            "rewards": sorted({c[0] for c in grid}),
            "contexts": sorted({c[1] for c in grid}),
            "gammas": sorted({c[2] for c in grid}),
        },
        "chosen": chosen,
        "chosen_options": {k: list(v) if isinstance(v, tuple) else v for k, v in chosen_options.items()},
        "rows": rows,
    }


def figure4(inputs: SimulationInputs, config: Config, sim_config: SimulationConfig, chosen: dict) -> dict:
    """The paper's two sensitivity sweeps at one failure rate, on ``inputs`` (the validation stream)."""
    rated, tuning = config.rated, config.rated.tuning
    base = bandit_options(config, **chosen)
    w1, _, w3 = rated.fusion_weights

    def with_point(values: list[float], point: float) -> list[float]:
        return sorted({*values, point})  # the chosen point is always on the grid, so the figure can mark it

    w1s, w3s = with_point(tuning.figure4_w1, w1), with_point(tuning.figure4_w3, w3)
    gammas, alphas = with_point(tuning.figure4_gammas, chosen["gamma"]), with_point(tuning.figure4_alphas, rated.alpha)
    methods: dict[tuple, Method] = {}
    for w3_cell, w1_cell in product(w3s, w1s):
        w2 = round(1.0 - w1_cell - w3_cell, 10)
        if w2 >= 0:
            weights = (w1_cell, w2, w3_cell)
            methods[("a", w3_cell, w1_cell)] = Method(
                f"a: w1 {w1_cell:g}, w3 {w3_cell:g}", "rated", inputs, {**base, "weights": weights}
            )
    for alpha, gamma in product(alphas, gammas):
        methods[("b", alpha, gamma)] = Method(
            f"b: gamma {gamma:g}, alpha {alpha:g}", "rated", inputs, {**base, "gamma": gamma, "alpha": alpha}
        )
    rate = tuning.figure4_rate
    experiment = run_experiment(list(methods.values()), tuning.seeds, ("persistent",), (rate,), sim_config,
                                keep_traces=False, phase="Figure 4 sweeps (simulations)")  # fmt: skip
    results = experiment.summary["results"]

    def grid(panel: str, rows: list[float], cols: list[float], metric: str) -> list[list[float | None]]:
        out = []
        for row in rows:
            line = []
            for col in cols:
                method = methods.get((panel, row, col))
                line.append(None if method is None else results[method.name]["persistent"][f"{rate:g}"][metric]["mean"])
            out.append(line)
        return out

    return {
        "rate": rate,
        "seeds": list(tuning.seeds),
        "bandit": {k: list(v) if isinstance(v, tuple) else v for k, v in base.items()},
        "a": {
            "w1": list(w1s),
            "w3": list(w3s),
            "post_fail_sr": grid("a", w3s, w1s, "post_fail_sr"),
            "fsr": grid("a", w3s, w1s, "fsr"),
        },
        "b": {
            "gamma": list(gammas),
            "alpha": list(alphas),
            "post_fail_sr": grid("b", alphas, gammas, "post_fail_sr"),
            "fsr": grid("b", alphas, gammas, "fsr"),
        },
        "chosen": {"w1": w1, "w3": w3, "gamma": chosen["gamma"], "alpha": rated.alpha},
    }

"""The failure-injection simulator of the paper's dynamic evaluation (Section 4.2, Table 2).

A run draws a stream of ``T`` queries (with replacement, ``numpy.random.default_rng(seed)``; uniform,
or by the query set's ``popularity`` when it has one) over precomputed retrieval results
(:class:`SimulationInputs`: no model runs here), lets a policy pick tools, and injects failures into a
fixed set of tools from the onset on:

- ``persistent`` (the paper): down from the onset to the end;
- ``flapping``: alternately down and up (``down`` / ``up`` steps) after the onset;
- ``recovery``: down from the onset until ``recover_at``, then up again.

The failing set ranks the N distinct ground-truth tools of the stream by frequency (ties by row),
skips the top 10% and takes the next ``round(rho N)`` (at least one when ``rho N > 0``). How "the
top 10%" rounds is ``SKIP_ROUNDINGS``: ``at_least_one`` (default: floor, but at least one tool once
N >= 2, so a small stream's most frequent tool is spared as the paper intends) or ``floor`` (the
authors' script, ``len // 10``: nothing is skipped below N = 10). On the paper's stream (thousands of
gold tools) the two agree to within one tool.

Steps are 0-based in code: step ``t`` is the paper's step ``t + 1``, so ``onset=2000`` means the
paper's steps 2,001 onward fail, and the metric window ``post=(2001, 5000)`` is given 1-based.
A step succeeds when the executed tool (the last one tried) is relevant and available; it is a
fault selection when the first tried tool is unavailable. After each tried tool the policy gets its
:class:`~rated.rewards.Outcome`; what it learns from it is the policy's reward (:mod:`rated.rewards`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rated.policies import Policy, make_policy
from rated.rewards import Outcome, resolve_reward

if TYPE_CHECKING:
    from ecoagent.runtime.context import Phase

SCENARIOS = ("persistent", "flapping", "recovery")
SKIP_ROUNDINGS = ("at_least_one", "floor")


@dataclass(frozen=True)
class SimulationInputs:
    """One retriever's results on a query set: everything a run needs, as arrays."""

    query_vectors: np.ndarray  # (n_q, d) float32, L2-normalized: the bandit context
    candidates: np.ndarray  # (n_q, K) int tool rows, best semantic first
    sem: np.ndarray  # (n_q, K) semantic scores of those candidates
    gold: list  # per query, the relevant tool rows (set or list)
    r_static: np.ndarray  # (n_tools,) catalog prior
    tool_vectors: np.ndarray | None = None  # (n_tools, d): the bandit context when x = the tool's embedding
    popularity: np.ndarray | None = None  # (n_q,) draw weights of the stream; None: uniform

    def __post_init__(self) -> None:
        n_q = len(self.query_vectors)
        if self.candidates.shape[0] != n_q or self.sem.shape != self.candidates.shape or len(self.gold) != n_q:
            raise ValueError(
                f"inputs disagree: {n_q} query vectors, candidates {self.candidates.shape}, "
                f"sem {self.sem.shape}, {len(self.gold)} gold sets"
            )
        # frozensets: O(1) membership in the step loop, and hashable for equality checks
        object.__setattr__(self, "gold", [frozenset(int(g) for g in rel) for rel in self.gold])
        object.__setattr__(self, "candidates", np.asarray(self.candidates, dtype=np.int64))
        object.__setattr__(self, "r_static", np.asarray(self.r_static, dtype=np.float64))
        if self.tool_vectors is not None:  # float64 once here, not per policy or per step
            object.__setattr__(self, "tool_vectors", np.asarray(self.tool_vectors, dtype=np.float64))
        if self.popularity is not None:
            weights = np.asarray(self.popularity, dtype=np.float64)
            if weights.shape != (n_q,) or weights.min() < 0 or weights.sum() <= 0:
                raise ValueError(f"popularity must be {n_q} non-negative weights, not all zero")
            object.__setattr__(self, "popularity", weights / weights.sum())

    @property
    def n_queries(self) -> int:
        return len(self.query_vectors)

    @property
    def n_tools(self) -> int:
        return len(self.r_static)

    @property
    def dim(self) -> int:
        return self.query_vectors.shape[1]


@dataclass(frozen=True)
class SimulationConfig:
    steps: int = 10_000
    onset: int = 2_000  # healthy steps before failures start
    post: tuple[int, int] = (2_001, 5_000)  # 1-based, inclusive: the Post-Fail SR / FSR window
    window: int = 200  # W of the windowed success rate
    theta: Mapping[float, float] = field(default_factory=lambda: {0.2: 0.9, 0.3: 0.8})
    skip_top: float = 0.1  # the most frequent tools spared by the failure injection
    skip_rounding: str = "at_least_one"  # how skip_top * N rounds (SKIP_ROUNDINGS)
    recover_at: int = 5_000  # recovery scenario: tools are back from the paper's step recover_at + 1
    flap_down: int = 250
    flap_up: int = 250

    def theta_for(self, rho: float) -> float:
        for key, value in self.theta.items():
            if math.isclose(float(key), rho):
                return float(value)
        raise ValueError(f"no adaptation threshold theta for rho={rho}; configure SimulationConfig.theta")


def draw_stream(n_queries: int, steps: int, seed: int, popularity: np.ndarray | None = None) -> np.ndarray:
    """Query indices of a run: ``steps`` draws with replacement, uniform or by ``popularity``."""
    rng = np.random.default_rng(seed)
    if popularity is None:
        return rng.integers(0, n_queries, size=steps)
    return rng.choice(n_queries, size=steps, p=popularity)


def _half_up(value: float) -> int:
    # Python's round() rounds halves to even; the protocol's round(rho N) means the usual half-up
    return math.floor(value + 0.5 + 1e-9)


def skipped_count(n_tools: int, skip_top: float, rounding: str = "at_least_one") -> int:
    """How many of the ``n_tools`` most frequent gold tools the failure injection spares."""
    if rounding not in SKIP_ROUNDINGS:
        raise ValueError(f"unknown skip rounding {rounding!r}; choose one of {', '.join(SKIP_ROUNDINGS)}")
    skip = math.floor(skip_top * n_tools + 1e-9)
    if rounding == "at_least_one" and skip_top > 0 and n_tools >= 2:
        skip = max(skip, 1)
    return skip


def select_failing(
    stream: np.ndarray, gold: Sequence, rho: float, skip_top: float = 0.1, rounding: str = "at_least_one"
) -> np.ndarray:
    """Tool rows to fail: the stream's ground-truth tools by frequency, minus the top ``skip_top``."""
    counts: dict[int, int] = {}
    for q, n in zip(*np.unique(stream, return_counts=True), strict=True):
        for tool in gold[int(q)]:
            counts[int(tool)] = counts.get(int(tool), 0) + int(n)
    ranked = sorted(counts, key=lambda tool: (-counts[tool], tool))
    n = len(ranked)
    skip = skipped_count(n, skip_top, rounding)
    n_fail = max(_half_up(rho * n), 1) if rho * n > 0 else 0
    return np.asarray(ranked[skip : skip + n_fail], dtype=np.int64)


@dataclass(frozen=True)
class FailureScenario:
    """Which tools are down when: ``status(tool, t)`` is True when the tool executes."""

    kind: str
    failing: np.ndarray
    onset: int = 2_000
    recover_at: int = 5_000
    down: int = 250
    up: int = 250

    def __post_init__(self) -> None:
        if self.kind not in SCENARIOS:
            raise ValueError(f"unknown failure scenario {self.kind!r}; choose one of {', '.join(SCENARIOS)}")

    def is_down(self, t: int | np.ndarray) -> bool | np.ndarray:
        """Whether the failing set is down at 0-based step ``t``."""
        t = np.asarray(t)
        after = t >= self.onset
        if self.kind == "recovery":
            after &= t < self.recover_at
        elif self.kind == "flapping":
            after &= (t - self.onset) % (self.down + self.up) < self.down
        return after if after.ndim else bool(after)

    def status(self, tool: int | np.ndarray, t: int | np.ndarray) -> bool | np.ndarray:
        ok = ~(np.isin(tool, self.failing) & self.is_down(t))
        return ok if np.ndim(ok) else bool(ok)


def make_scenario(kind: str, failing: np.ndarray, settings: SimulationConfig) -> FailureScenario:
    return FailureScenario(kind, failing, settings.onset, settings.recover_at, settings.flap_down, settings.flap_up)


@dataclass
class SimulationResult:
    success: np.ndarray  # (T,) bool
    fault: np.ndarray  # (T,) bool
    executed: np.ndarray  # (T,) int: the tool that executed, -1 when none did
    metrics: dict


def simulate(
    inputs: SimulationInputs, policy: Policy, scenario: FailureScenario, stream: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run ``policy`` over ``stream``: per-step success, fault selection and executed tool."""
    executes = np.ones((2, inputs.n_tools), dtype=bool)  # 0: every tool up; 1: the failing set down
    executes[1, scenario.failing] = False
    down_at = np.asarray(scenario.is_down(np.arange(len(stream))), dtype=np.int64)
    return simulate_steps([inputs, inputs], policy, stream, down_at, executes)


def simulate_steps(
    inputs_by_key: Sequence[SimulationInputs],
    policy: Policy,
    stream: np.ndarray,
    key_at: np.ndarray,
    executes: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The step loop of every scenario: at step ``t`` the policy picks among ``inputs_by_key[key_at[t]]``'s
    candidates, and a tool executes when ``executes[key_at[t], tool]``. Returns per-step success, fault selection and
    executed tool (-1: none). An injected scenario has two keys (healthy, failing set down); the replay one per month
    (:mod:`rated.replay`: the candidates are the tools that existed that month)."""
    steps = len(stream)
    success = np.zeros(steps, dtype=bool)
    fault = np.zeros(steps, dtype=bool)
    executed = np.full(steps, -1, dtype=np.int64)
    first = inputs_by_key[0]
    gold = first.gold
    vectors = np.asarray(first.query_vectors, dtype=np.float64)  # once, not per step in the bandit
    r_static = first.r_static.tolist()
    prepared: dict[int, tuple] = {}  # id(inputs) -> (candidates, sem, sem_of): keys sharing inputs share this
    by_key = []
    for inputs in inputs_by_key:
        if id(inputs) not in prepared:
            candidates, sem = inputs.candidates, inputs.sem
            sem_of = [dict(zip(c, v, strict=True)) for c, v in zip(candidates.tolist(), sem.tolist(), strict=True)]
            prepared[id(inputs)] = (candidates, sem, sem_of)
        by_key.append(prepared[id(inputs)])
    up = [row.tolist() for row in np.asarray(executes, dtype=bool)]
    # the paper's update can overflow A^-1 (gamma^-n); the policy counts non-finite scores instead of warning
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        for t, (q, key) in enumerate(zip(stream.tolist(), np.asarray(key_at).tolist(), strict=True)):
            candidates, sem, sem_of = by_key[key]
            x, works = vectors[q], up[key]
            for i, arm in enumerate(policy.choose(t, q, candidates[q], sem[q], x)):
                ok = works[arm]
                if i == 0 and not ok:
                    fault[t] = True
                relevant = arm in gold[q]
                policy.feedback(t, arm, x, Outcome(ok, relevant, sem_of[q].get(arm, 0.0), r_static[arm]))
                if ok:
                    executed[t] = arm
                    success[t] = relevant
                    break
    return success, fault, executed


def windowed(values: np.ndarray, window: int) -> np.ndarray:
    """Mean over each window of ``window`` steps; entry ``i`` ends at the paper's step ``i + window``."""
    if len(values) < window:
        return np.zeros(0)
    sums = np.cumsum(np.concatenate([[0.0], np.asarray(values, dtype=np.float64)]))
    return (sums[window:] - sums[:-window]) / window


def adaptation_steps(success: np.ndarray, onset: int, window: int, theta: float) -> tuple[int | None, float | None]:
    """``(t_adapt, SR_peak)``: steps past the first full post-onset window until SR >= theta * peak.

    ``SR_peak`` is the best windowed SR among windows ending at or before the onset; ``None`` for
    ``t_adapt`` means the target was never met ("Failed").
    """
    sr = windowed(success, window)
    if onset < window or len(sr) <= onset:
        return None, None
    peak = float(sr[: onset - window + 1].max())
    hits = np.flatnonzero(sr[onset:] >= theta * peak - 1e-12)
    return (int(hits[0]) if hits.size else None), peak


def readmission(executed: np.ndarray, failing: np.ndarray, recover_at: int) -> dict:
    """Per recovered tool, steps after ``recover_at`` until it executes again (1 = the first step)."""
    after = executed[recover_at:]
    delays = []
    for tool in np.asarray(failing).tolist():
        hits = np.flatnonzero(after == tool)
        if hits.size:
            delays.append(int(hits[0]) + 1)
    return {
        "mean_steps": float(np.mean(delays)) if delays else None,
        "readmitted": len(delays),
        "never_readmitted": len(failing) - len(delays),
    }


def compute_metrics(
    success: np.ndarray,
    fault: np.ndarray,
    executed: np.ndarray,
    scenario: FailureScenario,
    settings: SimulationConfig,
    theta: float,
) -> dict:
    """Post-Fail SR, FSR, adaptation steps (and readmission for ``recovery``) of one trace; ``pre_onset_sr``: the SR
    of the healthy steps before the onset (for a static ranker, its success@1 as the stream draws the queries)."""
    start, end = settings.post
    post = slice(start - 1, end)
    t_adapt, peak = adaptation_steps(success, settings.onset, settings.window, theta)
    metrics = {
        "pre_onset_sr": float(np.mean(success[: settings.onset])),
        "post_fail_sr": float(np.mean(success[post])),
        "fsr": float(np.mean(fault[post])),
        "adaptation_steps": t_adapt,
        "sr_peak": peak,
        "overall_sr": float(np.mean(success)),
    }
    if scenario.kind == "recovery":
        metrics["readmission"] = readmission(executed, scenario.failing, scenario.recover_at)
    return metrics


def run_simulation(
    inputs: SimulationInputs,
    policy: Policy,
    scenario: FailureScenario,
    seed: int,
    settings: SimulationConfig | None = None,
    theta: float = 0.9,
) -> SimulationResult:
    """One seeded run of one policy under one scenario."""
    settings = settings or SimulationConfig()
    stream = draw_stream(inputs.n_queries, settings.steps, seed, inputs.popularity)
    success, fault, executed = simulate(inputs, policy, scenario, stream)
    metrics = compute_metrics(success, fault, executed, scenario, settings, theta)
    return SimulationResult(success, fault, executed, metrics)


@dataclass(frozen=True)
class Method:
    """One row of Table 2: a policy (short name or factory) over one retriever's inputs."""

    name: str
    policy: str | Callable[[SimulationInputs], Policy]
    inputs: SimulationInputs
    kwargs: Mapping = field(default_factory=dict)
    scenarios: tuple[str, ...] | None = None  # run only in these scenarios (None: every one)

    def build(self) -> Policy:
        if callable(self.policy):
            return self.policy(self.inputs)
        kwargs = dict(self.kwargs)
        if isinstance(kwargs.get("reward"), str):
            kwargs["reward"] = resolve_reward(kwargs["reward"])
        return make_policy(self.policy, self.inputs.r_static, self.inputs.dim, self.inputs.tool_vectors, **kwargs)


def summarize(values: Sequence[float | None]) -> dict:
    """Per-seed values, their mean and Student-t 95% half-width; ``None`` values count as failed."""
    from scipy import stats

    kept = [float(v) for v in values if v is not None]
    out: dict = {"values": list(values), "mean": float(np.mean(kept)) if kept else None, "ci95": None}
    if len(kept) >= 2:
        sd = float(np.std(kept, ddof=1))
        out["ci95"] = float(stats.t.ppf(0.975, len(kept) - 1) * sd / math.sqrt(len(kept)))
    elif kept:
        out["ci95"] = 0.0
    if any(v is None for v in values):
        out["failed"] = sum(v is None for v in values)
    return out


def percent_text(summary: dict | None) -> str:
    """A :func:`summarize` result in %: ``mean ± ci95``, the mean alone without an interval, ``–`` without a mean."""
    if not summary or summary.get("mean") is None:
        return "–"
    ci = summary.get("ci95")
    return f"{100 * summary['mean']:.1f} ± {100 * ci:.1f}" if ci is not None else f"{100 * summary['mean']:.1f}"


@dataclass
class Experiment:
    summary: dict  # JSON-serializable: config and results[method][scenario][rho][metric]
    traces: dict = field(default_factory=dict)  # (scenario, rho) -> method -> (mean success, mean fault)


def run_experiment(
    methods: Sequence[Method],
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    scenarios: Sequence[str] = ("persistent",),
    rhos: Sequence[float] = (0.2, 0.3),
    settings: SimulationConfig | None = None,
    keep_traces: bool = True,
    phase: str | None = None,
) -> Experiment:
    """Every method on every (scenario, rho, seed); each seed fixes the stream and failing set.

    All methods must share the query set (same queries, same gold), so a seed gives every method the
    same stream and the same failing tools. With ``phase``, the simulations are counted under that name in the
    running step (:mod:`ecoagent.runtime.context`).
    """
    from ecoagent.runtime import context

    settings = settings or SimulationConfig()
    _check_one_query_set(methods)
    per_scenario = [sum(m.scenarios is None or kind in m.scenarios for m in methods) for kind in scenarios]
    results: dict = {}
    traces: dict = {}
    with context.phase(phase, sum(per_scenario) * len(rhos) * len(seeds)) as simulating:
        for scenario_kind in scenarios:
            running = [m for m in methods if m.scenarios is None or scenario_kind in m.scenarios]
            for rho in rhos:
                per_method, sums = _simulate_cell(running, scenario_kind, rho, seeds, settings, simulating)
                for name, runs in per_method.items():
                    results.setdefault(name, {}).setdefault(scenario_kind, {})[f"{rho:g}"] = _aggregate(runs)
                    if keep_traces:
                        traces.setdefault((scenario_kind, rho), {})[name] = tuple(s / len(seeds) for s in sums[name])
    return Experiment({"config": _config_record(settings, seeds, scenarios, rhos), "results": results}, traces)


def _check_one_query_set(methods: Sequence[Method]) -> None:
    if not methods:
        raise ValueError("run_experiment needs at least one method")
    reference = methods[0].inputs
    for method in methods[1:]:
        same_draws = (method.inputs.popularity is None) == (reference.popularity is None) and (
            reference.popularity is None or np.array_equal(method.inputs.popularity, reference.popularity)
        )
        if method.inputs.n_queries != reference.n_queries or method.inputs.gold != reference.gold or not same_draws:
            raise ValueError(f"method {method.name!r} runs on another query set than {methods[0].name!r}")


def _simulate_cell(running: Sequence[Method], scenario_kind: str, rho: float, seeds: Sequence[int],
                   settings: SimulationConfig, simulating: Phase) -> tuple[dict[str, list[dict]], dict]:  # fmt: skip
    """Every method of ``running`` on one (scenario, rho) over the seeds: each run's metrics, and the summed success
    and fault traces per method."""
    reference = running[0].inputs
    theta = settings.theta_for(rho)
    per_method: dict[str, list[dict]] = {m.name: [] for m in running}
    sums = {m.name: [np.zeros(settings.steps), np.zeros(settings.steps)] for m in running}
    for seed in seeds:
        stream = draw_stream(reference.n_queries, settings.steps, seed, reference.popularity)
        failing = select_failing(stream, reference.gold, rho, settings.skip_top, settings.skip_rounding)
        scenario = make_scenario(scenario_kind, failing, settings)
        for method in running:
            policy = method.build()
            success, fault, executed = simulate(method.inputs, policy, scenario, stream)
            metrics = compute_metrics(success, fault, executed, scenario, settings, theta)
            metrics["n_failing"] = len(failing)
            if hasattr(policy, "diagnostics"):
                metrics["diagnostics"] = policy.diagnostics()
            per_method[method.name].append(metrics)
            sums[method.name][0] += success
            sums[method.name][1] += fault
            simulating.advance()
    return per_method, sums


def _config_record(settings: SimulationConfig, seeds: Sequence[int], scenarios: Sequence[str],
                   rhos: Sequence[float]) -> dict:  # fmt: skip
    return {
        "seeds": list(seeds),
        "scenarios": list(scenarios),
        "rhos": list(rhos),
        "steps": settings.steps,
        "onset": settings.onset,
        "post": list(settings.post),
        "window": settings.window,
        "theta": {f"{float(k):g}": float(v) for k, v in settings.theta.items()},
        "skip_top": settings.skip_top,
        "skip_rounding": settings.skip_rounding,
        "recover_at": settings.recover_at,
        "flapping": {"down": settings.flap_down, "up": settings.flap_up},
    }


def _aggregate(runs: list[dict]) -> dict:
    out = {key: summarize([r[key] for r in runs])
           for key in ("pre_onset_sr", "post_fail_sr", "fsr", "overall_sr", "sr_peak")}  # fmt: skip
    out["adaptation_steps"] = summarize([r["adaptation_steps"] for r in runs])
    out["adaptation_steps"].setdefault("failed", 0)
    out["n_failing"] = [r["n_failing"] for r in runs]
    if "diagnostics" in runs[0]:
        largest = max(r["diagnostics"]["largest_inverse"] for r in runs)
        out["diagnostics"] = {
            "largest_inverse": largest if math.isfinite(largest) else None,  # None: A^-1 overflowed
            "overflowed": not math.isfinite(largest),
            "nonfinite_steps": [r["diagnostics"]["nonfinite_steps"] for r in runs],
        }
    if "readmission" in runs[0]:
        out["readmission_steps"] = summarize([r["readmission"]["mean_steps"] for r in runs])
        out["readmission_steps"].pop("failed", None)
        out["never_readmitted"] = summarize([r["readmission"]["never_readmitted"] for r in runs])
    return out


def synthetic_inputs(
    n_tools: int = 5_000,
    dim: int = 384,
    n_queries: int = 2_000,
    k: int = 10,
    group: int = 3,
    spread: float = 0.15,
    noise: float = 0.6,
    seed: int = 0,
) -> SimulationInputs:
    """A model-free stand-in for a real retriever: tools in groups of ``group`` near-duplicates.

    Functionally equivalent tools are the premise of reliability-aware retrieval (an alternative to
    a failing tool exists). Queries are noisy copies of one tool's vector; candidates are the exact
    top-``k`` by dot product.
    """
    rng = np.random.default_rng(seed)

    def unit(m: np.ndarray) -> np.ndarray:
        return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)

    n_groups = math.ceil(n_tools / group)
    centers = rng.standard_normal((n_groups, dim))
    owner = np.arange(n_tools) // group
    tools = unit(centers[owner] + spread * rng.standard_normal((n_tools, dim)))
    targets = rng.integers(0, n_tools, size=n_queries)
    queries = unit(tools[targets] + noise * rng.standard_normal((n_queries, dim)) / math.sqrt(dim))
    scores = queries @ tools.T
    k = min(k, n_tools)
    part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1, kind="stable")
    candidates = np.take_along_axis(part, order, axis=1)
    sem = np.take_along_axis(scores, candidates, axis=1)
    # the target and one random group mate are relevant: equivalent tools, but not so many that
    # whole groups tie in the failure ranking and fail together
    gold = []
    for t in targets.tolist():
        mates = [m for m in range(owner[t] * group, min((owner[t] + 1) * group, n_tools)) if m != t]
        gold.append({t, int(rng.choice(mates))} if mates else {t})
    r_static = rng.uniform(0.4, 1.0, size=n_tools)
    return SimulationInputs(queries, candidates, sem, gold, r_static)

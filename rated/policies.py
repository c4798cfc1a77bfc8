"""Tool-selection policies for the failure-injection simulator (the rows of the paper's Table 2).

A policy sees, at each step, the top-K candidates of a static retriever (best semantic first), their
semantic scores and the query vector, and returns the tools to try, in order. Most policies try one
tool; :class:`RetryPolicy` returns a fallback chain that the simulator walks until a tool executes.
After each tried tool the simulator calls ``feedback`` with the :class:`~rated.rewards.Outcome`
(executed, relevant, semantic score, prior). Learning policies turn it into a number with their
``reward`` (:mod:`rated.rewards`; default: the paper's ``y_t``, 1 when the tool executed); the
blacklist reads availability itself, since a health check knows nothing of relevance.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rated.bandit import FUSION_WEIGHTS, DiscountedLinUCB, DiscountedUCB1, fuse
from rated.rewards import Outcome, Reward, paper_reward

CONTEXTS = ("query", "tool")  # the bandit's x: the query embedding (the paper) or each candidate's own


class Policy:
    """Base: ``choose`` the tools to try at step ``t``; ``feedback`` learns from each tried tool."""

    name = "policy"

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        raise NotImplementedError

    def feedback(self, t: int, arm: int, x: np.ndarray, outcome: Outcome) -> None:
        """Static policies ignore feedback."""


def _best(candidates: np.ndarray, scores: np.ndarray) -> list[int]:
    # argmax keeps the first of equal scores, i.e. the better semantic rank
    return [int(candidates[int(np.argmax(scores))])]


class FusedPolicy(Policy):
    """Base of the RATED rows: the semantic score, a learned (or prior) term and the catalog prior ``r_static``
    fused with ``weights`` (:func:`rated.bandit.fuse`); ``reward`` turns an outcome into what is learned."""

    def __init__(
        self,
        r_static: np.ndarray,
        *,
        weights: tuple[float, float, float] = FUSION_WEIGHTS,
        reward: Reward = paper_reward,
    ):
        self.r_static = np.asarray(r_static, dtype=np.float64)
        self.weights, self.reward = weights, reward

    def fused(self, candidates: np.ndarray, sem: np.ndarray, learned: np.ndarray) -> np.ndarray:
        return fuse(sem, learned, self.r_static[candidates], self.weights)


class StaticPolicy(Policy):
    """The static ranker: always the top semantic candidate."""

    name = "static"

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        return [int(candidates[0])]


class PriorPolicy(FusedPolicy):
    """RATED (w/o Feedback): the fused score with the bandit term frozen at its cold-start prior."""

    name = "rated_no_feedback"

    def __init__(self, r_static: np.ndarray, dim: int, alpha: float = 0.1, **fusion: Any):
        super().__init__(r_static, **fusion)
        # never updated, so only its analytic prior score is ever used
        self.bandit = DiscountedLinUCB(len(self.r_static), dim, alpha=alpha, diagonal=False, prior=self.r_static)

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        return _best(candidates, self.fused(candidates, sem, self.bandit.prior_scores(candidates, x)))


class RatedPolicy(FusedPolicy):
    """RATED (Full): fused score with a discounted LinUCB updated after every execution.

    Options beyond the paper's Algorithm 1 (its defaults are the paper's): ``reward`` (what the bandit
    learns from), ``context`` (``query``: x = the query embedding; ``tool``: x = each candidate's own
    embedding, from ``tool_vectors``), ``prior`` (False: ``b = 0`` instead of ``r_static x0``),
    ``scaling`` (``minmax``: S_bandit rescaled to [0, 1] within the K candidates before fusion),
    ``intercept`` and ``max_inverse`` (see :class:`~rated.bandit.DiscountedLinUCB`).
    """

    name = "rated"

    def __init__(
        self,
        r_static: np.ndarray,
        dim: int,
        alpha: float = 0.1,
        gamma: float = 0.95,
        diagonal: bool = True,
        intercept: bool = False,
        context: str = "query",
        tool_vectors: np.ndarray | None = None,
        prior: bool = True,
        scaling: str = "none",
        max_inverse: float | None = None,
        **fusion: Any,
    ):
        if context not in CONTEXTS:
            raise ValueError(f"unknown bandit context {context!r}; choose one of {', '.join(CONTEXTS)}")
        if context == "tool" and tool_vectors is None:
            raise ValueError("context='tool' needs the tool vectors (SimulationInputs.tool_vectors)")
        if scaling not in ("none", "minmax"):
            raise ValueError(f"unknown bandit scaling {scaling!r}; choose none or minmax")
        super().__init__(r_static, **fusion)
        self.context, self.scaling = context, scaling
        self.tool_vectors = None if tool_vectors is None else np.asarray(tool_vectors, dtype=np.float64)
        self.nonfinite_steps = 0  # steps where some fused score was NaN or infinite (an overflowed A^-1)
        self.bandit = DiscountedLinUCB(
            len(self.r_static),
            dim,
            alpha=alpha,
            gamma=gamma,
            diagonal=diagonal,
            prior=self.r_static if prior else None,
            intercept=intercept,
            max_inverse=max_inverse,
        )

    def _x(self, candidates: np.ndarray, x: np.ndarray) -> np.ndarray:
        return self.tool_vectors[candidates] if self.context == "tool" else x

    def bandit_scores(self, candidates: np.ndarray, x: np.ndarray) -> np.ndarray:
        scores = self.bandit.scores(candidates, self._x(candidates, x))
        if self.scaling == "minmax":
            low, high = scores.min(), scores.max()
            scores = (scores - low) / (high - low) if high > low else np.zeros_like(scores)
        return scores

    def score_parts(self, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> dict[str, np.ndarray]:
        """The fused score's four weighted terms per candidate (they sum to S_final; unscaled bandit only)."""
        w1, w2, w3 = self.weights
        mean, bonus = self.bandit.parts(candidates, self._x(candidates, x))
        return {
            "semantic": w1 * np.asarray(sem, dtype=np.float64),
            "bandit_mean": w2 * mean,
            "exploration": w2 * bonus,
            "prior": w3 * self.r_static[candidates],
        }

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        fused = self.fused(candidates, sem, self.bandit_scores(candidates, x))
        if not math.isfinite(float(fused.sum())):
            self.nonfinite_steps += 1
        return _best(candidates, fused)

    def feedback(self, t: int, arm: int, x: np.ndarray, outcome: Outcome) -> None:
        context = self.tool_vectors[arm] if self.context == "tool" else x
        self.bandit.update(arm, context, self.reward(outcome))

    def diagnostics(self) -> dict:
        """What a run leaves behind that the traces do not show: A^-1's growth, non-finite scores."""
        return {"largest_inverse": self.bandit.largest_inverse, "nonfinite_steps": self.nonfinite_steps}


class GlobalMABPolicy(FusedPolicy):
    """RATED (w/ Global MAB): fused score with a context-free discounted UCB1."""

    name = "rated_global_mab"

    def __init__(self, r_static: np.ndarray, alpha: float = 0.1, gamma: float = 0.95, **fusion: Any):
        super().__init__(r_static, **fusion)
        self.bandit = DiscountedUCB1(len(self.r_static), alpha=alpha, gamma=gamma, prior=self.r_static)

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        return _best(candidates, self.fused(candidates, sem, self.bandit.scores(candidates)))

    def feedback(self, t: int, arm: int, x: np.ndarray, outcome: Outcome) -> None:
        self.bandit.update(arm, self.reward(outcome))


class BlacklistPolicy(Policy):
    """Health-check blacklist: one failed execution bans a tool for good."""

    name = "blacklist"

    def __init__(self, n_tools: int):
        self.banned = np.zeros(n_tools, dtype=bool)

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        allowed = np.flatnonzero(~self.banned[candidates])
        # with every candidate banned there is nothing better to do than the semantic top
        return [int(candidates[allowed[0] if allowed.size else 0])]

    def feedback(self, t: int, arm: int, x: np.ndarray, outcome: Outcome) -> None:
        if not outcome.executed:
            self.banned[arm] = True


class StatusPolicy(Policy):
    """Reads ``tools.status`` up front: the best semantic candidate whose release status is ``active``, else the
    semantic top. It never learns, and it knows what the release knows: a tool removed in a later month is avoided
    from the first step on, while it still works (the cost of reading a status written after the fact)."""

    name = "status"

    def __init__(self, inactive: np.ndarray):
        self.inactive = np.asarray(inactive, dtype=bool)

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        allowed = np.flatnonzero(~self.inactive[candidates])
        return [int(candidates[allowed[0] if allowed.size else 0])]


class RetryPolicy(Policy):
    """Retry (k): the top ``k`` candidates as a fallback chain, no memory across steps."""

    name = "retry"

    def __init__(self, k: int = 3):
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.k = k

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        return [int(c) for c in candidates[: self.k]]


class PeriodicBatchPolicy(FusedPolicy):
    """ToolRL-like batch proxy: learns per-tool success rates, but only every ``period`` steps.

    Feedback is buffered; at each multiple of ``period`` the estimate of every tool seen in the
    buffer moves toward its batch success rate (``lr = 1``: replaced by it). Between syncs the
    ranking is frozen, which is what makes a batch learner slow to react to an outage.
    """

    name = "batch"

    def __init__(self, r_static: np.ndarray, period: int = 500, lr: float = 1.0, **fusion: Any):
        super().__init__(r_static, **fusion)
        self.period, self.lr = period, lr
        self.estimate = self.r_static.copy()  # the success estimate starts at the catalog prior
        self._pulls: dict[int, list[float]] = {}
        self._synced_at = 0

    def _sync(self, t: int) -> None:
        for arm, ys in self._pulls.items():
            self.estimate[arm] += self.lr * (sum(ys) / len(ys) - self.estimate[arm])
        self._pulls.clear()
        self._synced_at = t

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        if t - self._synced_at >= self.period:
            self._sync(t)
        return _best(candidates, self.fused(candidates, sem, self.estimate[candidates]))

    def feedback(self, t: int, arm: int, x: np.ndarray, outcome: Outcome) -> None:
        self._pulls.setdefault(arm, []).append(self.reward(outcome))


POLICIES = ("static", "rated_no_feedback", "rated", "rated_global_mab", "blacklist", "retry", "batch")


def make_policy(
    name: str, r_static: np.ndarray, dim: int, tool_vectors: np.ndarray | None = None, **kwargs
) -> Policy:
    """A fresh policy by short name; ``kwargs`` go to its constructor (e.g. ``alpha``, ``k``, ``period``).

    ``tool_vectors`` reach the policies that can use them (RATED with ``context="tool"``).
    """
    r_static = np.asarray(r_static, dtype=np.float64)
    if name == "static":
        return StaticPolicy(**kwargs)
    if name == "rated_no_feedback":
        return PriorPolicy(r_static, dim, **kwargs)
    if name == "rated":
        return RatedPolicy(r_static, dim, tool_vectors=tool_vectors, **kwargs)
    if name == "rated_global_mab":
        return GlobalMABPolicy(r_static, **kwargs)
    if name == "blacklist":
        return BlacklistPolicy(len(r_static), **kwargs)
    if name == "retry":
        return RetryPolicy(**kwargs)
    if name == "batch":
        return PeriodicBatchPolicy(r_static, **kwargs)
    raise ValueError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")

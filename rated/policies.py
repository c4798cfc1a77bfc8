"""Tool-selection policies for the failure-injection simulator (the rows of the paper's Table 2).

A policy sees, at each step, the top-K candidates of a static retriever (best semantic first), their
semantic scores and the query vector, and returns the tools to try, in order. Most policies try one
tool; :class:`RetryPolicy` returns a fallback chain that the simulator walks until a tool executes.
After each tried tool the simulator calls ``feedback`` with ``y = 1`` when the tool executed and
``y = 0`` on an error or timeout: the reward is availability, not relevance (the paper's y_t).
"""

from __future__ import annotations

import numpy as np

from rated.bandit import FUSION_WEIGHTS, DiscountedLinUCB, DiscountedUCB1, fuse


class Policy:
    """Base: ``choose`` the tools to try at step ``t``; ``feedback`` learns from each tried tool."""

    name = "policy"

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        raise NotImplementedError

    def feedback(self, t: int, arm: int, x: np.ndarray, y: float) -> None:
        """Static policies ignore feedback."""


def _best(candidates: np.ndarray, scores: np.ndarray) -> list[int]:
    # argmax keeps the first of equal scores, i.e. the better semantic rank
    return [int(candidates[int(np.argmax(scores))])]


class StaticPolicy(Policy):
    """The static ranker: always the top semantic candidate."""

    name = "static"

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        return [int(candidates[0])]


class PriorPolicy(Policy):
    """RATED (w/o Feedback): the fused score with the bandit term frozen at its cold-start prior."""

    name = "rated_no_feedback"

    def __init__(
        self,
        r_static: np.ndarray,
        dim: int,
        alpha: float = 0.1,
        weights: tuple[float, float, float] = FUSION_WEIGHTS,
    ):
        self.r_static = np.asarray(r_static, dtype=np.float64)
        self.weights = weights
        # never updated, so only its analytic prior score is ever used
        self.bandit = DiscountedLinUCB(len(self.r_static), dim, alpha=alpha, diagonal=False, prior=self.r_static)

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        r = self.r_static[candidates]
        return _best(candidates, fuse(sem, self.bandit.prior_scores(candidates, x), r, self.weights))


class RatedPolicy(Policy):
    """RATED (Full): fused score with a discounted LinUCB updated after every execution."""

    name = "rated"

    def __init__(
        self,
        r_static: np.ndarray,
        dim: int,
        alpha: float = 0.1,
        gamma: float = 0.95,
        weights: tuple[float, float, float] = FUSION_WEIGHTS,
        diagonal: bool = True,
        intercept: bool = False,
    ):
        self.r_static = np.asarray(r_static, dtype=np.float64)
        self.weights = weights
        self.bandit = DiscountedLinUCB(
            len(self.r_static),
            dim,
            alpha=alpha,
            gamma=gamma,
            diagonal=diagonal,
            prior=self.r_static,
            intercept=intercept,
        )

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        r = self.r_static[candidates]
        return _best(candidates, fuse(sem, self.bandit.scores(candidates, x), r, self.weights))

    def feedback(self, t: int, arm: int, x: np.ndarray, y: float) -> None:
        self.bandit.update(arm, x, y)


class GlobalMABPolicy(Policy):
    """RATED (w/ Global MAB): fused score with a context-free discounted UCB1."""

    name = "rated_global_mab"

    def __init__(
        self,
        r_static: np.ndarray,
        alpha: float = 0.1,
        gamma: float = 0.95,
        weights: tuple[float, float, float] = FUSION_WEIGHTS,
    ):
        self.r_static = np.asarray(r_static, dtype=np.float64)
        self.weights = weights
        self.bandit = DiscountedUCB1(len(self.r_static), alpha=alpha, gamma=gamma, prior=self.r_static)

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        r = self.r_static[candidates]
        return _best(candidates, fuse(sem, self.bandit.scores(candidates), r, self.weights))

    def feedback(self, t: int, arm: int, x: np.ndarray, y: float) -> None:
        self.bandit.update(arm, y)


class BlacklistPolicy(Policy):
    """Health-check blacklist: one failed execution bans a tool for good."""

    name = "blacklist"

    def __init__(self, n_tools: int):
        self.banned = np.zeros(n_tools, dtype=bool)

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        allowed = np.flatnonzero(~self.banned[candidates])
        # with every candidate banned there is nothing better to do than the semantic top
        return [int(candidates[allowed[0] if allowed.size else 0])]

    def feedback(self, t: int, arm: int, x: np.ndarray, y: float) -> None:
        if y <= 0:
            self.banned[arm] = True


class RetryPolicy(Policy):
    """Retry (k): the top ``k`` candidates as a fallback chain, no memory across steps."""

    name = "retry"

    def __init__(self, k: int = 3):
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.k = k

    def choose(self, t: int, query_index: int, candidates: np.ndarray, sem: np.ndarray, x: np.ndarray) -> list[int]:
        return [int(c) for c in candidates[: self.k]]


class PeriodicBatchPolicy(Policy):
    """ToolRL-like batch proxy: learns per-tool success rates, but only every ``period`` steps.

    Feedback is buffered; at each multiple of ``period`` the estimate of every tool seen in the
    buffer moves toward its batch success rate (``lr = 1``: replaced by it). Between syncs the
    ranking is frozen, which is what makes a batch learner slow to react to an outage.
    """

    name = "batch"

    def __init__(
        self,
        r_static: np.ndarray,
        period: int = 500,
        lr: float = 1.0,
        weights: tuple[float, float, float] = FUSION_WEIGHTS,
    ):
        self.r_static = np.asarray(r_static, dtype=np.float64)
        self.period, self.lr, self.weights = period, lr, weights
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
        r = self.r_static[candidates]
        return _best(candidates, fuse(sem, self.estimate[candidates], r, self.weights))

    def feedback(self, t: int, arm: int, x: np.ndarray, y: float) -> None:
        self._pulls.setdefault(arm, []).append(y)


POLICIES = ("static", "rated_no_feedback", "rated", "rated_global_mab", "blacklist", "retry", "batch")


def make_policy(name: str, r_static: np.ndarray, dim: int, **kwargs) -> Policy:
    """A fresh policy by short name; ``kwargs`` go to its constructor (e.g. ``alpha``, ``k``, ``period``)."""
    r_static = np.asarray(r_static, dtype=np.float64)
    if name == "static":
        return StaticPolicy(**kwargs)
    if name == "rated_no_feedback":
        return PriorPolicy(r_static, dim, **kwargs)
    if name == "rated":
        return RatedPolicy(r_static, dim, **kwargs)
    if name == "rated_global_mab":
        return GlobalMABPolicy(r_static, **kwargs)
    if name == "blacklist":
        return BlacklistPolicy(len(r_static), **kwargs)
    if name == "retry":
        return RetryPolicy(**kwargs)
    if name == "batch":
        return PeriodicBatchPolicy(r_static, **kwargs)
    raise ValueError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")

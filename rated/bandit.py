"""The reliability bandits of RATED (Algorithm 1) and the score fusion (eq. 9).

- :class:`DiscountedLinUCB`: one linear model per tool (disjoint LinUCB, Li et al. 2010) whose
  statistics are discounted by ``gamma`` before each update (Garivier and Moulines 2011), so recent
  failures move a tool's score quickly. The diagonal variant (the paper's default) keeps only the
  diagonal of ``A``: O(d) per scored arm. The full variant keeps ``A^-1`` per touched arm.
- :class:`DiscountedUCB1`: the context-free "global MAB" of the ablation (Auer et al. 2002), with
  the same per-arm discount.
- :func:`fuse`: ``w1 S_sem + w2 S_bandit + w3 r_static``.

Both bandits start each arm from its catalog prior ``r_static`` (cold start): LinUCB with
``A = I`` and ``b = r_static * x0`` (``x0`` = every entry ``1/sqrt(d)``), UCB1 with one
pseudo-observation of reward ``r_static``.

``DiscountedLinUCB(intercept=True)`` is our variant, not the paper's: measured on EcoAgent, the
paper's prior ``r_static x0.x`` is close to 0 for real embeddings (their entries sum to about 0),
and discounting the identity prior away makes a failing arm's exploration bonus *grow*
(``alpha sqrt(d (1 - gamma))`` in the limit, above an untouched arm's ``alpha ||x||``), so the
paper's update keeps choosing a failed tool. The variant appends a constant feature to the context
(``x' = [x, 1] / sqrt(2)``), puts the prior on it (``theta0 . x' = r_static`` for every query) and
discounts only the data, not the ridge (``A <- gamma A + (1 - gamma) I + x' x'^T``, as in
D-LinUCB, Russac et al. 2019). Diagonal only.
"""

from __future__ import annotations

import math

import numpy as np

FUSION_WEIGHTS = (0.75, 0.15, 0.10)
# The paper's update discounts the identity prior away (A <- gamma A + x x^T), so in a direction an
# arm's recent contexts never touch, A^-1 grows like gamma^-n: past ~540 updates of one arm at
# gamma = 0.95 it exceeds 1e12, and float64 overflows after ~14k (NaN scores). Algorithm 1 as
# written has no cap (``max_inverse=None``, the default); the capped update is a named variant
# ("A^-1 capped") whose eigenvalues (full) or entries (diagonal) are held at or below this.
MAX_INVERSE = 1e12


def _prior(prior: np.ndarray | None, n_arms: int) -> np.ndarray:
    if prior is None:
        return np.zeros(n_arms, dtype=np.float64)
    prior = np.asarray(prior, dtype=np.float64)
    if prior.shape != (n_arms,):
        raise ValueError(f"prior has shape {prior.shape}, expected ({n_arms},)")
    return prior


def fuse(
    s_sem: np.ndarray, s_bandit: np.ndarray, r_static: np.ndarray, weights: tuple[float, float, float] = FUSION_WEIGHTS
) -> np.ndarray:
    """RATED eq. 9 over the candidates: ``w1 S_sem + w2 S_bandit + w3 r_static``."""
    w1, w2, w3 = weights
    return w1 * np.asarray(s_sem, dtype=np.float64) + w2 * s_bandit + w3 * r_static


class DiscountedLinUCB:
    """Disjoint discounted LinUCB over ``n_arms`` tools with ``dim``-dimensional contexts.

    ``scores(arms, x)`` is ``theta_a . x + alpha sqrt(x^T A_a^-1 x)`` with ``theta_a = A_a^-1 b_a``;
    ``update(arm, x, y)`` applies ``A <- gamma A + x x^T`` and ``b <- gamma b + y x`` to that arm only.
    With ``gamma=1`` and ``diagonal=False`` this is exactly LinUCB with ridge 1. ``x`` is one context
    shared by every scored arm (the query, as in the paper) or one row per arm (e.g. each tool's own
    embedding). ``max_inverse`` caps ``A^-1`` (a declared variant; None: the paper's update).
    """

    def __init__(
        self,
        n_arms: int,
        dim: int,
        alpha: float = 0.1,
        gamma: float = 0.95,
        diagonal: bool = True,
        prior: np.ndarray | None = None,
        intercept: bool = False,
        max_inverse: float | None = None,
    ):
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        if intercept and not diagonal:
            raise ValueError("intercept=True is implemented for the diagonal variant only")
        self.intercept = intercept
        dim = dim + 1 if intercept else dim  # the constant feature
        self.n_arms, self.dim = n_arms, dim
        self.alpha, self.gamma, self.diagonal = alpha, gamma, diagonal
        self.max_inverse = max_inverse
        self.largest_inverse = 1.0  # the largest A^-1 entry (diagonal) or diagonal entry (full) ever reached
        self.prior = _prior(prior, n_arms)
        self.x0 = np.full(dim, 1.0 / math.sqrt(dim))
        if intercept:  # the prior sits on the constant feature: theta0 . x' = r_static for any x
            self.x0 = np.zeros(dim)
            self.x0[-1] = math.sqrt(2.0)
        if diagonal:
            # dense (n_arms x d) state: 5,000 x 384 float64 is 15 MB per array, cheaper than a dict;
            # 1/A and theta are kept beside A and b so scoring is two gathers and two mat-vecs
            self._a = np.ones((n_arms, dim))
            self._b = self.prior[:, None] * self.x0[None, :]
            self._a_inv_diag = np.ones((n_arms, dim))
            self._theta = self._b.copy()
        else:
            # only touched arms pay for a d x d inverse; the others are scored from the prior
            self._a_inv: dict[int, np.ndarray] = {}
            self._b_full: dict[int, np.ndarray] = {}

    def _context(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if not self.intercept:
            return x
        ones = np.ones((*x.shape[:-1], 1))
        return np.concatenate([x, ones], axis=-1) / math.sqrt(2.0)

    def prior_scores(self, arms: np.ndarray, x: np.ndarray) -> np.ndarray:
        """What an untouched arm scores: ``A = I`` gives ``r_static x0.x + alpha ||x||``."""
        x = self._context(x)
        return self.prior[arms] * (x @ self.x0) + self.alpha * np.sqrt(np.sum(x * x, axis=-1))

    def parts(self, arms: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(theta_a . x, alpha sqrt(x^T A_a^-1 x))`` per arm: the estimate and the exploration bonus."""
        x = self._context(x)
        arms = np.asarray(arms)
        if self.diagonal:
            if x.ndim == 1:
                return self._theta[arms] @ x, self.alpha * np.sqrt(self._a_inv_diag[arms] @ (x * x))
            mean = np.einsum("kd,kd->k", self._theta[arms], x)
            return mean, self.alpha * np.sqrt(np.einsum("kd,kd->k", self._a_inv_diag[arms], x * x))
        xs = np.broadcast_to(x, (len(arms), self.dim))
        mean = self.prior[arms] * (xs @ self.x0)
        bonus = self.alpha * np.sqrt(np.sum(xs * xs, axis=1))
        for i, arm in enumerate(arms.tolist()):
            a_inv = self._a_inv.get(arm)
            if a_inv is not None:
                u = a_inv @ xs[i]  # A^-1 is symmetric, so theta.x = b . A^-1 x
                mean[i] = float(self._b_full[arm] @ u)
                bonus[i] = self.alpha * math.sqrt(max(float(xs[i] @ u), 0.0))
        return mean, bonus

    def scores(self, arms: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``S_bandit`` (eq. 6) of each arm in ``arms`` for context ``x``, one float64 per arm."""
        mean, bonus = self.parts(arms, x)
        return mean + bonus

    def update(self, arm: int, x: np.ndarray, y: float) -> None:
        """Discount the chosen arm's statistics, then add the observation ``(x, y)`` (eqs. 7-8)."""
        x = self._context(x)
        g = self.gamma
        if self.diagonal:
            a, b, a_inv, theta = self._a[arm], self._b[arm], self._a_inv_diag[arm], self._theta[arm]
            a *= g
            if self.intercept:
                a += 1.0 - g  # the ridge is not discounted away
            a += x * x
            if self.max_inverse is not None:
                np.maximum(a, 1.0 / self.max_inverse, out=a)
            b *= g
            b += y * x
            np.divide(1.0, a, out=a_inv)  # the paper's update may overflow here; run it under np.errstate
            np.multiply(b, a_inv, out=theta)
            self._note_inverse(float(a_inv.max()))
            return
        a_inv = self._a_inv.get(arm)
        if a_inv is None:
            a_inv = np.eye(self.dim)
            self._b_full[arm] = self.prior[arm] * self.x0
        # (gA + xx^T)^-1 = (A^-1 - A^-1 x x^T A^-1 / (g + x^T A^-1 x)) / g   (Sherman-Morrison)
        u = a_inv @ x
        with np.errstate(over="ignore", invalid="ignore"):
            a_inv = (a_inv - np.outer(u, u) / (g + float(x @ u))) / g
        largest = float(a_inv.diagonal().max())
        if self.max_inverse is not None and largest > self.max_inverse:
            # clip well below the cap so this O(d^3) repair runs about once per ln(1e3)/ln(1/g) updates
            w, v = np.linalg.eigh(a_inv)
            a_inv = (v * np.clip(w, 0.0, self.max_inverse * 1e-3)) @ v.T
            largest = float(a_inv.diagonal().max())
        self._note_inverse(largest)
        self._a_inv[arm] = a_inv
        self._b_full[arm] = g * self._b_full[arm] + y * x

    def _note_inverse(self, largest: float) -> None:
        # NaN (an overflowed A^-1) counts as infinitely large, not as "smaller than anything"
        self.largest_inverse = math.inf if math.isnan(largest) else max(self.largest_inverse, largest)

    def inverse(self, arm: int) -> np.ndarray:
        """``A_arm^-1`` as a d x d matrix (diagonal variant: the diagonal matrix it keeps)."""
        if self.diagonal:
            return np.diag(self._a_inv_diag[arm])
        return self._a_inv.get(arm, np.eye(self.dim)).copy()

    def theta(self, arm: int) -> np.ndarray:
        """``theta_arm = A^-1 b``."""
        if self.diagonal:
            return self._theta[arm].copy()
        if arm not in self._a_inv:
            return self.prior[arm] * self.x0
        return self._a_inv[arm] @ self._b_full[arm]


class DiscountedUCB1:
    """Context-free UCB1 per tool with discounted counts: the "RATED (w/ Global MAB)" ablation.

    Each arm keeps a discounted pull count ``n_a`` and reward sum ``s_a``, both starting at one
    pseudo-observation of reward ``r_static(a)``. Only the chosen arm is discounted, as in
    :class:`DiscountedLinUCB`, so a rarely retrieved tool keeps its history and prior.
    Score: ``s_a / n_a + alpha sqrt(2 ln N / n_a)`` with ``N = sum_a n_a``.
    """

    def __init__(self, n_arms: int, alpha: float = 0.1, gamma: float = 0.95, prior: np.ndarray | None = None):
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        self.n_arms, self.alpha, self.gamma = n_arms, alpha, gamma
        self.counts = np.ones(n_arms)
        self.rewards = _prior(prior, n_arms).copy()
        self.total = float(n_arms)  # kept incrementally: summing 5,000 counts per step is wasted work

    def scores(self, arms: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
        """UCB1 score of each arm; ``x`` is accepted and ignored (the bandit is context-free)."""
        n = self.counts[arms]
        log_total = math.log(max(self.total, math.e))
        return self.rewards[arms] / n + self.alpha * np.sqrt(2.0 * log_total / n)

    def update(self, arm: int, y: float, x: np.ndarray | None = None) -> None:
        old = self.counts[arm]
        self.counts[arm] = self.gamma * old + 1.0
        self.rewards[arm] = self.gamma * self.rewards[arm] + y
        self.total += self.counts[arm] - old

"""Percentile bootstrap intervals over items (queries, tools): the uncertainty of a figure from one sample.

For ``n`` item values ``x``, each of ``resamples`` draws takes ``n`` items with replacement and computes the
statistic; the interval is the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of those draws (Efron &
Tibshirani 1993, ch. 13). Paired figures (two retrievers on the same queries) resample the same items for both, so
the interval of their difference keeps the pairing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Statistic = Callable[[np.ndarray], float]


def bootstrap_interval(values: np.ndarray | list[float], statistic: Statistic = np.mean, resamples: int = 2000,
                       seed: int = 0, level: float = 0.95) -> tuple[float, float]:  # fmt: skip
    """The percentile interval of ``statistic`` over the rows of ``values`` (items first; extra axes ride along).

    A draw whose statistic is undefined (nan: an AUC of a draw that holds one class only) is left out of the
    quantiles; when every draw is, the interval is nan.
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return float("nan"), float("nan")
    draws = _draws(len(values), resamples, seed)
    return percentile_interval([statistic(values[rows]) for rows in draws], level)


def _draws(n_items: int, resamples: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n_items, size=(resamples, n_items))


def bootstrap_counts(n_items: int, resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """``(resamples, n_items)``: how many times each draw of :func:`bootstrap_interval` (the same seed, the same
    draws) takes each item. A statistic that takes weights computes a draw from its counts without copying rows."""
    draws = _draws(n_items, resamples, seed)
    counts = np.zeros((resamples, n_items), dtype=np.int64)
    np.add.at(counts, (np.arange(resamples)[:, None], draws), 1)
    return counts


def percentile_interval(estimates: np.ndarray | list[float], level: float = 0.95) -> tuple[float, float]:
    """The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the draws' estimates, nan ones left out."""
    estimates = np.asarray(estimates, dtype=np.float64)
    estimates = estimates[~np.isnan(estimates)]
    if len(estimates) == 0:
        return float("nan"), float("nan")
    low, high = np.quantile(estimates, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def paired_difference_interval(a: np.ndarray | list[float], b: np.ndarray | list[float], resamples: int = 2000,
                               seed: int = 0, level: float = 0.95) -> tuple[float, float]:  # fmt: skip
    """The interval of ``mean(a) - mean(b)`` over the same items resampled for both."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired values need the same items: {a.shape} != {b.shape}")
    return bootstrap_interval(a - b, np.mean, resamples, seed, level)

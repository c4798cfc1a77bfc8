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
    draws = np.random.default_rng(seed).integers(0, len(values), size=(resamples, len(values)))
    estimates = np.array([statistic(values[rows]) for rows in draws], dtype=np.float64)
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

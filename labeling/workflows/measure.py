"""Precision, recall and F1 of verified (query, tool) pairs against known labels, with 95 % bootstrap intervals.

Micro-averaged over the queries measured. For query q with predicted set P_q, required set T_q (the exact labels)
and acceptable set A_q (alternatives: a stripped node's tools, acceptable, not required)::

    tp_q = |P_q ∩ T_q|        predicted_q = |P_q \\ (A_q \\ T_q)|        required_q = |T_q|
    precision = Σ tp_q / Σ predicted_q      recall = Σ tp_q / Σ required_q      F1 = 2PR / (P + R)

A predicted alternative counts neither for nor against precision; a query with no required tool counts only for
precision. The 95 % interval of each is the 2.5th and 97.5th percentile over ``resamples`` bootstrap samples of
the queries (drawn with replacement, seeded): the queries are the unit that was sampled, the pairs of one query
are not independent. ``by_tools`` repeats the figures per number of required tools in the query (1, 2, 3, 4, 5+;
0: alternatives only).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

BUCKETS = ("0", "1", "2", "3", "4", "5+")


def _counts(queries: list[str], predicted: Mapping[str, set[str]], required: Mapping[str, set[str]],
            acceptable: Mapping[str, set[str]]) -> np.ndarray:  # fmt: skip
    """Per query: (tp, predicted, required)."""
    out = np.zeros((len(queries), 3), dtype=np.int64)
    for i, q in enumerate(queries):
        pred, need = predicted.get(q, set()), required.get(q, set())
        ignored = acceptable.get(q, set()) - need
        out[i] = (len(pred & need), len(pred - ignored), len(need))
    return out


def _ratios(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, recall, F1) of summed counts (..., 3); NaN where undefined."""
    tp, pred, need = sums[..., 0].astype(float), sums[..., 1].astype(float), sums[..., 2].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(pred > 0, tp / pred, np.nan)
        r = np.where(need > 0, tp / need, np.nan)
        f1 = np.where((p + r) > 0, 2 * p * r / (p + r), np.where(np.isnan(p) | np.isnan(r), np.nan, 0.0))
    return p, r, f1


def _round(value: float) -> float | None:
    return None if value is None or np.isnan(value) else round(float(value), 4)


def measure(predicted: Mapping[str, set[str]], required: Mapping[str, set[str]],
            acceptable: Mapping[str, set[str]] | None = None, *, queries: list[str] | None = None, seed: int = 0,
            resamples: int = 1000) -> dict:  # fmt: skip
    """Precision, recall, F1 and their 95 % intervals (module docstring) over ``queries`` (default: ``required``'s)."""
    acceptable = acceptable or {}
    queries = sorted(required) if queries is None else list(queries)
    counts = _counts(queries, predicted, required, acceptable)
    p, r, f1 = _ratios(counts.sum(axis=0))
    tp, n_pred, n_req = (int(v) for v in counts.sum(axis=0))
    out = {"queries": len(queries), "correct_pairs": tp, "verified_pairs": n_pred, "required_pairs": n_req,
           "precision": _round(p), "recall": _round(r), "f1": _round(f1)}
    if len(queries) and resamples:
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, len(queries), size=(resamples, len(queries)))
        bp, br, bf = _ratios(counts[draws].sum(axis=1))
        for name, values in (("precision", bp), ("recall", br), ("f1", bf)):
            finite = values[~np.isnan(values)]
            low, high = np.percentile(finite, [2.5, 97.5]) if len(finite) else (np.nan, np.nan)
            out[f"{name}_ci95"] = [_round(low), _round(high)]
    return out


def bucket(required: int) -> str:
    return BUCKETS[min(required, len(BUCKETS) - 1)]


def measure_by_tools(predicted: Mapping[str, set[str]], required: Mapping[str, set[str]],
                     acceptable: Mapping[str, set[str]], queries: list[str], *, seed: int,
                     resamples: int) -> dict:  # fmt: skip
    """:func:`measure` overall and per number of required tools (``by_tools``)."""
    out = measure(predicted, required, acceptable, queries=queries, seed=seed, resamples=resamples)
    groups: dict[str, list[str]] = {}
    for q in queries:
        groups.setdefault(bucket(len(required.get(q, ()))), []).append(q)
    out["by_tools"] = {
        b: measure(predicted, required, acceptable, queries=groups[b], seed=seed, resamples=resamples)
        for b in BUCKETS
        if b in groups
    }
    return out

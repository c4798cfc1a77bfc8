"""Candidate retrieval: the top-k catalog tools per query by cosine, above a floor (RATED: GTE-Large,
top-5, cosine >= 0.7). One exact matrix product over normalized embeddings; no approximate index
is needed at this catalog size."""

from __future__ import annotations

import numpy as np


def top_k_candidates(query_vecs: np.ndarray, tool_vecs: np.ndarray, k: int, min_cosine: float):
    """Per query: a list of (tool index, cosine), best first, at most k, all >= min_cosine."""
    if len(query_vecs) == 0 or len(tool_vecs) == 0:
        return [[] for _ in range(len(query_vecs))]
    sims = query_vecs @ tool_vecs.T
    k = min(k, sims.shape[1])
    top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    out = []
    for row, idx in enumerate(top):
        # ties broken by tool index so the choice is deterministic
        ranked = sorted(idx.tolist(), key=lambda j: (-sims[row, j], j))
        out.append([(j, float(sims[row, j])) for j in ranked if sims[row, j] >= min_cosine])
    return out


def top_k_candidates_loop(query_vecs: np.ndarray, tool_vecs: np.ndarray, k: int, min_cosine: float):
    """The same result with a plain Python loop: the benchmark's baseline, never used by the stage."""
    out = []
    for q in query_vecs.tolist():
        scores = [(j, sum(a * b for a, b in zip(q, t, strict=True))) for j, t in enumerate(tool_vecs.tolist())]
        scores.sort(key=lambda js: (-js[1], js[0]))
        out.append([(j, s) for j, s in scores[:k] if s >= min_cosine])
    return out

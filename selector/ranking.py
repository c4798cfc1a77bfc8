"""Scoring the allowed tools: BM25, dense cosine, reciprocal rank fusion and an optional re-ranker.

Filtering happens before anything here runs: every scorer takes the allowed registry rows and
returns one score per allowed row, so a disallowed tool never gets a rank.

Lexical statistics (IDF, average length) come from one BM25 index per tenant by default
(``stats="tenant"``): a tenant's private tools never shift another tenant's ranking. Inside a
tenant the index also holds the tools the *caller* may not use; their text moves the IDF of shared
words a little, but they are never scored or returned. ``stats="scope_set"`` instead fits one index
per (tenant, allowed set), so not even IDF sees a disallowed tool; those indexes are kept in a small
LRU because fitting one costs milliseconds to a second, depending on the catalog.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from ecoagent.retrieval.rankers import BM25Retriever

QueryEncoder = Callable[[str], np.ndarray]
Reranker = Callable[[str, list[str]], np.ndarray]


def reciprocal_rank_fusion(
    rankings: Sequence[np.ndarray], size: int, k: float = 60.0, weights: Sequence[float] | None = None
) -> np.ndarray:
    """Fused score per position: sum of ``w / (k + rank)`` over the rankings that list it (rank from 1).

    A ranking may list only some positions (BM25 leaves out tools that share no word with the
    query); a position no ranking lists scores 0.
    """
    weights = weights or [1.0] * len(rankings)
    fused = np.zeros(size, dtype=np.float64)
    for ranking, weight in zip(rankings, weights, strict=True):
        fused[ranking] += weight / (k + np.arange(1, len(ranking) + 1))
    return fused


def best_first(scores: np.ndarray, k: int, positive: bool = False) -> np.ndarray:
    """Positions of the ``k`` best scores, best first, ties in position order; ``positive``: scores > 0 only.

    The order :func:`ecoagent.retrieval.rankers.top_k` gives one row, with ties at the k-th score settled the same
    way (the lower position is kept). The k-th best value comes from a plain sort of the values (numpy's SIMD sort
    beats a partition at catalog sizes); only the scores at or above it are ordered.
    """
    size = len(scores)
    if k <= 0 or not size:
        return np.zeros(0, dtype=np.int64)
    kth = np.sort(scores)[size - k] if k < size else None
    if kth is None or (positive and kth <= 0):  # everything, or every positive score, makes the cut
        keep = np.flatnonzero(scores > 0) if positive else np.arange(size)
    else:
        keep = np.flatnonzero(scores >= kth)
        if len(keep) > k:  # a tie at the k-th value: its first positions are kept
            above = scores[keep] > kth
            above[np.flatnonzero(~above)[: k - int(np.count_nonzero(above))]] = True
            keep = keep[above]
    return keep[np.argsort(-scores[keep], kind="stable")]


def fuse(rankings: Sequence[np.ndarray], weights: Sequence[float], k: float, limit: int) -> np.ndarray:
    """The ``limit`` best positions by :func:`reciprocal_rank_fusion`, best first, ties in position order.

    Only positions some ranking lists are scored (the others fuse to 0 and are never returned), so the cost follows
    the rankings' length, not the catalog's.
    """
    if not rankings:
        return np.zeros(0, dtype=np.int64)
    if len(rankings) == 1 and weights[0] > 0:  # one ranking fuses to a falling score: its own order
        return rankings[0][:limit]
    positions = np.unique(np.concatenate(rankings))
    fused = np.zeros(len(positions), dtype=np.float64)
    for ranking, weight in zip(rankings, weights, strict=True):
        fused[np.searchsorted(positions, ranking)] += weight / (k + np.arange(1, len(ranking) + 1))
    return positions[best_first(fused, limit, positive=True)]


class LexicalScorer:
    """BM25 over the registry documents, with statistics per tenant or per (tenant, allowed set)."""

    def __init__(self, documents: Sequence[str], stats: str = "tenant", cache_size: int = 32):
        if stats not in ("tenant", "scope_set"):
            raise ValueError(f"stats must be 'tenant' or 'scope_set', not {stats!r}")
        self.documents = list(documents)
        self.stats = stats
        self.cache_size = cache_size
        self._indexes: OrderedDict[tuple, tuple[np.ndarray, BM25Retriever]] = OrderedDict()
        self._lock = threading.Lock()  # the service scores from a thread pool

    def _index(self, key: tuple, rows: np.ndarray) -> tuple[np.ndarray, BM25Retriever]:
        """(position of each registry row in the index or -1, the index over ``rows``), fitted on first use."""
        with self._lock:
            if key in self._indexes:
                self._indexes.move_to_end(key)
                return self._indexes[key]
            position = np.full(len(self.documents), -1, dtype=np.int64)
            position[rows] = np.arange(len(rows))
            built = (position, BM25Retriever().fit([self.documents[r] for r in rows]))
            self._indexes[key] = built
            if len(self._indexes) > self.cache_size:
                self._indexes.popitem(last=False)
            return built

    def scores(self, query: str, allowed_rows: np.ndarray, tenant: str | None, tenant_rows: np.ndarray) -> np.ndarray:
        """BM25 of ``query`` for each allowed row (``allowed_rows`` ascending, a subset of ``tenant_rows``)."""
        if not len(allowed_rows):
            return np.zeros(0, dtype=np.float32)
        if self.stats == "scope_set":
            _, index = self._index(("scope_set", tenant, allowed_rows.tobytes()), allowed_rows)
            return index.score_one(query)
        position, index = self._index(("tenant", tenant), tenant_rows)
        scores = index.score_one(query)
        return scores if len(scores) == len(allowed_rows) else scores[position[allowed_rows]]


class DenseScorer:
    """Cosine of a query vector with cached, L2-normalized tool vectors (one row per registry row)."""

    def __init__(self, tool_vectors: np.ndarray, encode_query: QueryEncoder):
        self.tool_vectors = np.asarray(tool_vectors, dtype=np.float32)
        self.encode_query = encode_query

    def scores(self, query: str, allowed_rows: np.ndarray, query_vector: np.ndarray | None = None,
               all_scores: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
        """Cosine for each allowed row; ``all_scores`` (every tool's, from :meth:`batch_scores`) skips the product."""
        if all_scores is None:
            vector = np.asarray(self.encode_query(query) if query_vector is None else query_vector, dtype=np.float32)
            # einsum, not BLAS: a single matrix-vector product is memory-bound, and a multi-threaded BLAS call
            # fighting torch's OpenMP threads for the same cores took 20x longer (measured). Every row, then the
            # allowed ones: copying the allowed rows of the matrix first cost more than the product itself.
            all_scores = np.einsum("ij,j->i", self.tool_vectors, vector)
        return all_scores if len(allowed_rows) == len(all_scores) else all_scores[allowed_rows]

    def batch_scores(self, query_vectors: np.ndarray) -> np.ndarray:
        """Every tool's cosine for each of a batch of query vectors: one matrix product reads the tool vectors once
        for the whole batch (a query at a time, reading them is most of the cost: memory-bound)."""
        return np.asarray(query_vectors, dtype=np.float32) @ self.tool_vectors.T

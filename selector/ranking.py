"""Scoring the allowed tools: BM25, dense cosine and an optional re-ranker (fused by :mod:`ecoagent.retrieval.fusion`).

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

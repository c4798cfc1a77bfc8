"""Reciprocal rank fusion: several rankings of one catalog as one (Cormack et al., SIGIR 2009).

``RRF(d) = sum_r w_r / (k + rank_r(d))`` over the rankings ``r`` that list ``d`` (rank from 1); a position no ranking
lists scores 0. The selector fuses BM25 and the dense encoder this way at serving time, and ``ecoagent rated`` runs
the same fusion over whole retrievers as Table 1's hybrid baseline (:class:`FusedRetriever`), so the two agree.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ecoagent.release_format.reader import Corpus
from ecoagent.retrieval.rankers import Retriever


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


class FusedRetriever:
    """Reciprocal rank fusion of whole retrievers: each one's ``depth`` best tools, fused with ``k`` and ``weights``.

    Its scores are the fused RRF values (0 for a tool no retriever ranks in its top ``depth``), so Table 1's metrics
    and a bandit read it like any other retriever. A lexical retriever's tools without a shared word (score 0) are
    not ranked, as in the selector.
    """

    def __init__(
        self,
        name: str,
        retrievers: Sequence[Retriever],
        k: float = 60.0,
        weights: Sequence[float] | None = None,
        depth: int = 100,
        lexical: Sequence[bool] | None = None,
    ):
        self.name = name
        self.retrievers = list(retrievers)
        self.k = k
        self.weights = list(weights or [1.0] * len(self.retrievers))
        self.depth = depth
        self.lexical = list(lexical or [False] * len(self.retrievers))

    def fit(self, corpus: Corpus) -> FusedRetriever:
        """Fit every retriever (retrievers fitted already need no call)."""
        for retriever in self.retrievers:
            retriever.fit(corpus)
        return self

    def score(self, queries: list[str]) -> np.ndarray:
        each = [retriever.score(queries) for retriever in self.retrievers]
        size = each[0].shape[1] if each else 0
        fused = np.zeros((len(queries), size), dtype=np.float32)
        for row in range(len(queries)):
            rankings = [best_first(scores[row], self.depth, positive=lexical)
                        for scores, lexical in zip(each, self.lexical, strict=True)]  # fmt: skip
            fused[row] = reciprocal_rank_fusion(rankings, size, self.k, self.weights)
        return fused

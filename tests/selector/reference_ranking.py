"""The selector's ranking as it was before issue 24, kept as the reference the fast path must equal.

BM25 scores from ``bm25s`` (its tokenizer, then ``get_scores``), ``top_k`` over every allowed tool, reciprocal rank
fusion over the whole allowed list, ``top_k`` again. Used by ``tests/selector/test_rankings_unchanged.py`` and by
``benchmarks/selector_throughput.py`` (which checks the release it times).
"""

from __future__ import annotations

from functools import lru_cache

import bm25s
import numpy as np

from ecoagent.retrieval.fusion import reciprocal_rank_fusion
from ecoagent.retrieval.rankers import BM25Retriever, top_k
from selector.select import ToolSelector


def bm25s_scores(retriever: BM25Retriever, query: str) -> np.ndarray:
    """``BM25Retriever.score_one`` before issue 24: bm25s's own tokenizer and ``get_scores``."""
    words = bm25s.tokenize([query], stopwords="en", stemmer=retriever._stemmer, return_ids=False,
                           show_progress=False)[0]  # fmt: skip
    known = [w for w in words if w in retriever._index.vocab_dict]
    if not known:
        return np.zeros(retriever._size, dtype=np.float32)
    return np.asarray(retriever._index.get_scores(known), dtype=np.float32)


@lru_cache(maxsize=8)
def _fitted(documents: tuple[str, ...]) -> BM25Retriever:
    return BM25Retriever().fit(list(documents))


def reference_rank(selector: ToolSelector, query: str, allowed_rows: np.ndarray, tenant: str | None,
                   query_vector: np.ndarray | None) -> list[int]:  # fmt: skip
    """``ToolSelector.rank`` before issue 24 (tenant statistics)."""
    cfg = selector.settings
    if not len(allowed_rows):
        return []
    rankings, weights = [], []
    if "bm25" in cfg.rankers:
        tenant_rows = selector.registry.rows_of_tenant(tenant)
        retriever = _fitted(tuple(selector.registry.tools[r].document for r in tenant_rows))
        lexical = bm25s_scores(retriever, query)[np.searchsorted(tenant_rows, allowed_rows)]
        order = top_k(lexical[None, :], cfg.fusion_depth)[0]
        rankings.append(order[lexical[order] > 0])
        weights.append(cfg.weights.get("bm25", 1.0))
    if selector.dense is not None:
        vectors = selector.dense.tool_vectors
        matrix = vectors if len(allowed_rows) == len(vectors) else vectors[allowed_rows]
        semantic = np.einsum("ij,j->i", matrix, query_vector)
        rankings.append(top_k(semantic[None, :], cfg.fusion_depth)[0])
        weights.append(cfg.weights.get("dense", 1.0))
    fused = reciprocal_rank_fusion(rankings, len(allowed_rows), cfg.rrf_k, weights)
    order = top_k(fused[None, :], cfg.candidate_pool)[0]
    return allowed_rows[order[fused[order] > 0]].tolist()

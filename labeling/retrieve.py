"""The label stage's candidate retrieval: the top-k catalog tools per query above the cosine floor, each pair scored
by a second, independent embedder (the agreement score).

``label.retriever`` (e5-small) ranks the whole catalog, or with ``label.retrieval_depth`` the pool the agreement
embedder (MiniLM) picks per query (:mod:`ecoagent.retrieval.pool`). The catalog's vectors are embedded (or read from
the cache) once for every retrieval call of the stage: the Real queries, the gold questions and the workflow set's
two views. Each call's embedding passes are phases of the running step, numbered (``retrieval 2: embed the queries
(e5)``).
"""

from __future__ import annotations

import itertools
from functools import cached_property

import numpy as np
import polars as pl

from ecoagent.config import Config
from ecoagent.retrieval.embedding import query_and_tool_encoders
from ecoagent.text.documents import tool_text, tool_texts


class CandidateRetrieval:
    """Candidate pairs of queries and catalog tools (see the module docstring)."""

    def __init__(self, config: Config, catalog: pl.DataFrame) -> None:
        cfg = self.settings = config.label
        cache_dir, device = config.resolve_path(config.embedding.cache_dir), config.embedding.device
        self.query_encoder, self.tool_encoder = query_and_tool_encoders(cfg.retriever, cache_dir, "label.retriever",
                                                                        device)  # fmt: skip
        self.agree_q, self.agree_t = query_and_tool_encoders(cfg.agreement_embedder, cache_dir,
                                                             "label.agreement_embedder", device)  # fmt: skip
        self.texts = tool_texts(catalog)
        self.tools = catalog.select("tool_id", "name", "description", "doc_summary", "content_hash",
                                    "platform").to_dicts()  # fmt: skip
        self.pools: list[int] = []  # the tools ranked, per call (with a depth)
        self._calls = itertools.count(1)

    @cached_property
    def retriever_tools(self) -> np.ndarray:
        return self.tool_encoder.encode(self.texts, phase="embed the catalog (e5)")

    @cached_property
    def first_stage_tools(self) -> np.ndarray:
        return self.agree_t.encode(self.texts, phase="embed the catalog (MiniLM)")

    def retrieve(self, query_texts: list[str]) -> list:
        """Top-k (catalog row, cosine) per query above the cosine floor by the retriever: over the whole catalog, or
        with ``label.retrieval_depth`` over the pool the agreement embedder picks."""
        from ecoagent.retrieval.pool import first_stage_pool
        from labeling.candidates import top_k_candidates

        cfg, call = self.settings, f"retrieval {next(self._calls)}"
        query_vecs = self.query_encoder.encode(query_texts, phase=f"{call}: embed the queries (e5)")
        if cfg.retrieval_depth is None:
            return top_k_candidates(query_vecs, self.retriever_tools, cfg.top_k, cfg.min_cosine)
        first_stage = self.agree_q.encode(query_texts, phase=f"{call}: embed the queries (MiniLM)")
        pool = first_stage_pool(first_stage, self.first_stage_tools, cfg.retrieval_depth)
        self.pools.append(len(pool))
        pool_vectors = self.tool_encoder.encode([self.texts[i] for i in pool],
                                                phase=f"{call}: embed the pool (e5 passages)")  # fmt: skip
        found = top_k_candidates(query_vecs, pool_vectors, cfg.top_k, cfg.min_cosine)
        return [[(int(pool[j]), cos) for j, cos in cands] for cands in found]

    def candidate_pairs(self, ids: list[str], query_texts: list[str]) -> tuple[list, list[dict]]:
        """(each query's candidates, the candidate pairs): top-k tools per query above the cosine floor, each pair
        with its embedding-agreement score."""
        found = self.retrieve(query_texts)
        out = [
            {"query_id": qid, "text": text, **self.tools[j], "retrieval_cosine": round(cos, 6)}
            for qid, text, cands in zip(ids, query_texts, found, strict=True)
            for j, cos in cands
        ]
        if out:  # a second, independent embedder on the same pair
            qa = self.agree_q.encode([p["text"] for p in out])
            ta = self.agree_t.encode([tool_text(p["name"], p["description"], p["doc_summary"]) for p in out])
            for pair, score in zip(out, np.clip(np.einsum("ij,ij->i", qa, ta), 0.0, 1.0), strict=True):
                pair["agreement_score"] = round(float(score), 6)
        return found, out

"""Offline retrieval metrics (the paper's Table 1) with ``ranx``.

A retriever's ``(queries x tools)`` score matrix becomes a ranx ``Run`` of its top ``depth`` tools. The
run's scores are rank-derived (``depth - position``) from our own stable ordering, so ties are broken by
corpus order here, once, and not by ranx's or trec_eval's document-id rule (pytrec_eval issue #56).
Recall@k is the share of a query's relevant tools in its top k, averaged over queries (ranx's
definition); with one relevant tool per query it is the hit rate the paper reports.

A query's alternatives (``QuerySet.acceptable``: the gold set's same-named tools of other servers, acceptable,
not required) are dropped from its ranking before the cut, so a retrieved alternative is neither right nor wrong:
it neither counts as relevant nor pushes a required tool down (the labeling measure's rule,
``labeling/workflows/measure.py``).
"""

from __future__ import annotations

import numpy as np

from ecoagent.release_format.reader import Corpus, QuerySet
from ecoagent.retrieval.rankers import top_k

METRICS = ("mrr", "recall@1", "recall@5", "ndcg@10")


def ranx_run(scores: np.ndarray, queries: QuerySet, corpus: Corpus, depth: int = 100) -> dict[str, dict[str, float]]:
    """``{query_id: {tool_id: score}}`` of each query's top ``depth`` tools but its alternatives, scores strictly
    decreasing."""
    skip = queries.acceptable or [[] for _ in queries.ids]
    ranked = top_k(scores, depth + max(map(len, skip), default=0))
    run = {}
    for qid, row, alternatives in zip(queries.ids, ranked, skip, strict=True):
        dropped = set(alternatives)
        kept = [j for j in row if j not in dropped][:depth]
        run[qid] = {corpus.ids[j]: float(depth - pos) for pos, j in enumerate(kept)}
    return run


def evaluate(
    scores: np.ndarray, queries: QuerySet, corpus: Corpus, metrics: tuple[str, ...] = METRICS
) -> dict[str, float]:
    """ranx metrics of one score matrix; ``{"queries": n, metric: value}``."""
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    if len(queries) == 0:
        return {"queries": 0}
    if scores.shape != (len(queries), len(corpus)):
        raise ValueError(f"{queries.name}: score matrix {scores.shape} != ({len(queries)}, {len(corpus)})")
    qrels = Qrels(queries.qrels(corpus))
    run = Run(ranx_run(scores, queries, corpus))
    values = ranx_evaluate(qrels, run, list(metrics), make_comparable=True)
    if isinstance(values, float):  # ranx returns a bare float for a single metric
        values = {metrics[0]: values}
    return {"queries": len(queries), **{m: round(float(values[m]), 6) for m in metrics}}

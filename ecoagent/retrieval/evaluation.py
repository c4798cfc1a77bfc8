"""Offline retrieval metrics (the paper's Table 1) with ``ranx``.

A retriever's ``(queries x tools)`` score matrix becomes a ranx ``Run`` of its top ``depth`` tools. The
run's scores are rank-derived (``depth - position``) from our own stable ordering, so ties are broken by
corpus order here, once, and not by ranx's or trec_eval's document-id rule (pytrec_eval issue #56).
Recall@k is the share of a query's relevant tools in its top k, averaged over queries (ranx's
definition); with one relevant tool per query it is the hit rate the paper reports. Success@1 is the share of
queries whose first tool is relevant (ranx's hit rate at 1): with several relevant tools (a workflow's) it is what a
static ranker's first pick achieves, and what Table 2's pre-onset success rate measures on the same queries.

Graded qrels (the workflow set: 2 where the title names the tool's service, 1 where only the description supports it)
are nDCG's gains (ranx's linear gain); MRR and recall count every grade > 0 alike. Alternatives follow
:data:`ecoagent.release_format.qrels.ALTERNATIVE_RULE`: not in the judged set, and taken out of each query's ranking
before it is scored (:meth:`~ecoagent.release_format.reader.QuerySet.condensed`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ecoagent.release_format.reader import Corpus, QuerySet, Release
from ecoagent.retrieval.head_tail import PopularityRanker, named_query_set, train_split
from ecoagent.retrieval.rankers import Retriever, top_k
from ecoagent.retrieval.tool_macro import tool_macro_average
from ecoagent.runtime import context

METRICS = ("mrr", "recall@1", "success@1", "recall@5", "ndcg@10")
RANX_NAMES = {"success@1": "hit_rate@1"}  # success@1: a relevant tool first (with several relevant, recall@1 < 1)
# ranx stores document ids as numpy "<U{longest}" arrays, and numba compiles its typed dicts anew for each width:
# every query set whose longest tool id was new paid a fresh compile (the card's Table 1 took 3 CPU-minutes of
# compiling in a cold venv). The corpus row at one width compiles once; no metric depends on the ids (a run's scores
# are strictly decreasing, and qrels are matched by id).
RANX_ID = "{:09d}"


@lru_cache(maxsize=1)
def ranx_compiled() -> None:
    """ranx's numba kernels compiled, once per process, as a counted phase of their own: in a new environment they take
    about 40 s on 2 cores (its qrels 16 s, its run 6 s, the five metrics 14 s; numba's cache keeps them after that, a
    few seconds to load), which the first Table 1 cell of a cold ``make run`` spent at 0/8. Toy qrels and run with
    ids of the corpus's width (:data:`RANX_ID`) compile what every later call uses."""
    names = [RANX_NAMES.get(m, m) for m in METRICS]
    with context.phase("ranx's kernels (compiled once per environment)", 3 + len(names)) as compiling:
        from ranx import Qrels, Run
        from ranx import evaluate as ranx_evaluate

        compiling.advance()
        ids = [RANX_ID.format(row) for row in range(3)]
        qrels = Qrels({"q1": {ids[0]: 1}, "q2": {ids[1]: 2}})
        compiling.advance()
        run = Run({"q1": {ids[0]: 2.0, ids[1]: 1.0}, "q2": {ids[2]: 2.0, ids[1]: 1.0}})
        compiling.advance()
        for name in names:
            ranx_evaluate(qrels, run, name, make_comparable=True)
            compiling.advance()


def ranx_run(scores: np.ndarray, queries: QuerySet, corpus: Corpus, depth: int = 100) -> dict[str, dict[str, float]]:
    """``{query_id: {tool_id: score}}`` of each query's top ``depth`` tools, scores strictly decreasing; a query's
    acceptable tools are out of its ranking (:meth:`QuerySet.condensed`)."""
    condensed = queries.condensed(scores)
    extra = max((len(a) for a in queries.acceptable or []), default=0)
    ranked = top_k(condensed, depth + extra)
    run = {}
    for qid, row, values in zip(queries.ids, ranked, condensed, strict=True):
        kept = [j for j in row.tolist() if np.isfinite(values[j])][:depth]
        run[qid] = {corpus.ids[j]: float(depth - pos) for pos, j in enumerate(kept)}
    return run


def ranx_judged(scores: np.ndarray, queries: QuerySet, corpus: Corpus) -> tuple:
    """``(ranx Qrels, ranx Run)`` of one score matrix, built once for every metric read from them (the run is each
    query's top 100 over the whole catalog: the costly part of a Table 1 cell)."""
    from ranx import Qrels, Run

    ranx_compiled()
    if scores.shape != (len(queries), len(corpus)):
        raise ValueError(f"{queries.name}: score matrix {scores.shape} != ({len(queries)}, {len(corpus)})")
    key = {tool: RANX_ID.format(row) for tool, row in corpus.rows().items()}

    def keyed(table: dict[str, dict]) -> dict[str, dict]:
        return {qid: {key[tool]: value for tool, value in ranked.items()} for qid, ranked in table.items()}

    return Qrels(keyed(queries.qrels(corpus))), Run(keyed(ranx_run(scores, queries, corpus)))


def evaluate(scores: np.ndarray, queries: QuerySet, corpus: Corpus, metrics: tuple[str, ...] = METRICS,
             judged: tuple | None = None) -> dict[str, float]:  # fmt: skip
    """ranx metrics of one score matrix; ``{"queries": n, metric: value}``; ``judged``: its :func:`ranx_judged`."""
    from ranx import evaluate as ranx_evaluate

    if len(queries) == 0:
        return {"queries": 0}
    qrels, run = judged or ranx_judged(scores, queries, corpus)
    names = [RANX_NAMES.get(m, m) for m in metrics]
    values = ranx_evaluate(qrels, run, names, make_comparable=True)
    if isinstance(values, float):  # ranx returns a bare float for a single metric
        values = {names[0]: values}
    return {"queries": len(queries), **{m: round(float(values[n]), 6) for m, n in zip(metrics, names, strict=True)}}


def per_query(scores: np.ndarray, queries: QuerySet, corpus: Corpus, metric: str = "mrr",
              judged: tuple | None = None) -> np.ndarray:  # fmt: skip
    """One ranx ``metric`` value per query, in the order of ``queries`` (what a bootstrap interval resamples)."""
    from ranx import evaluate as ranx_evaluate

    if len(queries) == 0:
        return np.zeros(0)
    qrels, run = judged or ranx_judged(scores, queries, corpus)
    values = ranx_evaluate(qrels, run, RANX_NAMES.get(metric, metric), return_mean=False, make_comparable=True)
    return np.asarray(values, dtype=np.float64)


def _mrr_cells(reciprocal_ranks: np.ndarray, seed: int) -> dict[str, float]:
    """MRR with its 95 % percentile bootstrap interval over queries (:func:`ecoagent.statistics.bootstrap_interval`),
    from the per-query reciprocal ranks (:func:`per_query`)."""
    from ecoagent.statistics import bootstrap_interval

    low, high = bootstrap_interval(reciprocal_ranks, seed=seed)
    return {"mrr": round(float(reciprocal_ranks.mean()), 6), "mrr_ci95": [round(low, 6), round(high, 6)]}


def offline_table(release: Release, retrievers: list[Retriever], sets: tuple[str, ...] | list[str], seed: int,
                  head_size: int) -> tuple[dict[str, dict], dict[str, dict]]:  # fmt: skip
    """Table 1 on each query set of ``sets`` (``name/split``, or a head/tail subset ``name/split:tail``,
    :mod:`ecoagent.retrieval.head_tail`, whose head is the train split's ``head_size`` most required tools):
    ``({set: {retriever: metrics} or {"skipped": why}}, {set: what is judged})``. A set whose config has a train
    split gets the query-blind :class:`~ecoagent.retrieval.head_tail.PopularityRanker` row first. The second dict
    says per set how many queries, graded or not, alternatives and queries left out."""
    table1: dict[str, dict] = {}
    judged: dict[str, dict] = {}
    resolved = {name: named_query_set(release, name, head_size) for name in sets}
    floors = {name: PopularityRanker(train).fit(release.corpus) for name in sets
              if resolved[name] is not None and (train := release.queries(train_split(name))) is not None}  # fmt: skip
    # counted cell by cell: one set of the full catalog takes minutes (e5 over long task texts, ten retrievers)
    cells = len(sets) * len(retrievers) + len(floors)
    with context.phase("Table 1: cells (query sets x retrievers)", cells) as counting:
        for name in sets:
            queries = resolved[name]
            if not queries:  # None (not in the release) or empty (a subset no query falls in)
                table1[name] = {"skipped": f"no {name} queries in release {release.version}"}
                counting.advance(len(retrievers) + (name in floors))
                continue
            table1[name] = {}
            for retriever in [*([floors[name]] if name in floors else []), *retrievers]:
                table1[name][retriever.name] = table1_cell(retriever, queries, release, seed)
                counting.advance()
            judged[name] = {
                "queries": len(queries),
                "graded": any(g > 1 for grades in queries.grades or [] for g in grades),
                "alternatives": sum(len(a) for a in queries.acceptable or []),
                "queries_with_alternatives": sum(bool(a) for a in queries.acceptable or []),
                "left_out_only_alternatives": queries.left_out,
            }
            if ":" in name:
                judged[name]["head_tools"] = head_size
    return table1, judged


def table1_cell(retriever: Retriever, queries: QuerySet, release: Release, seed: int) -> dict:
    """One retriever's Table 1 metrics on ``queries``: the ranx means, MRR with its 95 % bootstrap interval over the
    queries, MRR averaged over required tools (:mod:`ecoagent.retrieval.tool_macro`) and stale@5
    (:mod:`ecoagent.retrieval.stale`)."""
    from ecoagent.retrieval.stale import stale_metrics

    scores = retriever.score(queries.texts)
    judged = ranx_judged(scores, queries, release.corpus)  # the top-100 run once, for the means and the interval
    reciprocal_ranks = per_query(scores, queries, release.corpus, judged=judged)
    macro = tool_macro_average(reciprocal_ranks, queries)
    return {**evaluate(scores, queries, release.corpus, judged=judged), **_mrr_cells(reciprocal_ranks, seed),
            "mrr_tools_macro": None if macro is None else round(macro, 6),
            **stale_metrics(scores, queries, release.tools, seed=seed)}  # fmt: skip

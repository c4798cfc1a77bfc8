"""The head and the tail of a task set, measured against its own train split.

A real task set is dominated by a few tools: on the default release's workflow tasks the 20 tools train requires
most hold 56 % of train's labels, and a query-blind ranking of every tool by that count beats TF-IDF on
``workflows/test``. One figure over all test queries then rewards a model that memorises the head. Table 1 reads
each set three ways:

- the whole set;
- ``<set>:tail``: the queries none of whose required tools is among the ``N`` tools the set's train split
  requires most (``evaluation.head_tools``; ties at the cut broken by corpus order);
- ``<set>:unseen``: the queries that require at least one tool no train query requires;

and :class:`PopularityRanker` gives every set that has a train split its query-blind floor: each tool scored by the
number of train queries that require it. "Requires" is a query's judged set (:mod:`ecoagent.release_format.qrels`:
alternatives are not required). A set's train split is its config's (``workflows/test`` and
``workflows/cold_start`` read ``workflows/train``).
"""

from __future__ import annotations

import numpy as np

from ecoagent.release_format.reader import Corpus, QuerySet, Release
from ecoagent.retrieval.rankers import top_k

TAIL = "tail"
UNSEEN = "unseen"
SUBSETS = (TAIL, UNSEEN)


def train_split(name: str) -> str:
    """The train split of a set's config: ``workflows/test`` -> ``workflows/train``."""
    return f"{name.split(':', 1)[0].split('/', 1)[0]}/train"


def required_counts(train: QuerySet, tools: int) -> np.ndarray:
    """How many ``train`` queries require each corpus row (a query counts once per tool)."""
    counts = np.zeros(tools, dtype=np.int64)
    for rows in train.relevant:
        counts[sorted(set(rows))] += 1
    return counts


def head_rows(counts: np.ndarray, size: int) -> set[int]:
    """The ``size`` most required corpus rows (ties at the cut in corpus order), never a row train does not use."""
    if size <= 0:
        return set()
    ranked = top_k(counts[None, :].astype(np.float64), size)[0]
    return {int(r) for r in ranked if counts[r] > 0}


def split_subset(queries: QuerySet, kind: str, counts: np.ndarray, head_size: int) -> QuerySet:
    """``queries`` restricted to the ``kind`` subset (:data:`SUBSETS`) by its train split's ``counts``."""
    if kind == TAIL:
        head = head_rows(counts, head_size)
        keep = [i for i, rows in enumerate(queries.relevant) if not head.intersection(rows)]
    elif kind == UNSEEN:
        keep = [i for i, rows in enumerate(queries.relevant) if any(counts[r] == 0 for r in rows)]
    else:
        raise ValueError(f"{queries.name}: unknown subset {kind!r}; the subsets are {list(SUBSETS)}")
    return queries.subset(f"{queries.name}:{kind}", keep)


def named_query_set(release: Release, name: str, head_size: int) -> QuerySet | None:
    """``release``'s query set ``name`` (``workflows/test``), or a subset of it (``workflows/test:tail``); None when
    the release lacks the set, or a subset's train split."""
    base, _, kind = name.partition(":")
    queries = release.queries(base)
    if queries is None or not kind:
        return queries
    train = release.queries(train_split(base))
    if train is None:
        return None
    return split_subset(queries, kind, required_counts(train, len(release.corpus)), head_size)


class PopularityRanker:
    """Query-blind: every query gets the same ranking, each tool scored by the train queries that require it
    (:func:`required_counts`); the floor a retriever must clear before it is said to read the query."""

    name = "popularity (train frequency)"

    def __init__(self, train: QuerySet) -> None:
        self.train = train

    def fit(self, corpus: Corpus) -> PopularityRanker:
        self._counts = required_counts(self.train, len(corpus)).astype(np.float32)
        return self

    def score(self, queries: list[str]) -> np.ndarray:
        return np.tile(self._counts, (len(queries), 1))

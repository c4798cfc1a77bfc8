"""The fast ranking path ranks exactly as the selector did before it (issue 24): same scores, same order.

The reference (``tests/selector/reference_ranking.py``) is the ranking code as it was. It runs beside
:meth:`ToolSelector.rank` on a real release folder (the fixture release, every query it ships, every caller scope
pattern) and on the fixture registry with tenants and random queries.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ecoagent.release_format.reader import load_release
from ecoagent.retrieval.fusion import best_first
from ecoagent.retrieval.rankers import BM25Retriever
from selector.registry import ToolRegistry
from selector.select import SelectorConfig, ToolSelector
from tests.selector.conftest import CORE, TENANTS, TOOLS, hashing_encoder, make_selector, tools_frame
from tests.selector.reference_ranking import bm25s_scores, reference_rank


def test_bm25_scores_are_bm25s_scores_bit_for_bit(tiny_release):
    release = load_release(tiny_release)
    retriever = BM25Retriever().fit(release.corpus)
    queries = [t for qs in release.query_sets.values() for t in qs.texts]
    queries += ["", "the of and", "SEND send Send sent", "émail Ünïcode 日本語", "x_y __init__ a1 b"]
    for query in queries:
        assert np.array_equal(retriever.score_one(query), bm25s_scores(retriever, query)), query


@pytest.mark.parametrize("rankers", [("bm25",), ("bm25", "dense")])
def test_rankings_on_a_release_are_unchanged(tiny_release, rankers):
    registry = ToolRegistry.from_release(tiny_release)
    encode = hashing_encoder()
    vectors = np.stack([encode(t.document) for t in registry.tools])
    selector = ToolSelector(registry, SelectorConfig(rankers=rankers), vectors, encode)
    release = load_release(tiny_release)
    queries = [t for qs in release.query_sets.values() for t in qs.texts]
    callers = [["*"], *([s] for s in sorted(registry.vocabulary.scopes)),
               *([f"*.{a}"] for a in sorted(registry.vocabulary.actions))]  # fmt: skip
    compared = 0
    for caller in callers:
        allowed = np.flatnonzero(registry.allowed(caller))
        for query in queries:
            vector = encode(query)
            assert selector.rank(query, allowed, None, query_vector=vector) == reference_rank(
                selector, query, allowed, None, vector), (query, caller)
            compared += 1
    assert compared >= 100


REGISTRY = ToolRegistry.from_frame(tools_frame(), core_tools=CORE, tenants=TENANTS)
FUSED = make_selector(REGISTRY)
WORDS = sorted({w for t in TOOLS for w in (t[1] + " " + t[2]).lower().replace("_", " ").split()})
PATTERNS = [*sorted(REGISTRY.vocabulary.scopes), *(f"{s}.*" for s in sorted(REGISTRY.vocabulary.services)),
            *(f"*.{a}" for a in sorted(REGISTRY.vocabulary.actions)), "*"]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=8), min_size=1, max_size=10).map(" ".join),
       st.lists(st.sampled_from(PATTERNS), max_size=4), st.sampled_from([None, *TENANTS]))  # fmt: skip
def test_rankings_with_tenants_and_scopes_are_unchanged(query, scopes, tenant):
    allowed = np.flatnonzero(REGISTRY.allowed(scopes, tenant))
    vector = FUSED.dense.encode_query(query)
    assert FUSED.rank(query, allowed, tenant, query_vector=vector) == reference_rank(FUSED, query, allowed, tenant,
                                                                                     vector)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=60), st.integers(0, 70), st.booleans())
def test_best_first_is_the_k_best_with_ties_in_position_order(values, k, positive):
    scores = np.array(values, dtype=np.float32)
    expected = sorted((i for i in range(len(values)) if not positive or values[i] > 0), key=lambda i: (-values[i], i))
    assert best_first(scores, k, positive).tolist() == expected[:k]

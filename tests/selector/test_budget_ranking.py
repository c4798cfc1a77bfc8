import numpy as np

from selector.budget import pack
from selector.ranking import LexicalScorer


def test_pack_skips_what_does_not_fit_and_tries_smaller_ones():
    tokens = np.array([50, 500, 100, 80, 30])
    core, picked, used = pack([0], [1, 2, 3, 4], tokens, budget=240)
    assert core == [0] and picked == [2, 3] and used == 230  # 500 skipped, 30 no longer fits
    assert pack([0], [1, 2, 3, 4], tokens, budget=40) == ([], [4], 30)  # core that does not fit is dropped
    assert pack([], [2, 3, 4], tokens, budget=1000, max_tools=2)[1] == [2, 3]


def test_lexical_statistics_are_per_tenant_and_per_scope_set():
    docs = ["refund order payment", "refund policy", "weather forecast city", "refund refund refund"]
    tenant_a, tenant_b = np.array([0, 1, 2]), np.array([0, 1, 3])
    scorer = LexicalScorer(docs, stats="tenant")
    # tenant b's extra "refund" document changes IDF of "refund" for b only
    a = scorer.scores("refund", np.array([0, 1]), "a", tenant_a)
    b = scorer.scores("refund", np.array([0, 1]), "b", tenant_b)
    assert not np.allclose(a, b)
    assert np.allclose(a, scorer.scores("refund", np.array([0, 1]), "a", tenant_a))
    per_set = LexicalScorer(docs, stats="scope_set")
    narrow = per_set.scores("refund", np.array([0, 1]), None, np.arange(4))
    wide = per_set.scores("refund", np.array([0, 1, 3]), None, np.arange(4))[:2]
    assert not np.allclose(narrow, wide)  # the index only ever saw the allowed documents

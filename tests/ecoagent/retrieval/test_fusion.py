import numpy as np

from ecoagent.release_format.reader import Corpus
from ecoagent.retrieval.fusion import FusedRetriever, reciprocal_rank_fusion
from ecoagent.retrieval.rankers import BM25Retriever, TfidfRetriever


def test_rrf_rewards_agreement_and_is_tie_stable():
    fused = reciprocal_rank_fusion([np.array([2, 0]), np.array([0, 1, 2])], size=4, k=60)
    assert fused[0] > fused[2] > fused[1] > fused[3] == 0
    weighted = reciprocal_rank_fusion([np.array([2]), np.array([0])], size=3, k=60, weights=[2.0, 1.0])
    assert weighted[2] > weighted[0]


class Fixed:
    """A retriever whose scores are given: the fused order is then known by hand."""

    def __init__(self, scores: list[list[float]]):
        self.scores = np.array(scores, dtype=np.float32)

    def fit(self, corpus: Corpus) -> "Fixed":
        return self

    def score(self, queries: list[str]) -> np.ndarray:
        return self.scores[: len(queries)]


def test_a_fused_retriever_scores_each_tool_by_its_ranks_in_the_top_depth():
    a = Fixed([[0.9, 0.5, 0.1, 0.0]])  # ranks 0, 1, 2 (3 has no shared word when lexical)
    b = Fixed([[0.1, 0.2, 0.9, 0.3]])  # ranks 2, 3, 1, 0
    fused = FusedRetriever("hybrid", [a, b], k=1.0, depth=2, lexical=[True, False]).score(["q"])
    expected = np.zeros(4)
    expected[[0, 1]] += [1 / 2, 1 / 3]  # a's top 2
    expected[[2, 3]] += [1 / 2, 1 / 3]  # b's top 2
    np.testing.assert_allclose(fused[0], expected, rtol=1e-6)


def test_a_tool_both_retrievers_rank_well_beats_one_only_one_ranks_first():
    titles = ["Slack: send", "Slack: channel", "Email: post"]
    texts = ["send slack message", "create a channel", "post a message by email"]
    corpus = Corpus(["a", "b", "c"], titles, texts, np.ones(3), ["n8n"] * 3)
    hybrid = FusedRetriever("BM25 + TF-IDF", [BM25Retriever(), TfidfRetriever()]).fit(corpus)
    scores = hybrid.score(["send a slack message", "weather"])
    assert scores.shape == (2, 3)
    assert int(np.argmax(scores[0])) == 0
    assert scores[1, :].max() >= 0

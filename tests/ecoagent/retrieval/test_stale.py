"""stale@k and replacement recall@k on a hand-made catalog whose stale tools and rankings are known."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from ecoagent.release_format.reader import QuerySet
from ecoagent.retrieval.stale import replacement_rows, stale_metrics, stale_rows

TOOLS = pl.DataFrame({
    "platform": ["mcp", "mcp", "mcp", "n8n", "n8n"],
    "service": ["files", "files", "github", "sheets", "sheets"],
    "name": ["read_file", "read_text_file", "old_github", "get_rows", "append_row"],
    "source_symbol": ["read_file", "read_text_file", "old_github", "getRows", "appendRow"],
    # read_file: deprecated with a named replacement; old_github: deprecated, but github has no live tool
    "status": ["deprecated", "active", "deprecated", "removed since 2025-08", "active"],
    "replacement": ["read_text_file", None, "http://github.com/github/github-mcp-server", None, None],
    "deprecated": [True, False, True, False, False],
})  # fmt: skip


def test_a_tool_is_stale_only_when_a_live_tool_of_its_service_exists() -> None:
    assert stale_rows(TOOLS).tolist() == [True, False, False, True, False]
    assert replacement_rows(TOOLS) == {0: [1]}  # a URL names no catalog tool
    # no status column: the deprecated flag alone
    assert stale_rows(TOOLS.drop("status")).tolist() == [True, False, False, False, False]


def test_stale_at_k_and_replacement_recall_on_known_rankings() -> None:
    queries = QuerySet("t", ["a", "b"], ["read a file", "rows"], [[1], [4]])
    scores = np.array([[0.9, 0.1, 0.8, 0.0, 0.0],   # top 2: read_file (stale), old_github; its replacement is 3rd
                       [-1.0, -1.0, 0.0, 0.9, 0.8]])  # top 2: get_rows (stale), append_row  # fmt: skip
    found = stale_metrics(scores, queries, TOOLS, k=2)
    assert found["stale@2"] == pytest.approx(0.5) and found["stale_tools"] == 2
    assert found["replacement_pairs"] == 1 and found["replacement_recall@2"] == 0.0
    at_three = stale_metrics(scores, queries, TOOLS, k=3)
    assert at_three["replacement_recall@3"] == 1.0  # read_text_file is now in the top 3
    low, high = found["stale@2_ci95"]
    assert low <= found["stale@2"] <= high

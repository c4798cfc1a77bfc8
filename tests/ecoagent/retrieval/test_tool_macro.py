"""MRR averaged over required tools, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ecoagent.release_format.reader import QuerySet
from ecoagent.retrieval.tool_macro import tool_macro_average


def test_each_required_tool_votes_once() -> None:
    # tool 0 required by three queries (RR 1, 1, 1), tool 1 by one (RR 0), tool 2 by the last query too
    queries = QuerySet("t", ["a", "b", "c", "d"], ["x"] * 4, [[0], [0], [0, 2], [1]])
    rr = np.array([1.0, 1.0, 1.0, 0.0])
    assert rr.mean() == pytest.approx(0.75)
    assert tool_macro_average(rr, queries) == pytest.approx((1.0 + 0.0 + 1.0) / 3)


def test_an_empty_set_has_no_average() -> None:
    assert tool_macro_average(np.zeros(0), QuerySet("t", [], [], [])) is None

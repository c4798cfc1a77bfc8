"""The stage's output contract (scoring/side_effect/stage.py)."""

from __future__ import annotations

import time

import polars as pl

from schemas.scored_tool import SIDE_EFFECTS
from scoring.side_effect import classify_side_effects
from scoring.side_effect.stage import OUTPUT_SCHEMA
from tests.scoring.side_effect.tool_rows import n8n


def test_output_contract_order_and_missing_optional_columns():
    frame = pl.DataFrame(
        [
            {"tool_id": "b", "platform": "mcp", "package": "p", "service": "s", "source_symbol": "b",
             "name": "delete_b", "display_name": "", "description": ""},
            {"tool_id": "a", "platform": "mcp", "package": "p", "service": "s", "source_symbol": "a",
             "name": "get_a", "display_name": "", "description": ""},
        ]
    )  # fmt: skip
    out = classify_side_effects(frame)  # no http_methods / categories columns: the old crawl lacks them
    assert out.schema == OUTPUT_SCHEMA
    assert out["tool_id"].to_list() == ["b", "a"]
    assert set(out["side_effect"]) <= set(SIDE_EFFECTS)
    empty = classify_side_effects(frame.clear())
    assert empty.height == 0 and empty.schema == OUTPUT_SCHEMA


def test_deterministic_and_fast():
    rows = [n8n(f"node{i % 400}:res:{op}", f"{op} a thing") for i, op in enumerate(["get", "create", "delete"] * 2000)]
    frame = pl.DataFrame(rows)
    start = time.perf_counter()
    first = classify_side_effects(frame)
    assert time.perf_counter() - start < 5
    assert first.equals(classify_side_effects(frame))

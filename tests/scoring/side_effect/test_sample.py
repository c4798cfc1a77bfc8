"""The hand-labelled sample (tests/scoring/data/side_effect_sample.jsonl) and the rules' agreement with it."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from schemas.scored_tool import SIDE_EFFECTS
from scoring.side_effect.agreement import agreement_with_labels

SAMPLE = Path(__file__).parents[1] / "data" / "side_effect_sample.jsonl"


def test_sample_is_large_stratified_and_well_formed():
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    assert len(rows) >= 110
    platforms = {r["platform"] for r in rows}
    assert platforms == {"n8n", "langchain", "crewai", "llamaindex", "mcp"}
    for p in platforms:
        assert sum(r["platform"] == p for r in rows) >= 10, p
    assert len({r["tool_id"] for r in rows}) == len(rows)
    for r in rows:
        assert r["label"] in SIDE_EFFECTS
        assert r["reasoning"].strip()
        for key in ("tool_id", "platform", "package", "service", "source_symbol", "name", "description"):
            assert key in r
    # every tier except unknown is represented
    assert {r["label"] for r in rows} >= set(SIDE_EFFECTS) - {"unknown"}


def test_rules_agree_with_hand_labels():
    report = agreement_with_labels(pl.read_ndjson(SAMPLE))
    print("\n" + report.render())
    assert report.agreement >= 0.85
    assert report.unknown_share <= 0.15

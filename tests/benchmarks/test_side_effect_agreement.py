"""``benchmarks/side_effect_agreement.py`` on the hand-labelled sample and the fixture catalog: the agreement it
prints is the one its test measures (``tests/scoring/side_effect/test_sample.py``), its record, the disagreements
and the catalog's tiers."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from ecoagent.layout import CRAWL_FILES
from scoring.side_effect import classify_side_effects
from scoring.side_effect.agreement import agreement_with_labels
from tests.benchmarks.scripts import record_written, run_script

SAMPLE = Path(__file__).resolve().parents[1] / "scoring" / "data" / "side_effect_sample.jsonl"


def test_agreement_disagreements_and_the_catalog_distribution(world, results_dir: Path) -> None:
    catalog = world.crawl / CRAWL_FILES.tools
    ran = run_script("side_effect_agreement", "--catalog", catalog, "--show-disagreements", "--record", "smoke-se")
    assert ran.code == 0, ran
    sample = pl.read_ndjson(SAMPLE)
    expected = agreement_with_labels(sample)
    first = ran.out.splitlines()[0]
    assert first.startswith(f"tools={expected.n} decided={expected.decided} agreed={expected.agreed} "), ran
    assert f"agreement={expected.agreement:.3f}" in first
    disagreements = int((classify_side_effects(sample)["side_effect"] != sample["label"]).sum())
    assert f"shape: ({disagreements}, 4)" in ran.out and "side_effect_rule" in ran.out  # every label != rule
    tools = pl.read_parquet(catalog).height
    assert f"catalog {catalog}: {tools} tools" in ran.out
    assert re.search(r"with inverse_tool_id: \d+", ran.out)
    record = record_written(results_dir, "smoke-se")
    assert record["figures"]["hand-labelled tools"] == expected.n and record["section"] == "score"
    assert record["tables"][0]["columns"][0] == "label"

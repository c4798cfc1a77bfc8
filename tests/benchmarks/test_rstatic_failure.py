"""Smoke test of benchmarks/rstatic_failure.py on a small history folder with known events (tests/history)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from benchmarking.rstatic_failure import with_other_reference
from tests.benchmarks.scripts import record_written, run_script
from tests.history.failure_fixtures import build_history


def _pooled(ran, signal: str) -> dict:
    return next(m for m in ran.json_after()["measures"] if m["signal"] == signal and m["slice"] == "all")


def test_the_planted_perfect_predictor_scores_1_and_the_record_and_plot_are_written(tmp_path, results_dir):
    history = build_history(tmp_path)
    ran = run_script("rstatic_failure", "--history", history, "--months-ahead", 2, "--resamples", 100,
                     "--no-readings", "--record", "rstatic-failure")  # fmt: skip
    assert ran.code == 0, ran
    r_static = _pooled(ran, "r_static")
    assert r_static["auc"] == 1.0 and r_static["average_precision"] == 1.0 and r_static["failures"] == 8
    signals = {m["signal"] for m in ran.json_after()["measures"]}
    assert {"r_cons", "w_src", "r_qual"} < signals and any(s.startswith("months since") for s in signals)
    # the months were scored against the official and platform tools: r_qual rescored against the whole catalog too
    assert {"r_qual against catalog", "r_static, r_qual against catalog"} < signals
    assert {m["slice"] for m in ran.json_after()["measures"]} == {"all", "langchain", "mcp"}
    record = record_written(results_dir, "rstatic-failure")
    first = next(iter(record["figures"]))
    assert first == "finding" and "r_static predicts failure (AUC CI above 0.5)" in record["figures"]["finding"]
    assert record["figures"]["r_qual reference of the months' scores"] == "platform_official"
    measures, deciles = record["tables"]
    assert any(row[:2] == ["r_static", "all"] and row[6].startswith("1.000") for row in measures["rows"])
    assert sum(row[3] for row in deciles["rows"]) == 8
    assert (results_dir / "rstatic-failure.png").read_bytes().startswith(b"\x89PNG")


def test_the_paper_compatible_reading_is_measured_beside_ours(tmp_path):
    history = build_history(tmp_path)
    ran = run_script("rstatic_failure", "--history", history, "--months-ahead", 2, "--resamples", 20,
                     "--set", f"embedding.cache_dir={tmp_path / 'embeddings'}")  # fmt: skip
    assert ran.code == 0, ran
    reading = _pooled(ran, "r_static, the paper_compatible reading")
    assert reading["rows"] == _pooled(ran, "r_static")["rows"] and 0.0 <= reading["auc"] <= 1.0


def test_a_history_too_short_for_the_months_ahead_says_so(tmp_path: Path):
    ran = run_script("rstatic_failure", "--history", build_history(tmp_path), "--no-readings")
    assert ran.code == 1 and "6 months of future" in ran.err
    assert not json.dumps(ran.out).count("finding")
    missing = run_script("rstatic_failure", "--history", tmp_path / "nowhere", "--no-readings")
    assert missing.code == 1 and "publish_times.json is missing" in missing.err


def test_r_qual_is_rescored_month_by_month_against_the_other_reference(tmp_path):
    from ecoagent.config import make_config
    from history.failure import SIGNALS, load_history, prediction_rows
    from pipeline.stages import SCORE
    from scoring.score import documentation_quality, scored_descriptions

    history = load_history(build_history(tmp_path), SCORE.name)
    rows = prediction_rows(history, 2)
    config = make_config()
    rescored, signals = with_other_reference(rows, config, history.references, list(SIGNALS))
    assert [s.column for s in signals[4:6]] == ["r_static_catalog", "r_qual_catalog"]
    catalog = config.score.model_copy(update={"r_qual_reference": "catalog"})
    for month in ("2025-01", "2025-02"):  # each month's z-scores over that month's tools only
        part = rescored.filter(pl.col("month") == month)
        expected = documentation_quality(part, scored_descriptions(part), catalog)
        assert part["r_qual_catalog"].to_list() == pytest.approx(expected.tolist())
        assert part["r_static_catalog"].to_list() == pytest.approx(
            (0.5 * part["r_cons"] + 0.3 * part["w_src"] + 0.2 * part["r_qual_catalog"]).to_list())
    mixed = {**history.references, "2025-02": "catalog"}  # months scored against different references: left as is
    assert with_other_reference(rows, config, mixed, list(SIGNALS))[0].columns == rows.columns

"""Smoke test of benchmarks/rstatic_failure.py on a small history folder with known events (tests/history)."""

from __future__ import annotations

import json
from pathlib import Path

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

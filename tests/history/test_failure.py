"""The failure-prediction helpers of ``history/failure.py`` on a small history with known events."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from ecoagent.statistics import bootstrap_counts
from history.failure import (
    SIGNALS,
    Measure,
    RankedRows,
    decile_plot,
    decile_table,
    ecosystem_signals,
    failure_labels,
    failure_prediction,
    finding,
    load_history,
    measure,
    measures,
    prediction_months,
    prediction_rows,
    tool_weights,
    verdict,
)
from history.months import add_months
from pipeline.stages import SCORE
from tests.history.failure_fixtures import FAILING, build_history, tool_id

R_STATIC = SIGNALS[0]


def _history(root, reference: str | None = "platform_official"):
    return load_history(build_history(root, reference), SCORE.name)


def test_months_are_added_across_years_and_only_months_with_enough_future_predict():
    assert add_months("2025-11", 2) == "2026-01" and add_months("2025-01", 0) == "2025-01"
    assert add_months("2025-12", 13) == "2027-01"
    months = ["2025-01", "2025-02", "2025-03", "2025-04"]
    assert prediction_months(months, 2) == ["2025-01", "2025-02"]
    assert prediction_months(months, 6) == [] and prediction_months([], 6) == []


def test_a_failure_counts_after_the_month_and_within_the_months_ahead_only():
    rows = pl.DataFrame({"tool_id": ["t", "t", "t", "u", "v"], "month": ["2025-01", "2025-03", "2025-05", "2025-01",
                                                                         "2025-01"]})  # fmt: skip
    events = pl.DataFrame({"tool_id": ["t", "u", "v"], "event": ["deprecated", "description_changed", "removed"],
                           "month": ["2025-03", "2025-02", "2025-04"]})  # fmt: skip
    # t: deprecated in 2025-03 is ahead of 2025-01 (within 2), not of 2025-03 itself (already happened) nor 2025-05;
    # u: a changed description is no failure; v: removed 2025-04 is 3 months ahead of 2025-01, beyond 2
    assert failure_labels(rows, events, 2).to_list() == [1, 0, 0, 0, 0]
    assert failure_labels(rows, events, 3).to_list() == [1, 0, 0, 0, 1]


def test_the_history_folder_is_read_with_each_months_own_scores_and_labels(tmp_path):
    history = _history(tmp_path)
    assert history.months == ["2025-01", "2025-02", "2025-03", "2025-04"]
    assert set(history.references.values()) == {"platform_official"}
    rows = prediction_rows(history, 2)
    assert sorted(rows["month"].unique()) == ["2025-01", "2025-02"]
    failed = {(r["month"], r["tool_id"]) for r in rows.filter(pl.col("failed") == 1).iter_rows(named=True)}
    assert failed == {(m, tool_id(s)) for m, shorts in FAILING.items() for s in shorts}
    a3 = rows.filter(pl.col("tool_id") == tool_id("a3")).sort("month")
    assert a3["r_static"].to_list() == [pytest.approx(0.73), pytest.approx(0.33)]  # as each month scored it
    assert set(_history(tmp_path / "old", reference=None).references.values()) == {"catalog"}


def test_a_folder_that_is_no_history_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"publish_times\.json is missing"):
        load_history(tmp_path, SCORE.name)
    folder = build_history(tmp_path / "moved")
    (folder.parent / "history_months").rename(tmp_path / "elsewhere")
    with pytest.raises(FileNotFoundError, match="no scored month under"):
        load_history(folder, SCORE.name)


def test_ecosystem_signals_come_from_the_publish_times_and_the_listing(tmp_path):
    history = _history(tmp_path)
    rows = ecosystem_signals(history.tools.filter(pl.col("tool_id").is_in([tool_id("a2"), tool_id("b2")])),
                             history.publish_times)  # fmt: skip
    by = {(r["tool_id"][0], r["month"]): r for r in rows.iter_rows(named=True)}
    # pkg-a 1.0.0 was published 2024-11-01: three months before the end of 2025-01
    assert by[("m", "2025-01")]["months_since_release"] == pytest.approx(92 / (365.25 / 12))
    assert by[("m", "2025-02")]["months_since_release"] < 0.5  # 1.1.0, published 2025-02-20
    assert by[("m", "2025-04")]["package_age_months"] == 3 and by[("l", "2025-01")]["package_age_months"] == 0
    assert {r["vetted_listing"] for r in rows.iter_rows(named=True)} == {1.0}


def test_tools_are_resampled_with_all_their_months():
    tools = np.array(["b", "a", "b", "b"])
    draws = list(tool_weights(tools, resamples=50, seed=3))
    assert len(draws) == 50
    for weights in draws:  # a tool's rows weigh alike, and each draw takes as many tools as there are
        assert weights[0] == weights[2] == weights[3] and weights[1] + weights[0] == 2
    counts = bootstrap_counts(2, 50, seed=3)  # the draws bootstrap_interval makes over the sorted tools
    assert [w[1] for w in draws] == counts[:, 0].tolist() and [w[0] for w in draws] == counts[:, 1].tolist()
    assert list(tool_weights(np.array([]), 5)) == []


def test_auc_and_average_precision_are_sklearns_ties_and_weights_included():
    from sklearn.metrics import average_precision_score, roc_auc_score

    rng = np.random.default_rng(3)
    labels = (rng.random(500) < 0.2).astype(float)
    scores = np.round(rng.random(500) + labels * 0.3, 1)  # few distinct values: many ties
    ranked = RankedRows(labels, scores)
    assert ranked.auc() == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert ranked.average_precision() == pytest.approx(average_precision_score(labels, scores), abs=1e-12)
    weights = rng.integers(0, 4, 500)  # a draw's weights: the figures of the sample with each row repeated so often
    repeated_labels, repeated_scores = np.repeat(labels, weights), np.repeat(scores, weights)
    assert ranked.auc(weights) == pytest.approx(roc_auc_score(repeated_labels, repeated_scores), abs=1e-12)
    assert ranked.average_precision(weights) == pytest.approx(
        average_precision_score(repeated_labels, repeated_scores), abs=1e-12)
    no_failure = RankedRows(labels * 0, scores)
    assert np.isnan(no_failure.auc()) and np.isnan(no_failure.average_precision())


def test_a_planted_perfect_predictor_has_auc_and_average_precision_1(tmp_path):
    rows = prediction_rows(_history(tmp_path), 2)
    result = measure(rows, R_STATIC, "all", resamples=200)
    assert result.auc == 1.0 and result.average_precision == 1.0 and result.auc_ci == (1.0, 1.0)
    assert (result.rows, result.failures) == (len(rows), 8) and result.tools == 12
    assert verdict(result) == "predicts failure (AUC CI above 0.5)"
    flipped = measure(rows.with_columns(-pl.col("r_static")), R_STATIC, "all", resamples=50)
    assert flipped.auc == 0.0 and verdict(flipped) == "predicts the wrong way (AUC CI below 0.5)"
    per_platform = [m for m in measures(rows, [R_STATIC], resamples=50) if m.slice != "all"]
    assert [(m.slice, m.auc) for m in per_platform] == [("langchain", 1.0), ("mcp", 1.0)]


def test_a_signal_without_information_predicts_nothing(tmp_path):
    rows = prediction_rows(_history(tmp_path), 2).with_columns(pl.lit(0.5).alias("r_static"))
    result = measure(rows, R_STATIC, "all", resamples=200)
    assert result.auc == 0.5 and verdict(result) == "predicts nothing (AUC CI contains 0.5)"
    assert "r_static predicts nothing (AUC CI contains 0.5)" in finding([result], 2)
    none = Measure("r_static", "all", 3, 3, 0, float("nan"), (float("nan"),) * 2, float("nan"), (float("nan"),) * 2)
    assert verdict(none).startswith("cannot be measured")


def test_the_failure_rate_by_decile_is_a_table_and_a_plot():
    rows = pl.DataFrame({"r_static": [i / 20 for i in range(20)], "failed": [1] * 4 + [0] * 16})
    table = decile_table(rows)
    assert [d["rows"] for d in table] == [2] * 10
    assert [d["rate"] for d in table[:3]] == [1.0, 1.0, 0.0] and sum(d["failures"] for d in table) == 4
    assert table[0]["low"] == 0.0 and table[-1]["high"] == 0.95
    assert decile_plot(table, 0.2, 6).startswith(b"\x89PNG")
    assert decile_table(rows.head(0)) == []


def test_the_history_steps_report_is_strict_json_with_every_signal_and_slice_and_its_plot(tmp_path):
    history = _history(tmp_path)
    report, plot = failure_prediction(history, 2, resamples=50, seed=7)
    text = json.dumps(report, allow_nan=False)  # a signal that cannot be measured is null, not NaN
    assert report["finding"].startswith(f"Over {report['rows']:,} tool-months") and "r_static predicts failure" in text
    slices = 1 + prediction_rows(history, 2)["platform"].n_unique()
    assert len(report["measures"]) == slices * len(SIGNALS) and report["seed"] == 7 and report["failures"] == 8
    assert sum(d["rows"] for d in report["deciles"]) == report["rows"] and plot.startswith(b"\x89PNG")
    assert failure_prediction(history, 40, resamples=5, seed=0) == (
        {"months_ahead": 40, "skipped": f"no month has 40 months of future in the history ({history.months[0]} to "
         f"{history.months[-1]})"}, None)  # fmt: skip

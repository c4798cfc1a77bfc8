"""The generic great-expectations gate runner: results, metrics, reports and enforce."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import polars as pl
import pytest

from ecoagent.runtime.quality_gate import GateResult, QualityGateFailed, enforce, metric_between, run_gate


@pytest.fixture(scope="module")
def gx() -> ModuleType:
    # One import (~5 s) for the module; the runner imports lazily and then finds it in sys.modules.
    import great_expectations

    return great_expectations


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return pl.DataFrame(
        {"id": ["a", "b", "c", "c"], "score": [0.1, 0.5, 1.5, None], "flag": [True, False, True, False]}
    )


def _expectations(gx: ModuleType) -> list:
    E = gx.expectations
    return [
        E.ExpectColumnValuesToBeUnique(column="id"),
        E.ExpectColumnValuesToBeBetween(column="score", min_value=0, max_value=1),
        E.ExpectTableRowCountToBeBetween(min_value=1),
        E.ExpectColumnValuesToNotBeNull(column="flag"),
        metric_between("drop_share", max_value=0.05, description="dropped over extracted"),
        E.ExpectColumnValuesToNotBeNull(column="score"),
    ]


def test_results_follow_the_given_order_and_name_the_failures(gx: ModuleType, frame: pl.DataFrame, tmp_path: Path):
    exps = _expectations(gx)
    result = run_gate("demo", frame, exps, str(tmp_path), metrics={"drop_share": 0.2})
    assert not result.success
    assert [(r["expectation"], r["column"]) for r in result.results] == [
        ("expect_column_values_to_be_unique", "id"),
        ("expect_column_values_to_be_between", "score"),
        ("expect_table_row_count_to_be_between", None),
        ("expect_column_values_to_not_be_null", "flag"),
        ("expect_column_values_to_be_between", "drop_share"),
        ("expect_column_values_to_not_be_null", "score"),
    ]
    assert [r["success"] for r in result.results] == [False, False, True, True, False, False]
    unique, between, rows, _, drop, nulls = result.results
    assert unique["unexpected_count"] == 2 and unique["unexpected_sample"] == ["c"]  # distinct values
    assert unique["unexpected_rows"] == [2, 3]
    assert between["unexpected_sample"] == [1.5]
    assert between["kwargs"] == {"column": "score", "min_value": 0, "max_value": 1}
    assert rows["observed"] == 4
    assert drop["target"] == "metrics" and drop["observed"] == 0.2 and drop["description"] == "dropped over extracted"
    assert nulls["unexpected_sample"] == [None]  # GX samples nulls as NaN; the result stays plain JSON
    assert result.failures() == [unique, between, drop, nulls]
    json.dumps(result.results, allow_nan=False)
    # the caller's expectation objects stay reusable
    assert run_gate("demo_again", frame, exps, None, metrics={"drop_share": 0.0}).results[4]["success"]


def test_reports_are_written_and_readable(gx: ModuleType, frame: pl.DataFrame, tmp_path: Path):
    result = run_gate("demo", frame, _expectations(gx), str(tmp_path / "out"), metrics={"drop_share": 0.2})
    assert result.report_path == str(tmp_path / "out" / "demo_gate.md")
    report = Path(result.report_path).read_text()
    assert report.startswith("# Quality gate: demo")
    assert "**FAILED**: 2 of 6 expectations met" in report
    assert "| drop_share | 0.2 |" in report
    assert "| 1 | **FAIL** | expect_column_values_to_be_unique | id |" in report
    assert "| 3 | pass | expect_table_row_count_to_be_between |" in report
    assert "2 of 4 unexpected (50.0%), e.g. ['c'] at rows [2, 3]" in report
    assert "- **expect_column_values_to_be_between(drop_share)** ≤ 0.05: observed 0.2" in report
    gx_json = json.loads((tmp_path / "out" / "demo_gate.json").read_text())
    assert gx_json["success"] is False and gx_json["metrics"] == {"drop_share": 0.2}
    assert set(gx_json["validations"]) == {"table", "metrics"}
    assert gx_json["validations"]["table"]["statistics"]["evaluated_expectations"] == 5


def test_enforce_raises_with_the_failed_expectations_and_the_report(
    gx: ModuleType, frame: pl.DataFrame, tmp_path: Path
):
    result = run_gate("demo", frame, _expectations(gx), str(tmp_path), metrics={"drop_share": 0.0})
    with pytest.raises(QualityGateFailed) as err:
        enforce(result)
    message = str(err.value)
    assert "quality gate 'demo' failed 3 of 6 expectations" in message
    assert "expect_column_values_to_be_unique(id)" in message
    assert "expect_column_values_to_be_between(score)" in message
    assert "expect_column_values_to_not_be_null(score)" in message
    assert "drop_share" not in message and "expect_table_row_count" not in message
    assert str(tmp_path / "demo_gate.md") in message
    assert err.value.result is result


def test_a_passing_gate_does_not_raise_and_writes_nothing_without_out_dir(gx: ModuleType, frame: pl.DataFrame):
    E = gx.expectations
    result = run_gate("ok", frame, [E.ExpectColumnValuesToBeInSet(column="flag", value_set=[True, False])], None)
    assert result == GateResult(name="ok", success=True, results=result.results, report_path=None)
    enforce(result)


def test_a_missing_metric_or_column_fails_with_the_error(gx: ModuleType, frame: pl.DataFrame):
    E = gx.expectations
    exps = [metric_between("drop_share", max_value=0.05), E.ExpectColumnValuesToNotBeNull(column="nope")]
    result = run_gate("missing", frame, exps, None)
    assert [r["success"] for r in result.results] == [False, False]
    assert all("does not exist" in r["exception"] for r in result.results)
    with pytest.raises(
        QualityGateFailed, match=r"expect_column_values_to_not_be_null\(nope\): error: .*does not exist"
    ):
        enforce(result)


def test_metric_between_needs_a_bound():
    with pytest.raises(ValueError, match="drop_share"):
        metric_between("drop_share")

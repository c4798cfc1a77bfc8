"""The scored-catalog gate: a valid catalog passes, and each expectation fails on its own corruption."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from ecoagent.runtime.quality_gate import GateResult, QualityGateFailed, enforce
from schemas.scored_tool import Flaw, ScoredToolRecord
from schemas.tool_record import Link, polars_schema
from scoring.gate import REQUIRED_COLUMNS, crawl_drop_share, run_scored_catalog_gate, scored_catalog_expectations
from scoring.settings import GateConfig

N_TOOLS = 10
CFG = GateConfig(max_drop_share=0.05, max_critical_flaw_share=0.5, max_unknown_side_effect_share=0.3, min_tools=1)
SUMMARY = {"tools": N_TOOLS, "drops_by_reason": {"no_name": 0}}


def _record(i: int) -> dict:
    return ScoredToolRecord(
        tool_id=f"mcp:@modelcontextprotocol/server-slack:tool_{i}",
        platform="mcp", listing="official", package="@modelcontextprotocol/server-slack",
        package_version="1.0.0", source_path="dist/index.js", source_symbol=f"tool_{i}",
        service="slack", name=f"tool_{i}", display_name=f"Tool {i}",
        description="" if i == 0 else f"Does thing {i}",  # empty descriptions are allowed
        parameters='{"properties": {}, "type": "object"}', required_parameters=[], auth_type="api_key",
        auth_env_vars=["SLACK_BOT_TOKEN"], auth_env_vars_declared=[], auth_env_vars_read=["SLACK_BOT_TOKEN"],
        auth_credentials=[], endpoints=["https://slack.com/api"], http_methods=["POST"],
        doc_urls=[], links=[Link(url="https://slack.com/api", kind="endpoint")], categories=[],
        package_dependencies=[], deprecated=False, replacement=None, runtime_only=False, usable_as_tool=None,
        flags=[], duplicate_group=None, content_hash=f"{i:064x}",
        doc_summary=None, r_cons=0.9, w_src=1.0, r_qual=0.5, r_static=0.0 if i == 1 else 1.0, reliable=i != 1,
        flaws=[Flaw(flaw="missing_description", severity="critical", reason="empty")] if i == 0 else [],
        critical_flaw=i == 0,
        side_effect="unknown" if i == 2 else "read_only", side_effect_rule="verb:get",
        inverse_tool_id=None, permission_scope="slack.read", prompt_tokens=40 + i,
    ).model_dump()  # fmt: skip


@pytest.fixture(scope="module")
def valid() -> pl.DataFrame:
    return pl.DataFrame([_record(i) for i in range(N_TOOLS)], schema=polars_schema(ScoredToolRecord), orient="row")


def _set(column: str, value, rows: int = 1) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """Overwrite ``column`` on the first ``rows`` rows."""

    def corrupt(df: pl.DataFrame) -> pl.DataFrame:
        dtype = df.schema[column]
        new = pl.when(pl.int_range(pl.len()) < rows).then(pl.lit(value, dtype=dtype)).otherwise(pl.col(column))
        return df.with_columns(new.alias(column))

    return corrupt


def _failed(result: GateResult) -> set[tuple[str, str | None]]:
    return {(r["expectation"], r["column"]) for r in result.failures()}


def test_valid_catalog_passes_and_writes_a_readable_report(valid: pl.DataFrame, tmp_path: Path):
    result = run_scored_catalog_gate(valid, SUMMARY, CFG, str(tmp_path))
    assert result.success, result.failures()
    enforce(result)
    assert len(result.results) == len(scored_catalog_expectations(CFG))
    report = Path(result.report_path).read_text()
    assert result.report_path == str(tmp_path / "scored_catalog_gate.md")
    assert (tmp_path / "scored_catalog_gate.json").exists()
    assert "PASSED" in report and "FAIL" not in report
    for column in REQUIRED_COLUMNS:
        assert f"| expect_column_values_to_not_be_null | {column} |" in report
    for expectation in (
        "expect_table_row_count_to_be_between", "expect_column_values_to_be_unique",
        "expect_column_value_lengths_to_be_between", "expect_column_values_to_be_between",
        "expect_column_values_to_be_in_set", "expect_column_values_to_not_be_in_set",
    ):  # fmt: skip
        assert expectation in report
    assert "| drop_share | 0 |" in report


def test_report_dir_from_config_wins(valid: pl.DataFrame, tmp_path: Path):
    cfg = CFG.model_copy(update={"report_dir": str(tmp_path / "reports")})
    result = run_scored_catalog_gate(valid, SUMMARY, cfg, str(tmp_path / "stage"))
    assert result.report_path == str(tmp_path / "reports" / "scored_catalog_gate.md")


CASES = {
    "duplicate_id": (_set("tool_id", "dup", rows=2), SUMMARY, ("expect_column_values_to_be_unique", "tool_id")),
    "null_name": (_set("name", None), SUMMARY, ("expect_column_values_to_not_be_null", "name")),
    "null_description": (_set("description", None), SUMMARY, ("expect_column_values_to_not_be_null", "description")),
    "null_prompt_tokens": (
        _set("prompt_tokens", None), SUMMARY, ("expect_column_values_to_not_be_null", "prompt_tokens"),
    ),
    "empty_name": (_set("name", ""), SUMMARY, ("expect_column_value_lengths_to_be_between", "name")),
    "r_static_above_1": (_set("r_static", 1.3), SUMMARY, ("expect_column_values_to_be_between", "r_static")),
    "r_cons_below_0": (_set("r_cons", -0.1), SUMMARY, ("expect_column_values_to_be_between", "r_cons")),
    "zero_prompt_tokens": (_set("prompt_tokens", 0), SUMMARY, ("expect_column_values_to_be_between", "prompt_tokens")),
    "bad_platform": (_set("platform", "zapier"), SUMMARY, ("expect_column_values_to_be_in_set", "platform")),
    "bad_listing": (_set("listing", "unlisted"), SUMMARY, ("expect_column_values_to_be_in_set", "listing")),
    "bad_auth_type": (_set("auth_type", "jwt"), SUMMARY, ("expect_column_values_to_be_in_set", "auth_type")),
    # a null auth the tool does not name unknown: a missing value with no account of it
    "null_auth_not_named_unknown": (
        _set("auth_type", None), SUMMARY, ("expect_column_values_to_be_between", "unknown_passed_as_known"),
    ),
    "bad_side_effect": (
        _set("side_effect", "destructive"), SUMMARY, ("expect_column_values_to_be_in_set", "side_effect"),
    ),
    # 6 of 10 > 0.5
    "too_many_critical": (
        _set("critical_flaw", True, rows=6), SUMMARY, ("expect_column_values_to_not_be_in_set", "critical_flaw"),
    ),
    # row 2 is unknown already; rows 0-3 make 4 of 10 > 0.3
    "too_many_unknown": (
        _set("side_effect", "unknown", rows=4), SUMMARY, ("expect_column_values_to_not_be_in_set", "side_effect"),
    ),
    # 1 dropped of 11 extracted = 0.09 > 0.05
    "high_drop_share": (
        lambda df: df, {"tools": N_TOOLS, "drops_by_reason": {"no_name": 1}},
        ("expect_column_values_to_be_between", "drop_share"),
    ),
    "empty_table": (
        lambda df: df.clear(), {"tools": 0, "drops_by_reason": {}}, ("expect_table_row_count_to_be_between", None),
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_each_corruption_fails_exactly_its_expectation(case: str, valid: pl.DataFrame, tmp_path: Path):
    corrupt, summary, expected = CASES[case]
    result = run_scored_catalog_gate(corrupt(valid), summary, CFG, str(tmp_path))
    assert not result.success
    assert _failed(result) == {expected}
    with pytest.raises(QualityGateFailed) as err:
        enforce(result)
    label = f"{expected[0]}({expected[1]})" if expected[1] else expected[0]
    assert label in str(err.value)
    assert result.report_path in str(err.value)
    report = Path(result.report_path).read_text()
    assert "FAILED" in report and "## Failures" in report and label in report


def test_shares_at_the_limit_pass(valid: pl.DataFrame, tmp_path: Path):
    # exactly 5 of 10 critical (limit 0.5), 3 of 10 unknown (limit 0.3), 1 of 20 dropped (limit 0.05)
    df = _set("critical_flaw", True, rows=5)(valid)
    df = df.with_columns(pl.when(pl.int_range(pl.len()) < 3).then(pl.lit("unknown")).otherwise(pl.col("side_effect"))
                         .alias("side_effect"))  # fmt: skip
    result = run_scored_catalog_gate(df, {"tools": 19, "drops_by_reason": {"x": 1}}, CFG, str(tmp_path))
    assert result.success, result.failures()


def test_min_tools_is_configurable(valid: pl.DataFrame, tmp_path: Path):
    cfg = CFG.model_copy(update={"min_tools": N_TOOLS + 1})
    result = run_scored_catalog_gate(valid, SUMMARY, cfg, str(tmp_path))
    assert _failed(result) == {("expect_table_row_count_to_be_between", None)}


def test_crawl_drop_share():
    assert crawl_drop_share({"tools": 9, "drops_by_reason": {"a": 1}}) == 0.1
    assert crawl_drop_share({"tools": 0, "drops_by_reason": {}}) == 0.0
    assert crawl_drop_share({"tools": 0, "drops_by_reason": {"a": 2, "b": 1}}) == 1.0


def _listing_copy(frame: pl.DataFrame, **change) -> pl.DataFrame:
    """The first row as a tool of n8n's listing copy: auth, docs and parameters named unknown (``change`` on top)."""
    rows = frame.to_dicts()
    rows[0] |= {"auth_type": None, "auth_env_vars": [], "auth_env_vars_read": [], "flags": ["description_from_listing"],
                "unknown_fields": ["auth_type", "doc_urls", "parameters"], **change}  # fmt: skip
    return pl.DataFrame(rows, schema=frame.schema)


def test_an_unknown_auth_named_unknown_passes(valid: pl.DataFrame, tmp_path: Path):
    result = run_scored_catalog_gate(_listing_copy(valid), SUMMARY, CFG, str(tmp_path))
    assert result.success, result.failures()
    assert "| unknown_passed_as_known | 0 |" in Path(result.report_path).read_text()


@pytest.mark.parametrize("change", [{"auth_type": "none", "unknown_fields": ["doc_urls", "parameters"]},
                                    {"unknown_fields": ["auth_type", "doc_urls"]}])  # fmt: skip
def test_a_listing_copy_tool_passing_a_missing_field_off_as_known_fails(change: dict, valid: pl.DataFrame,
                                                                         tmp_path: Path):  # fmt: skip
    # "no auth" where the copy keeps no credential; an empty parameter schema the copy cannot show, not named unknown
    result = run_scored_catalog_gate(_listing_copy(valid, **change), SUMMARY, CFG, str(tmp_path))
    assert _failed(result) == {("expect_column_values_to_be_between", "unknown_passed_as_known")}
